#pragma once
// A core's DMA engine: moves a tile between HBM (LPDDR5) and the LX staging
// space. A transfer is cut into dma.request_bytes requests; each passes the
// core's memory port (dma.port_gbps, shared by the core's load and store
// engines) and the LX ports, then goes into the memory network over TLM-2.0
// b_transport, which annotates its completion. Up to dma.max_outstanding x
// dma.request_bytes of requests are in flight (short requests: more of them),
// each freeing its space when it completes; the transfer ends when the last
// one completes.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "runtime/arch_config.h"
#include "sim/hw/busy_log.h"
#include "sim/hw/hardware_block.h"
#include "sim/schedule/kernel_plan.h"

namespace spyre::sim {

// The core's path into the memory network, shared by its two DMA engines: a
// resource both reserve, not a block of its own.
struct MemoryPort {
  double free_at_ns = 0;
  double ns_per_byte = 0;
};

enum class DmaDirection { Load, Store };  // HBM -> LX, LX -> HBM

class DmaEngine : public sc_core::sc_module, public HardwareBlock {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> socket;     // the memory network (HBM)
  tlm_utils::simple_initiator_socket<DmaEngine> lx_socket;  // the core's LX

  DmaEngine(sc_core::sc_module_name name, const ArchConfig& arch, DmaDirection direction, MemoryPort& port);

  // Blocks the calling thread until the whole transfer has completed.
  void transfer(const Transfer& t, const std::string& label);
  // Several transfers queued as one stream of descriptors (a tile's
  // operands): requests stay in flight from one descriptor to the next;
  // returns when the last has completed.
  void transfer(std::span<const Transfer> transfers, const std::string& label);
  // When each request of the last transfer() landed, in issue order, with
  // the bytes it carried: what a consumer that follows the data waits for.
  const std::vector<std::pair<double, int64_t>>& landed() const { return landed_; }

  const BusyLog& log() const { return log_; }
  int64_t bytes() const { return bytes_; }
  std::vector<Activity> activities() const override;  // "DMA-in" or "DMA-out"
  Counters counters() const override;                 // bytes, busy_ns

 private:
  DmaDirection direction_;
  MemoryPort& port_;
  int64_t request_bytes_;
  int64_t in_flight_bytes_;  // dma.max_outstanding x dma.request_bytes
  double setup_ns_;
  double run_ns_;
  std::vector<std::pair<double, int64_t>> in_flight_;  // open requests (completion, bytes), earliest first
  std::vector<std::pair<double, int64_t>> landed_;     // the last transfer's requests (completion, bytes)
  BusyLog log_;
  int64_t bytes_ = 0;
};

}  // namespace spyre::sim
