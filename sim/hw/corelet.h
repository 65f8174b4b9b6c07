#pragma once
// One corelet: an 8x8 PT (processing tile) array for batchmatmul and a 1D SFU
// vector unit for everything else. Each engine does one thing at a time; the
// core gives both corelets half of every tile, so they run side by side.

#include <string>

#include <systemc>

#include "runtime/arch_config.h"
#include "sim/hw/busy_log.h"
#include "sim/hw/hardware_block.h"
#include "sim/hw/interfaces.h"

namespace spyre::sim {

class Corelet : public sc_core::sc_module, public HardwareBlock, public ComputeIf {
 public:
  sc_core::sc_export<ComputeIf> compute;

  // index: the corelet's number within its core, for the trace.
  Corelet(sc_core::sc_module_name name, int index, const ArchConfig& arch);

  double execute(Engine engine, double earliest_ns, double cycles, const std::string& label) override;

  const BusyLog& log(Engine engine) const { return engine == Engine::Pt ? pt_ : sfu_; }
  std::vector<Activity> activities() const override;  // "corelet N PT", "corelet N SFU"
  Counters counters() const override;                 // pt_busy_ns, sfu_busy_ns

 private:
  int index_;
  double cycle_ns_;
  double pt_free_ns_ = 0, sfu_free_ns_ = 0;
  BusyLog pt_, sfu_;
};

}  // namespace spyre::sim
