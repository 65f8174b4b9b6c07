#pragma once
// SuperDSC codegen: one device op of a planned graph as the sdsc_N.json
// torch-spyre's codegen package would write for it, field for field
// (interface-specs 0248-SdscBundleSpec/SuperDSC-Bundle.md).

#include <cstdint>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/ir/graph.h"
#include "runtime/json_node.h"

namespace spyre::compiler {

// A start address bundle.mlir gives an SDSC of a coarse-tiling loop: symbol
// `symbol` is `start + i * advance` in iteration i.
struct LoopAddress {
  int64_t symbol = 0;
  int64_t start = 0;
  int64_t advance = 0;
};

// `index` is the op's position in its bundle (the "<index>_<op>" key). An op
// in a coarse-tiling loop addresses its tiled tensors (Tensor::tiles) with
// symbols; `loop_addresses` receives them, in symbol order.
Json sdsc_json(const Graph& graph, int op_index, int index, const CompileOptions& options,
               std::vector<LoopAddress>* loop_addresses = nullptr);

// Absolute address (segment * segment_bytes + offset) of a tensor's first
// byte in the bundle that launches `op_index`.
int64_t tensor_address(const Graph& graph, int tensor, int bundle, const CompileOptions& options);

// The exUnit torch-spyre gives an op: the PT array for batchmatmul and, as in
// the seed's abs example, abs; the SFU for everything else.
const char* execution_unit(const std::string& op_func_name);

}  // namespace spyre::compiler
