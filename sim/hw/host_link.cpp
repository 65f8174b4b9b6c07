#include "sim/hw/host_link.h"

#include <algorithm>

namespace spyre::sim {

HostLink::HostLink(sc_core::sc_module_name name, const ArchConfig& arch)
    : sc_module(name), ns_per_byte_(1.0 / arch.host_link.gbps), latency_ns_(arch.host_link.latency_us * 1000.0) {}

double HostLink::transfer(int64_t bytes, double earliest_ns, const std::string& label) {
  const double start = std::max(earliest_ns, free_at_ns_);
  free_at_ns_ = start + latency_ns_ + static_cast<double>(bytes) * ns_per_byte_;
  log_.add(start, free_at_ns_, label);
  return free_at_ns_;
}

}  // namespace spyre::sim
