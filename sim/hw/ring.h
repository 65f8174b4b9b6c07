#pragma once
// The inter-core rings: a bidirectional ring over all cores, each link moving
// bytes_per_cycle bytes per cycle in each direction. Transfers are cut-through:
// a message occupies every link of its path for bytes/bandwidth and arrives
// hop_latency later per hop. The same module models the data ring (SHUFFLE
// transfers, core to core) and the reduce-sum ring (partial results combined
// as they pass each core of a group).
//
// A transfer is a TLM payload of its bytes with a RingRoute extension (src ->
// dst, or a group to reduce over) and an ActivityLabel; the delay returned is
// its arrival (for a reduce-sum: when every member holds the result).

#include <cstdint>
#include <string>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "sim/hw/busy_log.h"
#include "sim/hw/hardware_block.h"

namespace spyre::sim {

class Ring : public sc_core::sc_module, public HardwareBlock {
 public:
  tlm_utils::multi_passthrough_target_socket<Ring> socket;

  // display_name: how reports and traces name it ("data ring").
  Ring(sc_core::sc_module_name name, std::string display_name, int cores, int bytes_per_cycle,
       double hop_latency_cycles, double cycle_ns);

  std::vector<Activity> activities() const override;  // the links that carried traffic, "3->4"
  Counters counters() const override;                 // bytes_x_hops: bytes times the links they crossed
  std::string trace_group() const override { return display_name_; }

 private:
  struct Link {
    double free_at_ns = 0;
    BusyLog log;
  };
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  // Core to core along the shorter direction; returns the arrival time.
  double send(int src, int dst, int64_t bytes, double earliest_ns, const std::string& label);
  // Reduce-sum over a group (cores ascending): partials flow clockwise from
  // the first to the last core, adding at each, then the result flows back to
  // every member. Returns the time all members hold it.
  double reduce(const std::vector<int>& cores, int64_t bytes, double earliest_ns, const std::string& label);
  // Occupies the links from src, `hops` steps in one direction; returns arrival.
  double traverse(int src, int hops, bool clockwise, int64_t bytes, double earliest_ns, const std::string& label);

  std::string display_name_;
  int cores_;
  double ns_per_byte_, hop_ns_;
  std::vector<Link> clockwise_, counter_;
  int64_t bytes_ = 0;
};

}  // namespace spyre::sim
