#pragma once
// The PCIe gen5 x16 link between host and card: uploads of input tensors
// before the launches and downloads of outputs after them.

#include <cstdint>
#include <string>

#include <systemc>

#include "runtime/arch_config.h"
#include "sim/hw/busy_log.h"

namespace spyre::sim {

class HostLink : public sc_core::sc_module {
 public:
  HostLink(sc_core::sc_module_name name, const ArchConfig& arch);
  // One DMA of `bytes` starting no earlier than `earliest_ns`; returns its end.
  double transfer(int64_t bytes, double earliest_ns, const std::string& label);
  const BusyLog& log() const { return log_; }

 private:
  double ns_per_byte_, latency_ns_;
  double free_at_ns_ = 0;
  BusyLog log_;
};

}  // namespace spyre::sim
