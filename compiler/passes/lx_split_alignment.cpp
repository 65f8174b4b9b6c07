// Split alignment for LX (a small form of torch-spyre's co-optimizing
// allocator, seed 000 "Co-optimization"): work division picks each op's
// splits on its own, so a pointwise op may slice a tensor by rows while the
// reduction next to it slices it by columns — core_div_mismatch, and the
// tensor is stuck in HBM. Before LX planning, each pointwise op may adopt the
// slicing a neighbouring op gives a tensor they share, when that divides its
// iteration space evenly, keeps the span limit's minimum splits, and leaves
// fewer mismatched tensors in the graph. Reductions keep their splits: a
// reduction can only be sliced along the dims it keeps.

#include <algorithm>
#include <tuple>

#include "compiler/ir/iteration_space.h"
#include "compiler/passes/passes.h"
#include "compiler/split/op_split.h"

namespace spyre::compiler {

namespace {

// Intermediates whose device ops do not all see the same per-core views.
int count_mismatches(const Graph& g) {
  std::vector<std::vector<CoreView>> view(g.tensors.size());
  std::vector<bool> mismatch(g.tensors.size(), false);
  for (const Op& op : g.ops) {
    if (is_view_op(op.type)) continue;
    const IterationSpace s = iteration_space(g, op);
    for (const auto& operand : s.operands) {
      const auto t = static_cast<size_t>(operand.tensor);
      if (g.tensors[t].role != Role::Intermediate) continue;
      auto views = core_views(g, op, s, operand);
      if (view[t].empty()) {
        view[t] = std::move(views);
      } else if (views != view[t]) {
        mismatch[t] = true;
      }
    }
  }
  return static_cast<int>(std::count(mismatch.begin(), mismatch.end(), true));
}

// The splits that make `op` slice tensor `t` the way `views` do; empty when
// no even division of its iteration space does.
std::map<std::string, int64_t> splits_matching(const Graph& g, const Op& op, const IterationSpace& s,
                                               const Operand& operand, const std::vector<CoreView>& views) {
  const Tensor& t = g.tensors[static_cast<size_t>(operand.tensor)];
  const std::vector<int64_t> units = split_units(g, s);
  std::map<std::string, int64_t> splits;
  int64_t cores = 1;
  for (size_t j = 0; j < t.shape.size(); ++j) {
    // Ceil: the last core's slice of a dim split over padded sticks is short.
    const int64_t slices = (t.shape[j] + views[0].extent[j] - 1) / views[0].extent[j];
    if (slices <= 1) continue;
    const auto it = static_cast<size_t>(operand.iter_of[j]);
    const int64_t pad = std::max<int64_t>(s.dims[it].stick_elems, 1);
    const bool spans = s.dims[it].size == t.shape[j] || s.dims[it].size == (t.shape[j] + pad - 1) / pad * pad;
    if (!spans || units[it] % slices != 0) return {};
    splits[s.dims[it].label] = slices;
    cores *= slices;
  }
  if (cores != static_cast<int64_t>(views.size())) return {};  // a core sees the tensor whole (broadcast)
  for (const auto& [label, minimum] : op.span_splits) {
    if (minimum > 1 && (!splits.count(label) || splits.at(label) % minimum != 0)) return {};
  }
  return splits;
}

}  // namespace

void lx_split_alignment(Graph& g, const CompileOptions& options) {
  if (!options.lx.enabled) return;
  const int start = count_mismatches(g);
  if (start == 0) return;
  std::vector<std::pair<std::map<std::string, int64_t>, int>> saved;
  for (const Op& op : g.ops) saved.emplace_back(op.splits, op.cores);
  // A chain of pointwise ops moves one op at a time: the first move only
  // shifts the mismatch to the next tensor, so a move that keeps the count is
  // taken too when it follows a reduction (reductions never move, so ops
  // cannot flip back and forth), and the sweeps are kept only if they end
  // with fewer mismatches.
  int mismatches = start;
  for (int sweep = 0; sweep < 2 && mismatches > 0; ++sweep) {
    for (size_t e = 0; e < g.ops.size() && mismatches > 0; ++e) {
      Op& op = g.ops[e];
      if (is_view_op(op.type) || device_op_info(op)->kind != OpKind::Elementwise) continue;
      const IterationSpace s = iteration_space(g, op);
      for (const auto& operand : s.operands) {
        if (g.tensors[static_cast<size_t>(operand.tensor)].role != Role::Intermediate) continue;
        // Every other device op's view of this tensor is a proposal.
        for (const Op& other : g.ops) {
          if (&other == &op || is_view_op(other.type)) continue;
          const IterationSpace so = iteration_space(g, other);
          for (const auto& theirs : so.operands) {
            if (theirs.tensor != operand.tensor) continue;
            const auto views = core_views(g, other, so, theirs);
            if (core_views(g, op, s, operand) == views) continue;
            const auto splits = splits_matching(g, op, s, operand, views);
            if (splits.empty() || splits == op.splits) continue;
            const auto before = std::make_pair(op.splits, op.cores);
            op.splits = splits;
            op.cores = static_cast<int>(views.size());
            const int now = count_mismatches(g);
            const bool anchored = device_op_info(other)->kind == OpKind::Reduction;
            if (now < mismatches || (now == mismatches && anchored)) {
              mismatches = now;
            } else {
              op.splits = before.first;
              op.cores = before.second;
            }
          }
        }
      }
    }
  }
  if (mismatches >= start) {
    for (size_t o = 0; o < g.ops.size(); ++o) std::tie(g.ops[o].splits, g.ops[o].cores) = saved[o];
    return;
  }
  // An op a work-division search placed (--work-division model-all) and
  // alignment moved: its decisions say so next to the search's pick.
  for (size_t o = 0; o < g.ops.size(); ++o) {
    Op& op = g.ops[o];
    if (op.work_division.empty() || op.splits == saved[o].first) continue;
    const IterationSpace s = iteration_space(g, op);
    std::vector<int64_t> slices;
    for (const auto& d : s.dims) slices.push_back(op.splits.count(d.label) ? op.splits.at(d.label) : 1);
    op.lx_chain += std::string(op.lx_chain.empty() ? "" : "; ") + "LX split alignment: " + slices_text(s, slices) +
                   ", a neighbour's slicing of an intermediate they share";
  }
}

}  // namespace spyre::compiler
