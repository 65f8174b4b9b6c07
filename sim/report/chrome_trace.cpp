#include "sim/report/chrome_trace.h"

#include <cmath>

namespace spyre::sim {

namespace {
// Microseconds with nanosecond resolution, fixed so traces diff cleanly.
double us(double ns) { return std::round(ns) / 1000.0; }
}  // namespace

void ChromeTrace::add_process(int pid, const std::string& name) {
  metadata_.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
  metadata_.push_back(
      {{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
}

void ChromeTrace::add_thread(int pid, int tid, const std::string& name) {
  metadata_.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  metadata_.push_back(
      {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
}

void ChromeTrace::add_events(int pid, int tid, const std::vector<BusyInterval>& intervals) {
  for (const auto& i : intervals) {
    const double start = us(i.start_ns);
    const double dur = us(i.end_ns) - start;
    if (dur <= 0) continue;
    events_.push_back({{"name", i.label}, {"ph", "X"}, {"pid", pid}, {"tid", tid}, {"ts", start}, {"dur", dur}});
  }
}

Json ChromeTrace::to_json() const {
  Json all = metadata_;
  for (const auto& e : events_) all.push_back(e);
  return {{"traceEvents", all}, {"displayTimeUnit", "ns"}, {"otherData", {{"generator", "spyre-sim"}}}};
}

}  // namespace spyre::sim
