#pragma once
// A core split of one batchmatmul, as torch-spyre's measured splits name
// them: slices of the batch, rows (M), columns (N) and the reduction (K),
// "b_m_n_k" (splits.csv's split_b..split_k), and the legal ones for a shape.
// What a search asks of a card model to rank them: split_cost.h.

#include <cstdint>
#include <string>
#include <vector>

namespace spyre::compiler {

struct MatmulShape {
  int64_t b = 1, m = 1, k = 1, n = 1;  // c[b] = a[b] (m x k) @ w[b] (k x n), fp16
  bool batched() const { return b > 1; }
  std::string text() const;  // "1x512x4096x4096" (B x M x N x K, splits.csv's order)
};

struct MatmulSplit {
  int64_t b = 1, m = 1, n = 1, k = 1;
  int64_t cores() const { return b * m * n * k; }
  std::string text() const;  // "1_4_8_1"
  bool operator==(const MatmulSplit&) const = default;
};

// Every legal split of the shape on at most `max_cores` cores: each part a
// divisor of its dim (any divisor, not only powers of two), N in 64-element
// sticks (the last one padded if partial), K in whole sticks (a K ending in a
// partial stick is not split); fewest cores first, then b, m, n, k.
std::vector<MatmulSplit> matmul_split_candidates(const MatmulShape& shape, int64_t max_cores);

}  // namespace spyre::compiler
