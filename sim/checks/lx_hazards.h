#pragma once
// LX hazards, in launch order, per core. A value is what one SDSC wrote to a
// range of a core's LX; reads are attributed to the latest earlier write of
// exactly their range, which makes each value live until its last reader.
//   lx_uninitialized_read  reads bytes no earlier SDSC wrote on that core;
//   lx_stale_read          reads bytes another tensor overwrote since (or a
//                          range that matches no written tensor);
//   lx_partial_overlap     writes over bytes of an operand the same SDSC
//                          reads, other than exactly in place (a streaming
//                          write overtakes unread input: torch-spyre #3222);
//   lx_overlap             writes over a value a later SDSC still reads (in
//                          place is legal: the parent's last read is the
//                          writer itself);
//   core_div_mismatch      a core reads LX data written for another slice of
//                          the tensor than the one it works on;
//   lx_wiped_read          (wipe_at_bundles, run --vf) reads a value an
//                          earlier bundle wrote.

#include <vector>

#include "runtime/hazard.h"
#include "runtime/program.h"

namespace spyre::sim {

// kernel_start_us gives each kernel's simulated start, for the report.
std::vector<Hazard> find_lx_hazards(const Program& program, int64_t lx_bytes,
                                    const std::vector<double>& kernel_start_us, bool wipe_at_bundles = false);

}  // namespace spyre::sim
