// Clone multi-use graph inputs into LX (torch-spyre's CloneInputNodesPass,
// seed 000 stage 4): a graph input that several device ops read is fetched
// from HBM by each of them; a clone op in front of the first reader fetches
// it once into a fresh intermediate, which LX planning may then keep in LX for
// every later reader. The clone is divided over the cores exactly as its
// readers view the input, so each core's LX holds the slice it will read.
// LX planning removes a clone again when its output does not get LX.

#include <algorithm>

#include "compiler/ir/iteration_space.h"
#include "compiler/passes/passes.h"

namespace spyre::compiler {

namespace {

// The per-core views every reader takes of tensor t; empty when they differ
// (core_div_mismatch) or when an op reads it through a view.
std::vector<CoreView> common_reader_view(const Graph& g, int t, const std::vector<int>& readers) {
  std::vector<CoreView> common;
  for (int r : readers) {
    const Op& op = g.ops[static_cast<size_t>(r)];
    const IterationSpace s = iteration_space(g, op);
    for (const auto& o : s.operands) {
      if (o.tensor != t || o.output) continue;
      const auto views = core_views(g, op, s, o);
      if (common.empty()) {
        common = views;
      } else if (views != common) {
        return {};
      }
    }
  }
  return common;
}

}  // namespace

void clone_input_nodes(Graph& g, const CompileOptions& options) {
  if (!options.lx.enabled || options.lx.stage < 4) return;
  const size_t original_tensors = g.tensors.size();
  for (size_t t = 0; t < original_tensors; ++t) {
    const Tensor x = g.tensors[t];  // a copy: adding the clone's tensor may move the list
    if (x.role != Role::Input && x.role != Role::Weight) continue;
    std::vector<int> readers;
    bool viewed = false;
    for (size_t o = 0; o < g.ops.size(); ++o) {
      const Op& op = g.ops[o];
      if (std::find(op.inputs.begin(), op.inputs.end(), static_cast<int>(t)) == op.inputs.end()) continue;
      if (is_view_op(op.type) || device_op_info(op)->kind == OpKind::Copy) viewed = true;
      readers.push_back(static_cast<int>(o));
    }
    if (viewed || readers.size() < 2) continue;
    const std::vector<CoreView> view = common_reader_view(g, static_cast<int>(t), readers);
    if (view.empty()) continue;

    Tensor copy = x;
    copy.name = g.unique_name(x.name + ".lx");
    copy.role = Role::Intermediate;
    copy.host_shape.clear();
    copy.clone_of = static_cast<int>(t);
    const int c = g.add_tensor(copy);
    Op clone;
    clone.type = "identity";
    clone.inputs = {static_cast<int>(t)};
    clone.outputs = {c};
    clone.origin = "clone of input '" + x.name + "'";
    clone.inserted = true;
    // Divide the clone as the readers view the input: slices per tensor dim.
    const IterationSpace s = iteration_space(g, clone);
    const Operand& out = s.operands.back();
    int64_t cores = 1;
    for (size_t j = 0; j < x.shape.size(); ++j) {
      // Ceil: the last core's slice of a dim split over padded sticks is short.
      const int64_t slices = (x.shape[j] + view[0].extent[j] - 1) / view[0].extent[j];
      if (slices > 1) clone.splits[s.dims[static_cast<size_t>(out.iter_of[j])].label] = slices;
      cores *= slices;
    }
    clone.cores = static_cast<int>(cores);
    // A reader that broadcasts the input to every core, or numbers its cores
    // another way, sees other slices than the clone would write.
    if (core_views(g, clone, s, out) != view) {
      g.tensors.pop_back();
      continue;
    }
    for (int r : readers) {
      for (int& in : g.ops[static_cast<size_t>(r)].inputs) {
        if (in == static_cast<int>(t)) in = c;
      }
    }
    // Placed before its first reader, inside that reader's coarse-tiling loop
    // if it has one, so the loop's ops stay together.
    clone.loop_trips = g.ops[static_cast<size_t>(readers.front())].loop_trips;
    clone.loop_group = g.ops[static_cast<size_t>(readers.front())].loop_group;
    g.ops.insert(g.ops.begin() + readers.front(), clone);
  }
}

}  // namespace spyre::compiler
