#pragma once
// Physical invariants of a simulated run, checked on every report: no
// resource served above its peak rate over the measured window, and no more
// bytes served than were fetched. A violation is a defect of the model (a
// timing shortcut that let a block go faster than its hardware can), never of
// the input, so the run reports it rather than hiding it.

#include <vector>

#include "runtime/arch_config.h"
#include "sim/report/run_report.h"

namespace spyre::sim {

// The checks of one report: its blocks' counters and kernels against the arch's peaks.
std::vector<InvariantCheck> physical_invariants(const RunReport& report, const ArchConfig& arch);

}  // namespace spyre::sim
