#pragma once
// Where each LX input is when its SDSC starts. torch-spyre keeps a tensor in
// LX between SDSCs that divide it over the cores differently (Granite sdpa:
// the RoPE table written by a 1-core copy and read by 32-core muls; K written
// by head and read by position), and the backend moves the parts between
// cores before the consumer runs. The bytes are where their writer left them:
// the latest earlier SDSC that wrote the same tensor (the same bytes, its dims
// possibly named, merged or split otherwise) at the same LX address. Without
// such a writer in the program, the allocation's own coreIdToWkSlice_ (read
// while binding) says where they are.
//
// Hazards, each naming the cores:
//   core_div_mismatch      the consumer's allocation does not ask for the
//                          move (no coreIdToWkSlice_): read as written, each
//                          core would compute on bytes meant for another
//                          slice; the simulator moves them, as the backend
//                          must for the kernel to compute what it states;
//   lx_relayout_annotation the allocation's coreIdToWkSlice_ places the parts
//                          otherwise than their writer left them; the writer
//                          is followed.

#include <vector>

#include "runtime/hazard.h"
#include "runtime/program.h"

namespace spyre {

// Walks the kernels in launch order and sets each LX input's holding
// (TensorBinding::relayout, held).
std::vector<Hazard> locate_lx_inputs(Program& program);

}  // namespace spyre
