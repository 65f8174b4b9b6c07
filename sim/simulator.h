#pragma once
// Runs a program on a fresh SystemC model of the card and reports what
// happened. With a DeviceMemory the run is functional (values computed and
// left in memory); without, it is timing only, on the same schedule.

#include "runtime/arch_config.h"
#include "runtime/device_memory.h"
#include "runtime/program.h"
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
// warmup: iterations of the program timed before the measured one.
SimulationResult simulate(const Program& program, const ArchConfig& arch, DeviceMemory* memory, bool with_trace,
                          bool wipe_lx_at_bundles = false, int warmup = 0);

}  // namespace spyre::sim
