#pragma once
// One corelet: an 8x8 PT (processing tile) array for batchmatmul and a 1D SFU
// vector unit for everything else. Each engine does one thing at a time; the
// core gives both corelets half of every tile, so they run side by side.

#include <string>

#include <systemc>

#include "runtime/arch_config.h"
#include "sim/hw/busy_log.h"

namespace spyre::sim {

enum class Engine { Pt, Sfu };

class Corelet : public sc_core::sc_module {
 public:
  Corelet(sc_core::sc_module_name name, const ArchConfig& arch);

  // Occupies an engine for `cycles` cycles starting no earlier than
  // `earliest_ns`; returns when it is done.
  double run(Engine engine, double earliest_ns, double cycles, const std::string& label);

  const BusyLog& log(Engine engine) const { return engine == Engine::Pt ? pt_ : sfu_; }

 private:
  double cycle_ns_;
  double pt_free_ns_ = 0, sfu_free_ns_ = 0;
  BusyLog pt_, sfu_;
};

}  // namespace spyre::sim
