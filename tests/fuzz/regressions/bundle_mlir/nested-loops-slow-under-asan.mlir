module {
	func.func @sdsc_bundle(%arg_0_base_addr: !sdscbundle.inpurgta_<index>) {
		%arg_0 = sdscbundle.input_arg_extract value from %arg_0_base_addr : !sdscbundle.input_arg<index> -> index
		%c0 = arith.constant 0 : index
		%big = arith.constant 9223372036854775807 : index
		%step = arith.constant 4611686018427387904 : index
		%c1 = arith.constant 1 : index
		scf.for %i = %c0 to %big step %step {
			scf.for %j = %c0 to %big step %c1 {
				%x = arith.addi %i, %c1 : index
			}
		}
		sdscbundle.sdsc_execute (%arg_0) {sdsc_filename="sdsc_0.json", "symbol_ids"=[-1]}
		return
	}
}
