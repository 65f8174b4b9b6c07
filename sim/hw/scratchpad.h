#pragma once
// A core's LX scratchpad as a contended resource: its ports move
// lx.ports x lx.port_bytes_per_cycle bytes per cycle, shared by the DMA
// engines filling and draining staging buffers and the corelets reading
// operands and writing results. A request is a TLM payload of its bytes
// (write: into LX, read: out of it), served in arrival order; the delay
// returned is when its last byte has moved.

#include <cstdint>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "runtime/arch_config.h"
#include "sim/hw/hardware_block.h"

namespace spyre::sim {

class Scratchpad : public sc_core::sc_module, public HardwareBlock {
 public:
  tlm_utils::multi_passthrough_target_socket<Scratchpad> socket;  // DMA engines and the core's compute

  Scratchpad(sc_core::sc_module_name name, const ArchConfig& arch);

  Counters counters() const override;  // bytes, busy_ns (port time)

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  double ns_per_byte_;
  double free_at_ns_ = 0;
  int64_t bytes_moved_ = 0;
  double busy_ns_ = 0;
};

}  // namespace spyre::sim
