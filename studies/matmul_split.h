#pragma once
// A core split of one matmul or batched matmul, as torch-spyre's measured
// splits name them: slices of the batch, rows (M), columns (N) and the
// reduction (K), "b_m_n_k" (splits.csv's split_b..split_k). Compiling a
// shape with a split is what `validate` and `study splits` both run.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph.h"
#include "runtime/program.h"

namespace spyre::studies {

struct MatmulShape {
  int64_t b = 1, m = 1, k = 1, n = 1;  // c[b] = a[b] (m x k) @ w[b] (k x n)
  bool batched() const { return b > 1; }
  std::string text() const;  // "1x512x4096x4096" (B x M x N x K, splits.csv's order)
};

struct MatmulSplit {
  int64_t b = 1, m = 1, n = 1, k = 1;
  int64_t cores() const { return b * m * n * k; }
  std::string text() const;  // "1_4_8_1"
};

// Every legal split of the shape on at most `max_cores` cores: each part a
// divisor of its dim (any divisor, not only powers of two), N and K in whole
// 64-element sticks; fewest cores first, then b, m, n, k.
std::vector<MatmulSplit> matmul_split_candidates(const MatmulShape& shape, int64_t max_cores);

// Compiles the shape (fp16, the `matmul` or `bmm` workload) with the split,
// or with the compiler's own work division on `cores` cores when `split` is
// null, and writes the program to `dir`. Returns the split the compiled
// batchmatmul uses.
MatmulSplit compile_matmul(const MatmulShape& shape, const MatmulSplit* split, int64_t cores,
                           const DeviceLimits& device, const std::string& dir);

}  // namespace spyre::studies
