#include "compiler/split/hbm_traffic.h"

#include "compiler/ir/iteration_space.h"

namespace spyre::compiler {

namespace {

// A core's slice index along the split reduction dims, as one number (0: the
// core that writes the reduced result).
int64_t slice_along_reduction(const Op& op, const IterationSpace& s, int64_t core) {
  int64_t index = 0, scale = 1;
  for (const auto& d : s.dims) {
    const int64_t n = op.splits.count(d.label) ? op.splits.at(d.label) : 1;
    if (d.reduction) {
      index += (core % n) * scale;
      scale *= n;
    }
    core /= n;
  }
  return index;
}

}  // namespace

int64_t predicted_hbm_bytes(const Graph& g) {
  int64_t bytes = 0;
  for (const Op& op : g.ops) bytes += predicted_hbm_bytes(g, op);
  return bytes;
}

int64_t predicted_hbm_bytes(const Graph& g, const Op& op) {
  if (is_view_op(op.type)) return 0;
  int64_t bytes = 0;
  const IterationSpace s = iteration_space(g, op);
  for (const auto& operand : s.operands) {
    const Tensor& t = g.tensors[static_cast<size_t>(operand.tensor)];
    if (g.tensors[static_cast<size_t>(g.storage_of(operand.tensor))].in_lx) continue;
    const int64_t se = stick_elems(t.dtype);
    // Each core reads its slice (a broadcast one every core again) and
    // writes its output slice, except that cores differing only in a split
    // reduction dim sum their partial outputs on the reduce-sum ring, and
    // one of them writes the result.
    const auto views = core_views(g, op, s, operand);
    for (size_t c = 0; c < views.size(); ++c) {
      if (operand.output && slice_along_reduction(op, s, static_cast<int64_t>(c)) > 0) continue;
      bytes += layout_geometry(views[c].extent, t.layout, se, kStickBytes / se).bytes;
    }
  }
  return bytes;
}

}  // namespace spyre::compiler
