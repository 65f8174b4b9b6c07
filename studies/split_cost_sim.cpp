#include "studies/split_cost_sim.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <thread>
#include <utility>

namespace spyre::studies {

SimulatedSplitCost::SimulatedSplitCost(std::string arch_path, std::vector<std::string> arch_overrides, int workers)
    : arch_path_(std::move(arch_path)), arch_overrides_(std::move(arch_overrides)), workers_(workers) {}

double SimulatedSplitCost::hbm_gbps() const {
  const ArchConfig arch = load_arch(arch_path_, arch_overrides_);
  return std::min(arch.lpddr5.read_gbps, arch.lpddr5.write_gbps);
}

std::vector<compiler::SplitTime> SimulatedSplitCost::matmul_kernel_us(
    const compiler::MatmulShape& shape, const std::vector<compiler::MatmulSplit>& splits) {
  const ArchConfig arch = load_arch(arch_path_, arch_overrides_);
  std::map<std::string, double>& known = times_[shape.text()];
  std::vector<compiler::SplitTime> out(splits.size());
  std::vector<double> bound(splits.size());
  for (size_t i = 0; i < splits.size(); ++i) bound[i] = matmul_split_lower_bound_us(shape, splits[i], arch);

  // Branch and bound: simulate in order of the lower bound, a batch per
  // worker round; a split whose bound is not below the best time so far
  // (plus the tie tolerance) cannot win or tie and is not simulated.
  std::vector<size_t> order(splits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bound[a] < bound[b]; });
  const size_t batch =
      static_cast<size_t>(std::max(1, workers_ > 0 ? workers_ : static_cast<int>(std::thread::hardware_concurrency())));
  double best = std::numeric_limits<double>::infinity();
  size_t next = 0;
  auto could_tie = [&](size_t i) { return bound[i] < best * (1 + compiler::kSplitTimeTolerance); };
  while (next < order.size() && could_tie(order[next])) {
    std::vector<size_t> round;
    std::vector<compiler::MatmulSplit> to_run;
    for (; next < order.size() && round.size() < batch && could_tie(order[next]); ++next) {
      const size_t i = order[next];
      round.push_back(i);
      if (!known.count(splits[i].text())) to_run.push_back(splits[i]);
    }
    if (!to_run.empty()) {
      SplitStudyOptions o;
      o.shape = shape;
      o.arch_path = arch_path_;
      o.arch_overrides = arch_overrides_;
      o.workers = workers_;
      for (const auto& row : run_matmul_splits(o, to_run))
        known[row.split.text()] = row.error.empty() ? row.kernel_us : std::numeric_limits<double>::infinity();
      simulated_ += to_run.size();
    }
    for (size_t i : round) {
      out[i] = {known.at(splits[i].text()), false, bound[i]};
      best = std::min(best, out[i].kernel_us);
    }
  }
  for (; next < order.size(); ++next) out[order[next]] = {bound[order[next]], true, bound[order[next]]};
  return out;
}

}  // namespace spyre::studies
