#include "compiler/split/work_div_hint.h"

#include <algorithm>

#include "runtime/error.h"

namespace spyre::compiler {

std::vector<std::string> iteration_dim_names(const Graph& g, const IterationSpace& space) {
  std::vector<std::string> names(space.dims.size());
  for (const auto& o : space.operands) {
    const Tensor& t = g.tensors[static_cast<size_t>(o.tensor)];
    if (t.dim_names.size() != o.iter_of.size()) continue;
    for (size_t j = 0; j < o.iter_of.size(); ++j) {
      std::string& name = names[static_cast<size_t>(o.iter_of[j])];
      if (name.empty()) name = t.dim_names[j];
    }
  }
  return names;
}

HintedSplits apply_work_div_hint(const std::string& where, const IterationSpace& space,
                                 const std::vector<std::string>& names, const WorkDivHint& hint,
                                 const std::vector<int64_t>& units, int cores, const std::vector<bool>& pinned) {
  HintedSplits out;
  out.slices.assign(space.dims.size(), 1);
  int64_t used = 1;
  for (const auto& [name, n] : hint) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) continue;  // not a dim of this op
    const auto d = static_cast<size_t>(it - names.begin());
    if (n < 1) fail("", where, "work_div split of '" + name + "' must be positive, got " + std::to_string(n));
    if (used * n > cores) {
      out.skipped += (out.skipped.empty() ? "" : "; ") + std::string("skipping named dim '") + name +
                     "' (split=" + std::to_string(n) + "): cores would be " + std::to_string(used * n) +
                     " > SENCORES=" + std::to_string(cores);
      continue;
    }
    if (pinned[d] && n > 1) fail("", where, "work_div splits '" + name + "', which this op keeps pinned to split=1");
    out.slices[d] = n;
    used *= n;
  }
  int reductions = 0;
  for (size_t d = 0; d < out.slices.size(); ++d) {
    if (out.slices[d] == 1) continue;
    if (units[d] % out.slices[d] != 0)
      fail("", where,
           "work_div split " + std::to_string(out.slices[d]) + " of '" + names[d] + "' (" + std::to_string(units[d]) +
               (units[d] != space.dims[d].size ? " sticks" : " elements") + ") is not evenly divisible");
    reductions += space.dims[d].reduction ? 1 : 0;
  }
  if (reductions > 1)
    fail("", where,
         "work_div splits " + std::to_string(reductions) + " reduction dimensions; at most one may be split");
  return out;
}

}  // namespace spyre::compiler
