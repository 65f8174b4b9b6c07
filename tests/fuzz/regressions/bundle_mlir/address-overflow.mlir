module {
	func.func @sdsc_bundle(%arg_0_base_addr: !sdscbundle.input_arg<index>) {
		%arg_0 = sdscbundle.input_arg_extract value from %arg_0_base_addr : !sdscbundle.input_arg<index> -> index
		%big = arith.constant 9223372036854775807 : index
		%m1 = arith.constant -1 : index
		%min = arith.subi %m1, %big : index
		%x = arith.addi %big, %big : index
		%y = arith.divsi %min, %m1 : index
		sdscbundle.sdsc_execute (%x) {sdsc_filename="sdsc_0.json", "symbol_ids"=[-1]}
		return
	}
}
