#pragma once
// torch-spyre's named work-division hint (spyre_hint(work_div={NAME: N, ...})
// over tensors whose dims name_tensor_dims named): each named dim of an op's
// iteration space split N ways, in the hint's order, as its work_division.py
// _apply_user_hint applies it. Names the op does not have are ignored; a
// split that would take the op past the cores is skipped (and said so); the
// rest must be positive, divide their dims, leave pinned dims whole and split
// at most one reduction dim, else one line names the op and the dim.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/iteration_space.h"

namespace spyre::compiler {

using WorkDivHint = std::vector<std::pair<std::string, int64_t>>;

// Per iteration dim, the name its operands' named dims give it ("" none).
std::vector<std::string> iteration_dim_names(const Graph& g, const IterationSpace& space);

struct HintedSplits {
  std::vector<int64_t> slices;  // per iteration dim
  std::string skipped;          // the hint's dims left whole because of the cores, or ""
};

// `units`: per iteration dim, what a split must divide (split_units);
// `pinned`: dims the op cannot split (a topk's searched dim).
HintedSplits apply_work_div_hint(const std::string& where, const IterationSpace& space,
                                 const std::vector<std::string>& names, const WorkDivHint& hint,
                                 const std::vector<int64_t>& units, int cores, const std::vector<bool>& pinned);

}  // namespace spyre::compiler
