#pragma once
// What every hardware block of the card reports about itself. A block keeps
// its own statistics — busy intervals of its engines and cumulative counters
// — and exposes them here, so the report and the trace walk the module
// hierarchy instead of knowing each block's internals, and a block swapped
// for another model is reported without changing them.

#include <map>
#include <string>
#include <vector>

#include <systemc>

#include "sim/hw/busy_log.h"
#include "sim/hw/statistics.h"

namespace spyre::sim {

// One engine's busy intervals.
struct Activity {
  std::string kind;  // what the engine is, for summaries: "pt", "sfu", "dma_in", "dma_out", "link", "host_link"
  std::string name;  // how the trace names it: "corelet 0 PT", "link 3->4", ...
  const BusyLog* log = nullptr;
};

class HardwareBlock {
 public:
  virtual ~HardwareBlock() = default;
  virtual std::vector<Activity> activities() const { return {}; }
  virtual Counters counters() const { return {}; }
  // Non-empty: the trace draws this block and the blocks below it as one
  // process of this name ("core 3", "data ring"); otherwise its activities
  // join the process of the block above.
  virtual std::string trace_group() const { return ""; }
};

// The hardware blocks at and below `top`, in elaboration order (parents first).
std::vector<const HardwareBlock*> blocks_under(const sc_core::sc_object& top);
// The SystemC name of a block ("card.core3.dma_in").
std::string block_name(const HardwareBlock& block);

}  // namespace spyre::sim
