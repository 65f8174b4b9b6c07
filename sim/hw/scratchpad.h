#pragma once
// A core's LX scratchpad as a contended resource: its ports move
// lx.ports x lx.port_bytes_per_cycle bytes per cycle, shared by the DMA
// engines filling and draining staging buffers and the corelets reading
// operands and writing results. Requests are served in call order.

#include <cstdint>

#include <systemc>

#include "runtime/arch_config.h"

namespace spyre::sim {

class Scratchpad : public sc_core::sc_module {
 public:
  Scratchpad(sc_core::sc_module_name name, const ArchConfig& arch);

  // Moves `bytes` through the ports starting no earlier than `earliest_ns`;
  // returns the time the last byte has moved.
  double access(double earliest_ns, int64_t bytes);

  int64_t bytes_moved() const { return bytes_moved_; }
  double busy_ns() const { return busy_ns_; }

 private:
  double ns_per_byte_;
  double free_at_ns_ = 0;
  int64_t bytes_moved_ = 0;
  double busy_ns_ = 0;
};

}  // namespace spyre::sim
