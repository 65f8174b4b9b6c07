#pragma once
// The report and the trace of one simulated run, read off the card's modules
// after sc_start() returns.

#include <vector>

#include "runtime/arch_config.h"
#include "runtime/program.h"
#include "sim/hw/card.h"
#include "sim/report/run_report.h"
#include "sim/schedule/kernel_plan.h"

namespace spyre::sim {

// functional: values were computed; vf: LX was wiped at bundle boundaries.
// hazards: every hazard found, in report order.
RunReport build_report(const Program& program, const ArchConfig& arch, const std::vector<KernelWork>& plans, const Card& card, bool functional,
                       bool vf, std::vector<Hazard> hazards);

// Chrome trace events: kernels and the host link on the card, every active
// core's engines, the rings' busy links.
Json build_trace(const Program& program, const Card& card);

}  // namespace spyre::sim
