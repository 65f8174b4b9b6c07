#include "sim/report/card_report.h"
#include "sim/report/chrome_trace.h"

namespace spyre::sim {

namespace {

struct TraceProcess {
  std::string name;
  std::vector<Activity> threads;
};

// Walks the module tree: a block naming a trace group opens a process for
// itself and the blocks below it; others add their engines to the process
// above them.
void collect(const sc_core::sc_object& object, size_t process, std::vector<TraceProcess>& out) {
  if (const auto* block = dynamic_cast<const HardwareBlock*>(&object)) {
    if (!block->trace_group().empty()) {
      process = out.size();
      out.push_back({block->trace_group(), {}});
    }
    for (const Activity& a : block->activities()) out[process].threads.push_back(a);
  }
  for (const sc_core::sc_object* child : object.get_child_objects()) collect(*child, process, out);
}

bool has_events(const TraceProcess& p) {
  for (const auto& t : p.threads) {
    if (!t.log->intervals().empty()) return true;
  }
  return false;
}

}  // namespace

Json build_trace(const Card& card) {
  std::vector<TraceProcess> processes;
  collect(card, 0, processes);
  ChromeTrace trace;
  // pid = the process's place in the tree (the card 0, core N at N + 1); a
  // process without events is left out, except the card's.
  for (size_t pid = 0; pid < processes.size(); ++pid) {
    const TraceProcess& p = processes[pid];
    if (pid > 0 && !has_events(p)) continue;
    trace.add_process(static_cast<int>(pid), p.name);
    for (size_t t = 0; t < p.threads.size(); ++t) {
      const int tid = static_cast<int>(t) + 1;
      trace.add_thread(static_cast<int>(pid), tid, p.threads[t].name);
      trace.add_events(static_cast<int>(pid), tid, p.threads[t].log->intervals());
    }
  }
  return trace.to_json();
}

}  // namespace spyre::sim
