#pragma once
// LPDDR5 device memory shared by all cores, as a TLM-2.0 target (so a
// cycle-level DRAM model such as DRAMSys could replace it). Each request is
// cut into interleave-sized chunks spread over the channels; a channel serves
// chunks in arrival order at its sustained rate (read_gbps or write_gbps
// divided by the channel count), pays lpddr5.turnaround_ns whenever it
// switches between reading and writing, and the request completes latency_ns
// after its last chunk. Timing is annotated on the b_transport delay
// (approximately timed: resource reservation, one call per DMA request).

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "sim/arch_config.h"

namespace spyre::sim {

class Lpddr5 : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Lpddr5> socket;

  Lpddr5(sc_core::sc_module_name name, const ArchConfig& arch);

  struct Stats {
    int64_t read_bytes = 0, write_bytes = 0;
    int64_t turnarounds = 0;
    std::vector<double> channel_busy_ns;
  };
  const Stats& stats() const { return stats_; }

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  struct Channel {
    double free_at_ns = 0;
    bool last_was_write = false;
    bool used = false;
  };
  std::vector<Channel> channels_;
  double read_ns_per_byte_, write_ns_per_byte_;
  double turnaround_ns_, latency_ns_;
  int64_t interleave_;
  Stats stats_;
};

}  // namespace spyre::sim
