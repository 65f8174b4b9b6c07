#pragma once
// Compiling one matmul or batched matmul shape with a core split
// (compiler/split/matmul_split.h): what `validate`, `study splits` and the
// simulated split cost all run.

#include <cstdint>
#include <string>

#include "compiler/split/matmul_split.h"
#include "runtime/program.h"

namespace spyre::studies {

using compiler::matmul_split_candidates;
using compiler::MatmulShape;
using compiler::MatmulSplit;

// Compiles the shape (fp16, the `matmul` or `bmm` workload) with the split,
// or with the compiler's own work division on `cores` cores when `split` is
// null, and writes the program to `dir`. Returns the split the compiled
// batchmatmul uses.
MatmulSplit compile_matmul(const MatmulShape& shape, const MatmulSplit* split, int64_t cores,
                           const DeviceLimits& device, const std::string& dir);

}  // namespace spyre::studies
