#pragma once
// Every hazard of a bound program, in the order reports list them: those the
// binder found (layout_mismatch, hbm_overlap, lx_reserved_region), the static
// checks (program_checks.h) and the LX value checks (lx_hazards.h).
// docs/hazards.md says what each kind means.

#include <vector>

#include "runtime/arch_config.h"
#include "runtime/hazard.h"
#include "runtime/program.h"

namespace spyre::sim {

// kernel_start_us: each kernel's start, relative to the first launch, for the
// time of dynamic findings; vf: LX is wiped at bundle boundaries.
std::vector<Hazard> find_hazards(const Program& program, const ArchConfig& arch,
                                 const std::vector<double>& kernel_start_us, bool vf);

}  // namespace spyre::sim
