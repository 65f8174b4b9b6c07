#pragma once
// Busy intervals of one engine (a DMA engine, a corelet's PT array or SFU, a
// ring link, the host link): the source of busy percentages and of trace
// events. Intervals of one log never overlap: each engine does one thing at a
// time.

#include <algorithm>
#include <string>
#include <vector>

#include <systemc>

namespace spyre::sim {

// SystemC time resolves to 1 ps (its default, never changed: see
// begin_systemc_context); differences below that are "now". Times convert to
// and from integer picoseconds directly: the kernel's unit conversions were a
// tenth of a long simulation's run time.
constexpr double kTimeResolutionNs = 0.001;
constexpr double kPsPerNs = 1000.0;
inline double now_ns() { return static_cast<double>(sc_core::sc_time_stamp().value()) / kPsPerNs; }
inline sc_core::sc_time ns(double value) {
  return value > 0 ? sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(value * kPsPerNs + 0.5))
                   : sc_core::SC_ZERO_TIME;
}

// Waits until an absolute time (no-op if it has passed). Thread processes only.
inline void wait_until_ns(double t) {
  const double d = t - now_ns();
  if (d >= kTimeResolutionNs) sc_core::wait(ns(d));
}

struct BusyInterval {
  double start_ns = 0, end_ns = 0;
  std::string label;
};

class BusyLog {
 public:
  // Adds [start, end); clips the start to the previous end so intervals never overlap.
  void add(double start_ns, double end_ns, std::string label) {
    if (!intervals_.empty() && start_ns < intervals_.back().end_ns) start_ns = intervals_.back().end_ns;
    if (end_ns <= start_ns) return;
    busy_ns_ += end_ns - start_ns;
    intervals_.push_back({start_ns, end_ns, std::move(label)});
  }
  double busy_ns() const { return busy_ns_; }
  // Busy time within [from, to).
  double busy_between(double from, double to) const {
    double busy = 0;
    for (const auto& i : intervals_) busy += std::max(0.0, std::min(i.end_ns, to) - std::max(i.start_ns, from));
    return busy;
  }
  const std::vector<BusyInterval>& intervals() const { return intervals_; }

 private:
  std::vector<BusyInterval> intervals_;
  double busy_ns_ = 0;
};

}  // namespace spyre::sim
