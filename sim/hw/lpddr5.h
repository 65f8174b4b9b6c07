#pragma once
// LPDDR5 device memory shared by all cores, as a TLM-2.0 target (so a
// cycle-level DRAM model such as DRAMSys could replace it). Each request is
// cut into interleave-sized chunks spread over the channels; a channel serves
// chunks in arrival order at its sustained rate (read_gbps or write_gbps
// divided by the channel count) and the request completes latency_ns after
// its last chunk.
//
// Mixed traffic: while a channel serves both reads and writes, the controller
// turns the bus around (turnaround_ns) into write mode and back once per
// mixed_batch_bytes it serves, reads and writes together. Every byte of fully
// mixed traffic, read or written, therefore carries 2 x turnaround_ns /
// mixed_batch_bytes, whatever the read:write mix (the card moves one read per
// write and two per write at the same rate). How mixed a channel is comes
// from its recent bytes of each direction (decaying over mixed_window_ns): a
// minority share of mixed_full_share or more is fully mixed, less carries
// proportionally less (a matmul's sparse output writes barely slow its
// reads), and a read-only or write-only stream carries none.
// Back-pressure: a channel queues at most queue_depth_chunks chunks; a
// request that would exceed that waits in b_transport until there is room, so
// requests enter the channels in time order, as a bounded controller queue
// forces them to.
// Accesses: every request (a DMA request, or a contiguous piece the cache
// fills, writes back or writes around it) costs access_ns of channel time
// besides its bytes, which move at the rate left once a dma.request_bytes
// access meets read_gbps / write_gbps (never above peak_gbps): long streams
// run at the sustained rates, short runs pay the access once per run (a core
// reading 256 bytes per weight row moves them at a third of the rate).
// Read-after-write: a read of bytes the cores wrote (rather than the host
// uploaded) costs raw_read_extra more channel time per byte, and a run of
// such a read raw_run_ns more on its first chunk's channel. The card moves a
// chain of dependent adds 13-43% slower per add than the same bytes without
// the dependency (calibration/add_bcast_sweep_records.csv, add_indep2); the
// cause is not known, the two values are fitted (docs/calibration.md).
// Timing is otherwise annotated on the b_transport delay (approximately
// timed: resource reservation, one call per DMA request).

#include <cstdint>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "runtime/arch_config.h"
#include "sim/hw/address_ranges.h"
#include "sim/hw/hardware_block.h"

namespace spyre::sim {

class Lpddr5 : public sc_core::sc_module, public HardwareBlock {
 public:
  tlm_utils::multi_passthrough_target_socket<Lpddr5> socket;

  Lpddr5(sc_core::sc_module_name name, const ArchConfig& arch);

  struct Stats {
    int64_t read_bytes = 0, write_bytes = 0;
    int64_t raw_read_bytes = 0;  // reads of bytes the cores wrote
    double turnarounds = 0;      // mixed batches served (x2 bus turnarounds)
    std::vector<double> channel_busy_ns;
  };
  const Stats& stats() const { return stats_; }
  // read_bytes, write_bytes, raw_read_bytes, turnarounds, channels, channel_busy_ns (summed over channels)
  Counters counters() const override;
  size_t channel_of(int64_t address) const;  // which channel serves this byte

 private:
  // Channel time per byte of an access, given the sustained rate a
  // dma.request_bytes access must reach with its access_ns.
  static double bytes_ns_per_byte(const ArchConfig& arch, double sustained_gbps);
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  // Untimed access (host uploads and downloads): nothing to account; an
  // upload's bytes are the host's, no longer written by the cores.
  unsigned int transport_dbg(int initiator, tlm::tlm_generic_payload& payload);

  struct Channel {
    double free_at_ns = 0;
    double recent_read = 0, recent_write = 0;  // bytes, decayed to recent_at_ns
    double recent_at_ns = 0;
  };
  std::vector<Channel> channels_;
  double read_ns_per_byte_, write_ns_per_byte_;
  double turnaround_ns_per_byte_;  // in mixed mode
  double mixed_window_ns_;         // time constant of a channel's recent traffic
  double mixed_full_share_;        // the minority direction's share that makes traffic fully mixed
  double queue_ns_;                // backlog a channel accepts
  double latency_ns_;
  double write_ack_ns_;  // < 0: writes complete like reads
  double access_ns_;     // per request, on top of its bytes
  double raw_read_extra_, raw_run_ns_;
  AddressRanges written_;  // bytes the cores have written since the host last uploaded them
  int64_t interleave_, mixed_batch_;
  Stats stats_;
};

}  // namespace spyre::sim
