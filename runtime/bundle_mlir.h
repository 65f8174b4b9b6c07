#pragma once
// Reader for the SuperDSC-Bundle IR (bundle.mlir): an ordered list of
// sdscbundle.sdsc_execute operations, optionally inside scf.for loops, whose
// operands give values to the symbols (negative ids) used in the SDSCs.
//
// Supported subset, as torch-spyre emits it and the spec (interface-specs
// 0248) describes: func.func with !sdscbundle.input_arg<index> arguments,
// sdscbundle.input_arg_extract, arith.constant/addi/subi/muli/divsi/divui/
// remsi/remui/floordivsi/ceildivsi/index_cast, affine.apply (inline maps or
// #aliases), scf.for with constant bounds, sdscbundle.sdsc_execute, return.
// The file is interpreted: loops are unrolled into a flat launch list.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace spyre {

struct SdscLaunch {
  std::string sdsc_file;               // relative to the bundle directory
  std::map<int64_t, int64_t> symbols;  // symbol id -> value (start addresses)
  int line = 0;                        // of the sdsc_execute in bundle.mlir
  // The iteration of the innermost scf.for it runs in (a number unique to
  // that iteration; 0: not in a loop): launches of one loop-body iteration
  // share it.
  int64_t loop_body = 0;
};

struct BundleMlir {
  std::string function;                // @name of the bundle function
  std::vector<std::string> arguments;  // function argument names, in order
  std::vector<SdscLaunch> launches;    // after unrolling loops
};

// arg_value(i) gives the runtime value of function argument i (its base address).
BundleMlir parse_bundle_mlir(const std::string& text, const std::string& file,
                             const std::function<int64_t(size_t)>& arg_value);
BundleMlir read_bundle_mlir(const std::string& path, const std::function<int64_t(size_t)>& arg_value);

}  // namespace spyre
