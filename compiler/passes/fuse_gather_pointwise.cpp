// Fusing a gather into the pointwise op that reads it (torch-spyre's
// Inductor fuses x[i].exp() into one kernel: the exp reads the table through
// the index, test_indirect_access_gather.py's test_gather_with_exp and
// test_gather_supported_unaries). A gather's copy (identity with the gather
// attribute) whose rows only one unary elementwise op reads, unchanged in
// shape and device format, becomes that op reading the table and index
// itself; the rows are never written. A chain fuses its first op only
// (x[i].exp().tanh() is exp through the index, then tanh), as torch-spyre's.

#include <algorithm>
#include <vector>

#include "compiler/passes/passes.h"
#include "runtime/data_format.h"
#include "runtime/op_registry.h"

namespace spyre::compiler {

namespace {

bool fusable_reader(const Graph& g, const Op& reader, int rows) {
  const OpInfo* info = device_op_info(reader);
  if (!info || info->kind != OpKind::Elementwise || reader.inputs.size() != 1 || reader.inputs[0] != rows) return false;
  if (reader.attrs.contains("gather") || reader.attrs.contains("scatter") || reader.coarse_tile.tiles > 1) return false;
  const Tensor &in = g.tensors[static_cast<size_t>(rows)], &out = g.tensors[static_cast<size_t>(reader.outputs[0])];
  return out.shape == in.shape && device_format(out.dtype) == device_format(in.dtype);
}

}  // namespace

void fuse_gather_pointwise(Graph& graph) {
  std::vector<int> readers(graph.tensors.size(), 0);
  for (const auto& op : graph.ops) {
    for (int t : op.inputs) ++readers[static_cast<size_t>(t)];
  }
  std::vector<bool> fused(graph.ops.size(), false);
  for (size_t g = 0; g < graph.ops.size(); ++g) {
    const Op& gather = graph.ops[g];
    if (gather.type != "identity" || !gather.attrs.contains("gather") || gather.coarse_tile.tiles > 1) continue;
    const int rows = gather.outputs[0];
    if (graph.tensors[static_cast<size_t>(rows)].role != Role::Intermediate || readers[static_cast<size_t>(rows)] != 1)
      continue;
    for (size_t r = g + 1; r < graph.ops.size(); ++r) {
      Op& reader = graph.ops[r];
      if (std::find(reader.inputs.begin(), reader.inputs.end(), rows) == reader.inputs.end()) continue;
      if (fusable_reader(graph, reader, rows) && reader.loop_group == gather.loop_group) {  // one loop or none
        reader.inputs = gather.inputs;
        for (const auto& [key, value] : gather.attrs.items()) reader.attrs[key] = value;
        fused[g] = true;
      }
      break;
    }
  }
  std::vector<Op> kept;
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    if (!fused[o]) kept.push_back(std::move(graph.ops[o]));
  }
  graph.ops = std::move(kept);
}

}  // namespace spyre::compiler
