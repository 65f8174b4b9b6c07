#pragma once
// A core split of one batchmatmul, as torch-spyre's measured splits name
// them: slices of the batch, rows (M), columns (N) and the reduction (K),
// "b_m_n_k" (splits.csv's split_b..split_k); the legal ones for a shape; and
// what a work-division search asks of a card model to rank them. The
// compiler never runs a card model itself (docs/architecture.md): the CLI
// gives it one (studies/split_cost_sim.h) with --work-division model.

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
// divisor of its dim (any divisor, not only powers of two), N and K in whole
// 64-element sticks; fewest cores first, then b, m, n, k.
std::vector<MatmulSplit> matmul_split_candidates(const MatmulShape& shape, int64_t max_cores);

// What a card model says of one split: its kernel device time, or only a
// lower bound on it when the bound already exceeds a split it timed (the
// split cannot win, so it was not simulated); +infinity when it cannot run.
struct SplitTime {
  double kernel_us = 0;
  bool lower_bound = false;
  double bound_us = 0;  // the model's lower bound (0: none), what the search ordered and pruned by
};

// Splits whose times differ by less than this fraction are ties: the measured
// kernels repeat within ~1% on a pod (calibration/granite_matmul/README.md),
// so a finer difference is one no measurement could confirm.
constexpr double kSplitTimeTolerance = 0.01;

// A card model that times matmul splits.
class SplitCostModel {
 public:
  virtual ~SplitCostModel() = default;
  // One time per split, in order. Every split that could be the fastest or
  // tie with it is timed exactly: a lower bound is returned only where it is
  // more than kSplitTimeTolerance above an exact time.
  virtual std::vector<SplitTime> matmul_kernel_us(const MatmulShape& shape, const std::vector<MatmulSplit>& splits) = 0;
  // The rate at which the card moves HBM bytes an op could have kept in LX
  // (one write and one read back), in GB/s: LX chain scoring prices the
  // graph's HBM traffic with it.
  virtual double hbm_gbps() const = 0;
};

// The split a search takes from the times: the fastest, unless splits that
// tie with it (within kSplitTimeTolerance) use more cores: then the fastest of
// those with the most cores (a split that leaves cores idle must win by more
// than the model resolves). Indices into splits; splits.size() when none was
// timed exactly.
struct SplitPick {
  size_t pick = 0, fastest = 0;
};
SplitPick pick_split(const std::vector<MatmulSplit>& splits, const std::vector<SplitTime>& times);

}  // namespace spyre::compiler
