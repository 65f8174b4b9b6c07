#pragma once
// Runs a program on a fresh SystemC model of the card and reports what
// happened. With a DeviceMemory the run is functional (values computed and
// left in memory); without, it is timing only, on the same schedule.

#include "runtime/arch_config.h"
#include "runtime/device_memory.h"
#include "runtime/program.h"
#include "sim/hw/between_runs.h"
#include "sim/report/run_report.h"

namespace spyre::sim {

struct SimulationResult {
  RunReport report;
  Json trace;  // Chrome trace events; null unless requested
};

// Each call builds its own SystemC kernel context, so one process can run
// many simulations (tests, sweeps).
// wipe_lx_at_bundles (run --vf): LX does not survive a bundle boundary, as
// under VF multi-tenancy; values read across one are zeros and reported.
// warmup: iterations of the program timed before the measured one; between:
// what the card does between them (between_runs.h).
SimulationResult simulate(const Program& program, const ArchConfig& arch, DeviceMemory* memory, bool with_trace,
                          bool wipe_lx_at_bundles = false, int warmup = 0,
                          BetweenRuns between = BetweenRuns::kBackToBack);

}  // namespace spyre::sim
