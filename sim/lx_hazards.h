#pragma once
// LX hazards visible from the program alone, in launch order: an SDSC that
// reads LX bytes no earlier SDSC of the program wrote on that core
// (lx_uninitialized_read), and with wipe_at_bundles (run --vf) one that reads
// LX bytes an earlier bundle wrote, gone when LX is wiped at every bundle
// boundary (lx_wiped_read).

#include <vector>

#include "runtime/hazard.h"
#include "runtime/program.h"

namespace spyre::sim {

// kernel_start_us gives each kernel's simulated start, for the report.
std::vector<Hazard> find_lx_hazards(const Program& program, int64_t lx_bytes, const std::vector<double>& kernel_start_us, bool wipe_at_bundles = false);

}  // namespace spyre::sim
