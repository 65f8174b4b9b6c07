#include "studies/split_cost_sim.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace spyre::studies {

SimulatedSplitCost::SimulatedSplitCost(std::string arch_path, std::vector<std::string> arch_overrides, int workers)
    : arch_path_(std::move(arch_path)), arch_overrides_(std::move(arch_overrides)), workers_(workers) {}

std::vector<double> SimulatedSplitCost::matmul_kernel_us(const compiler::MatmulShape& shape,
                                                         const std::vector<compiler::MatmulSplit>& splits) {
  int64_t max_cores = 1;
  for (const auto& s : splits) max_cores = std::max(max_cores, s.cores());
  const std::string key = shape.text() + "/" + std::to_string(max_cores);
  auto cached = times_.find(key);
  if (cached == times_.end()) {
    SplitStudyOptions o;
    o.shape = shape;
    o.max_cores = max_cores;
    o.arch_path = arch_path_;
    o.arch_overrides = arch_overrides_;
    o.workers = workers_;
    std::map<std::string, double> times;
    for (const auto& row : run_split_study(o).rows) {
      if (row.error.empty()) times[row.split.text()] = row.kernel_us;
    }
    ++studies_run_;
    cached = times_.emplace(key, std::move(times)).first;
  }
  std::vector<double> out;
  for (const auto& s : splits) {
    const auto it = cached->second.find(s.text());
    out.push_back(it == cached->second.end() ? std::numeric_limits<double>::infinity() : it->second);
  }
  return out;
}

}  // namespace spyre::studies
