#include "compiler/split/split_cost.h"

#include <cmath>

namespace spyre::compiler {

SplitPick pick_split(const std::vector<int64_t>& cores, const std::vector<SplitTime>& times) {
  const size_t none = cores.size();
  size_t fastest = none;
  for (size_t i = 0; i < cores.size(); ++i) {
    if (times[i].lower_bound) continue;
    // Strict: ties keep the earlier, fewer-core split.
    if (fastest == none || times[i].kernel_us < times[fastest].kernel_us) fastest = i;
  }
  if (fastest == none || !std::isfinite(times[fastest].kernel_us)) return {fastest, fastest};
  size_t pick = fastest;
  for (size_t i = 0; i < cores.size(); ++i) {
    if (times[i].lower_bound || times[i].kernel_us > times[fastest].kernel_us * (1 + kSplitTimeTolerance)) continue;
    if (cores[i] > cores[pick] || (cores[i] == cores[pick] && times[i].kernel_us < times[pick].kernel_us)) pick = i;
  }
  return {pick, fastest};
}

SplitPick pick_split(const std::vector<MatmulSplit>& splits, const std::vector<SplitTime>& times) {
  std::vector<int64_t> cores;
  for (const auto& s : splits) cores.push_back(s.cores());
  return pick_split(cores, times);
}

}  // namespace spyre::compiler
