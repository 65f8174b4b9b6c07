#pragma once
// The inter-core rings: a bidirectional ring over all cores, each link moving
// bytes_per_cycle bytes per cycle in each direction. Transfers are cut-through:
// a message occupies every link of its path for bytes/bandwidth and arrives
// hop_latency later per hop. The same module models the data ring (SHUFFLE
// transfers, core to core) and the reduce-sum ring (partial results combined
// as they pass each core of a group).

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "sim/hw/busy_log.h"

namespace spyre::sim {

class Ring : public sc_core::sc_module {
 public:
  Ring(sc_core::sc_module_name name, int cores, int bytes_per_cycle, double hop_latency_cycles, double cycle_ns);

  // Core to core along the shorter direction; returns the arrival time.
  double send(int src, int dst, int64_t bytes, double earliest_ns, const std::string& label);
  // Reduce-sum over a group (cores ascending): partials flow clockwise from
  // the first to the last core, adding at each, then the result flows back to
  // every member. Returns the time all members hold it.
  double reduce(const std::vector<int>& cores, int64_t bytes, double earliest_ns, const std::string& label);

  int64_t bytes_moved() const { return bytes_; }
  double busiest_link_ns() const;
  // Links that carried traffic, named "3->4", with their busy intervals.
  std::vector<std::pair<std::string, const BusyLog*>> active_links() const;

 private:
  struct Link {
    double free_at_ns = 0;
    BusyLog log;
  };
  // Occupies the links from src, `hops` steps in one direction; returns arrival.
  double traverse(int src, int hops, bool clockwise, int64_t bytes, double earliest_ns, const std::string& label);

  int cores_;
  double ns_per_byte_, hop_ns_;
  std::vector<Link> clockwise_, counter_;
  int64_t bytes_ = 0;
};

}  // namespace spyre::sim
