#pragma once
// The report and the trace of one simulated run, read off the card's
// hardware blocks (sim/hw/hardware_block.h) after sc_start() returns.

#include <vector>

#include "runtime/arch_config.h"
#include "runtime/program.h"
#include "sim/hw/card.h"
#include "sim/report/run_report.h"
#include "sim/schedule/kernel_plan.h"

namespace spyre::sim {

// functional: values were computed; vf: LX was wiped at bundle boundaries.
// hazards: every hazard found, in report order. Every figure is the measured
// iteration's (after the card's warm-up iterations).
RunReport build_report(const Program& program, const ArchConfig& arch, const std::vector<KernelWork>& plans,
                       const Card& card, bool functional, bool vf, std::vector<Hazard> hazards);

// Chrome trace events: one process per block that names a trace group (the
// card, each active core, each ring that carried traffic), one thread per
// engine of the blocks in it.
Json build_trace(const Card& card);

}  // namespace spyre::sim
