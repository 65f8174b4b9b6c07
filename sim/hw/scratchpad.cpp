#include "sim/hw/scratchpad.h"

#include <algorithm>

namespace spyre::sim {

Scratchpad::Scratchpad(sc_core::sc_module_name name, const ArchConfig& arch)
    : sc_module(name), ns_per_byte_(arch.cycle_ns() / (static_cast<double>(arch.lx.ports) * arch.lx.port_bytes_per_cycle)) {}

double Scratchpad::access(double earliest_ns, int64_t bytes) {
  if (bytes <= 0) return earliest_ns;
  const double start = std::max(earliest_ns, free_at_ns_);
  const double duration = static_cast<double>(bytes) * ns_per_byte_;
  free_at_ns_ = start + duration;
  bytes_moved_ += bytes;
  busy_ns_ += duration;
  return free_at_ns_;
}

}  // namespace spyre::sim
