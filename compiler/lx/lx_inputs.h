#pragma once
// Reading LX planning problems for `spyre-sim plan`:
//   - a pattern JSON: {"capacity", "alignment", "tensors": [{"name", "size",
//     "kind": input|output|intermediate}], "ops": [{"name", "inputs", "outputs",
//     "in_place"}]}: intermediates are planned, one buffer per value (a tensor
//     written twice has two); graph inputs and outputs stay in HBM; "in_place"
//     lets an op's output take over an input it reads for the last time;
//   - a buffer list JSON (torch-spyre's LifetimeBoundBuffer): {"capacity",
//     "alignment", "buffers": [{"name", "size", "uses", "first_use_is_read",
//     "in_place_parents"}]};
//   - a MiniMalloc CSV "id,lower,upper,size", the capacity from --capacity or
//     the file name (NAME.CAPACITY.csv).
// Errors name the file, the field and the reason.

#include <cstdint>
#include <string>

#include "compiler/lx/lx_problem.h"

namespace spyre::compiler {

// capacity / alignment > 0 override what the file says.
LxProblem read_lx_problem(const std::string& path, int64_t capacity, int64_t alignment);

}  // namespace spyre::compiler
