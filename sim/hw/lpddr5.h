#pragma once
// LPDDR5 device memory shared by all cores, as a TLM-2.0 target (so a
// cycle-level DRAM model such as DRAMSys could replace it). Each request is
// cut into interleave-sized chunks spread over the channels; a channel serves
// chunks in arrival order at its sustained rate (read_gbps or write_gbps
// divided by the channel count) and the request completes latency_ns after
// its last chunk.
//
// Mixed traffic: the controller buffers writes and drains them in batches of
// write_batch_bytes, turning the bus around (turnaround_ns) into write mode
// and back for each batch. While a channel is also serving reads, every
// written byte therefore carries 2 x turnaround_ns / write_batch_bytes of
// turnaround time; a write-only or read-only stream carries none.
// Back-pressure: a channel queues at most queue_depth_chunks chunks; a
// request that would exceed that waits in b_transport until there is room, so
// requests enter the channels in time order, as a bounded controller queue
// forces them to.
// Timing is otherwise annotated on the b_transport delay (approximately
// timed: resource reservation, one call per DMA request).

#include <cstdint>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "runtime/arch_config.h"
#include "sim/hw/hardware_block.h"

namespace spyre::sim {

class Lpddr5 : public sc_core::sc_module, public HardwareBlock {
 public:
  tlm_utils::multi_passthrough_target_socket<Lpddr5> socket;

  Lpddr5(sc_core::sc_module_name name, const ArchConfig& arch);

  struct Stats {
    int64_t read_bytes = 0, write_bytes = 0;
    double turnarounds = 0;  // write batches drained between reads (x2 bus turnarounds)
    std::vector<double> channel_busy_ns;
  };
  const Stats& stats() const { return stats_; }
  // read_bytes, write_bytes, turnarounds, channels, channel_busy_ns (summed over channels)
  Counters counters() const override;
  size_t channel_of(int64_t address) const;  // which channel serves this byte

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  // Untimed access (host uploads): nothing to account.
  unsigned int transport_dbg(int initiator, tlm::tlm_generic_payload& payload);

  struct Channel {
    double free_at_ns = 0;
    double last_read_end_ns = -1e300;
  };
  std::vector<Channel> channels_;
  double read_ns_per_byte_, write_ns_per_byte_;
  double turnaround_ns_per_write_byte_;  // in mixed mode
  double mixed_window_ns_;               // a read this recent means reads and writes interleave
  double queue_ns_;                      // backlog a channel accepts
  double latency_ns_;
  double write_ack_ns_;  // < 0: writes complete like reads
  int64_t interleave_, write_batch_;
  Stats stats_;
};

}  // namespace spyre::sim
