#include "sim/hw/corelet.h"

#include <algorithm>

namespace spyre::sim {

Corelet::Corelet(sc_core::sc_module_name name, int index, const ArchConfig& arch)
    : sc_module(name), compute("compute"), index_(index), cycle_ns_(arch.cycle_ns()) {
  compute.bind(*this);
}

double Corelet::execute(Engine engine, double earliest_ns, double cycles, const std::string& label) {
  if (cycles <= 0) return earliest_ns;
  double& free_at = engine == Engine::Pt ? pt_free_ns_ : sfu_free_ns_;
  const double start = std::max(earliest_ns, free_at);
  free_at = start + cycles * cycle_ns_;
  (engine == Engine::Pt ? pt_ : sfu_).add(start, free_at, label);
  return free_at;
}

std::vector<Activity> Corelet::activities() const {
  const std::string prefix = "corelet " + std::to_string(index_);
  return {{"pt", prefix + " PT", &pt_}, {"sfu", prefix + " SFU", &sfu_}};
}

Counters Corelet::counters() const { return {{stats::kPtBusyNs, pt_.busy_ns()}, {stats::kSfuBusyNs, sfu_.busy_ns()}}; }

}  // namespace spyre::sim
