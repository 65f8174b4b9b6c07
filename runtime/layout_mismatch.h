#pragma once
// Layout mismatches: an SDSC that reads bytes as a layout other than the one
// they were written with sees a permutation of the tensor. That is harmless
// when the SDSC is elementwise over operands that are all permuted alike (it
// computes position by position, so its output is permuted the same way and
// means what the writer's layout says), and a real hazard otherwise. Found in
// program order, following what the bytes of each HBM tensor and LX range mean.

#include <vector>

#include "runtime/hazard.h"
#include "runtime/program.h"

namespace spyre {

// Walks the kernels in launch order. Host tensors the program writes before
// reading take the layout their final bytes mean (what the host downloads).
std::vector<Hazard> settle_layout_meanings(Program& program);

}  // namespace spyre
