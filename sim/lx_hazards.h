#pragma once
// LX hazards visible from the program alone, in launch order: an SDSC that
// reads LX bytes no earlier SDSC of the program wrote on that core.

#include <vector>

#include "runtime/hazard.h"
#include "runtime/program.h"

namespace spyre::sim {

// kernel_start_us gives each kernel's simulated start, for the report.
std::vector<Hazard> find_lx_hazards(const Program& program, int64_t lx_bytes, const std::vector<double>& kernel_start_us);

}  // namespace spyre::sim
