#pragma once
// Static checks of a bound program — what the SDSC JSON and the binding say,
// before any timing (`spyre-sim check`, and every `run`):
//   span            a core's HBM bytes of one tensor spread over more than the
//                   span limit (256 MiB) (bytes past the argument segment's end
//                   are rejected by the binder);
//   work_division   a core's slice of a stick dim that is not whole sticks.
// (Work division that is inconsistent — numCoresUsed_ against the slices, a
// slice covered twice or out of range, more cores than the card has — and a
// tensor running past its argument segment are rejected by the SDSC reader
// and the binder with one error line.)
//   hbm_read_before_write  an SDSC reads an output or intermediate buffer no
//                   earlier SDSC of the program wrote.
// LX hazards are in sim/lx_hazards.h; binding finds layout_mismatch,
// hbm_overlap and lx_reserved_region.

#include <vector>

#include "runtime/hazard.h"
#include "runtime/program.h"

namespace spyre::sim {

std::vector<Hazard> check_program(const Program& program, const DeviceLimits& limits);

}  // namespace spyre::sim
