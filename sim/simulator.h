#pragma once
// Runs a program on a fresh SystemC model of the card and reports what
// happened. With a DeviceMemory the run is functional (values computed and
// left in memory); without, it is timing only, on the same schedule.

#include "runtime/arch_config.h"
#include "runtime/device_memory.h"
#include "runtime/program.h"
#include "sim/hw/measurement_protocol.h"
#include "sim/report/run_report.h"

namespace spyre::sim {

struct SimulationResult {
  RunReport report;
  Json trace;  // Chrome trace events; null unless requested
};

struct SimulateOptions {
  bool trace = false;  // build the Chrome trace
  // run --vf: LX does not survive a bundle boundary, as under VF
  // multi-tenancy; values read across one are zeros and reported.
  bool wipe_lx_at_bundles = false;
  MeasurementProtocol protocol;  // runs before the measured one, and between them
  // A tensor-parallel program (Program::cards > 1) computes values on every
  // card: `memory` is card 0's, these are cards 1 .. N-1's. The card model
  // times card 0; the others run the same schedule on their own parts.
  std::vector<DeviceMemory*> other_cards = {};
  // run --sample-repeats: a kernel whose plan was simulated this many times
  // already takes the last one's timing (sim/schedule/kernel_twins.h); 0:
  // every kernel simulated. Values are computed for every kernel either way.
  int sample_repeats = 0;
};

// Each call builds its own SystemC kernel context, so one process can run
// many simulations (tests, sweeps).
SimulationResult simulate(const Program& program, const ArchConfig& arch, DeviceMemory* memory,
                          const SimulateOptions& options = {});

}  // namespace spyre::sim
