#pragma once
// Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing):
// one process per core (plus the card, LPDDR5 and the rings), one thread per
// engine, complete ("X") events in microseconds.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/json_node.h"
#include "sim/hw/busy_log.h"

namespace spyre::sim {

class ChromeTrace {
 public:
  void add_process(int pid, const std::string& name);
  void add_thread(int pid, int tid, const std::string& name);
  void add_events(int pid, int tid, const std::vector<BusyInterval>& intervals);
  Json to_json() const;

 private:
  Json metadata_ = Json::array();
  Json events_ = Json::array();
};

}  // namespace spyre::sim
