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
};

// Each call builds its own SystemC kernel context, so one process can run
// many simulations (tests, sweeps).
SimulationResult simulate(const Program& program, const ArchConfig& arch, DeviceMemory* memory,
                          const SimulateOptions& options = {});

}  // namespace spyre::sim
