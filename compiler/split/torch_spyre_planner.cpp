#include "compiler/split/torch_spyre_planner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace spyre::compiler {

namespace {

// torch-spyre's constants (work_division.py), each an AIU limit or a fit of
// its own to measured kernels.
constexpr double kPtRows = 8;            // PT block rows per corelet
constexpr double kTargetPtPasses = 5;    // passes of kPtRows that fill the PT pipeline
constexpr double kTargetMTiePasses = 4;  // M lanes that keep the stationary weights fed
constexpr double kPtEfficiencyExponent = 0.25;
constexpr double kMinM = kPtRows / 2;  // below half a pass an M split buys nothing
constexpr double kPeakMacsPerUsPerCore = 98.304e12 / 2 / 32 / 1e6;
constexpr double kHbmGbps = 204.8;  // LPDDR5 peak
constexpr double kDtypeBytes = 2;
constexpr double kPsumUsPerElementShared = 1.0e-3;
constexpr double kPsumUsPerElementBmm = 1.0e-4;
constexpr double kCohortLimit = 8;  // cores sharing a broadcast before it contends
constexpr double kCohortPenaltyExponent = 0.75;
constexpr double kMLaneUnderusePenaltyUs = 10;
constexpr double kMTileUnderfillTarget = 16;
constexpr double kMTileUnderfillPenaltyUs = 30;
constexpr double kTargetNTileElements = 512;
constexpr double kWideNTilePenaltyUs = 25;
constexpr double kCoreUnderusePenaltyUs = 150;
constexpr double kBmmBatchSplitPenaltyUs = 10;
constexpr double kLargeMTileShapePenaltyUs = 20;
constexpr double kSharedDownNSplitPenaltyUs = 10;
constexpr double kSharedNarrowOutputRef = kTargetNTileElements * kCohortLimit;
constexpr double kSharedNTileTarget = kTargetNTileElements / 4;

double log2_at_least_0(double x) { return std::max(0.0, std::log2(x)); }

}  // namespace

double torch_spyre_matmul_cost(const MatmulShape& shape, const MatmulSplit& split, int64_t max_cores,
                               bool shared_weight) {
  // N and K in whole sticks, as torch-spyre's iteration space counts them.
  const auto in_sticks = [](int64_t elements) { return static_cast<double>((elements + 63) / 64 * 64); };
  const double B = static_cast<double>(shape.b), M = static_cast<double>(shape.m);
  const double N = in_sticks(shape.n), K = in_sticks(shape.k);
  const double b = static_cast<double>(split.b), m = static_cast<double>(split.m);
  const double n = static_cast<double>(split.n), k = static_cast<double>(split.k);
  const double cores = b * m * n * k;
  if (cores < 1 || cores > static_cast<double>(max_cores)) return std::numeric_limits<double>::infinity();

  // Compute: MACs per core at peak, derated below kTargetPtPasses row passes.
  const double m_tile = std::floor(M / m);
  const double pt_passes = std::max(1.0, m_tile / kPtRows);
  const double pt_efficiency = std::min(1.0, std::pow(pt_passes / kTargetPtPasses, kPtEfficiencyExponent));
  const double compute_us = (B * M * N * K / cores) / (kPeakMacsPerUsPerCore * pt_efficiency);

  // HBM: each operand once, a broadcast to more than kCohortLimit cores slower.
  const double weight_batches = shared_weight ? 1 : B;
  const double bytes = (B * M * K + weight_batches * K * N + B * M * N) * kDtypeBytes;
  const double fanout = shared_weight ? std::max(m, n) : n;
  const double cohort_penalty = std::max(1.0, std::pow(fanout / kCohortLimit, kCohortPenaltyExponent));
  const double hbm_us = bytes / (kHbmGbps * 1000) * cohort_penalty;

  // Partial sums of a K split: (k - 1) hops of each core's output tile.
  const double psum_us = (k - 1) * (B * M * N) / std::max(1.0, b * m * n) *
                         (shared_weight ? kPsumUsPerElementShared : kPsumUsPerElementBmm);

  // The soft preferences.
  const double target_m = std::max(kMinM, std::min(std::floor(static_cast<double>(max_cores) / 2),
                                                   std::max(1.0, std::floor(M / (kTargetMTiePasses * kPtRows)))));
  const double m_lane_underuse_us = log2_at_least_0(target_m / std::max(1.0, m)) * kMLaneUnderusePenaltyUs;
  const double m_tile_underfill_us =
      log2_at_least_0(kMTileUnderfillTarget / std::max(1.0, m_tile)) * kMTileUnderfillPenaltyUs;
  const double n_tile = std::floor(N / n);
  const double wide_n_us = log2_at_least_0(std::max(1.0, n_tile) / kTargetNTileElements) * kWideNTilePenaltyUs;
  const double filled_m_tile = m_tile >= kMTileUnderfillTarget ? 1 : 0;
  const double value_split_us = shared_weight || n <= 1
                                    ? 0
                                    : filled_m_tile * log2_at_least_0(std::max(1.0, K) / std::max(1.0, N)) *
                                          std::log2(n) * kLargeMTileShapePenaltyUs;
  const double narrow_tile_us = !shared_weight
                                    ? 0
                                    : filled_m_tile * log2_at_least_0(kSharedNarrowOutputRef / std::max(1.0, N)) *
                                          log2_at_least_0(std::max(1.0, n_tile) / kSharedNTileTarget) *
                                          (kLargeMTileShapePenaltyUs / 4);
  const double down_n_split_us = !shared_weight || n <= 1 ? 0
                                                          : log2_at_least_0(std::max(1.0, K) / std::max(1.0, N)) *
                                                                std::log2(n) * kSharedDownNSplitPenaltyUs;
  const double core_underuse_us = log2_at_least_0(static_cast<double>(max_cores) / cores) * kCoreUnderusePenaltyUs;
  const double batch_split_us = shared_weight ? 0 : std::log2(std::max(1.0, b)) * kBmmBatchSplitPenaltyUs;
  return compute_us + hbm_us + psum_us + m_lane_underuse_us + m_tile_underfill_us + wide_n_us + value_split_us +
         narrow_tile_us + down_n_split_us + core_underuse_us + batch_split_us;
}

size_t torch_spyre_matmul_pick(const MatmulShape& shape, const std::vector<MatmulSplit>& candidates, int64_t max_cores,
                               bool shared_weight) {
  // torch-spyre visits the splits in increasing (b, m, n, k) and keeps the
  // first of equal costs.
  const auto visited_before = [](const MatmulSplit& x, const MatmulSplit& y) {
    return std::tie(x.b, x.m, x.n, x.k) < std::tie(y.b, y.m, y.n, y.k);
  };
  size_t best = candidates.size();
  double best_cost = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double cost = torch_spyre_matmul_cost(shape, candidates[i], max_cores, shared_weight);
    if (cost < best_cost ||
        (cost == best_cost && best < candidates.size() && visited_before(candidates[i], candidates[best]))) {
      best_cost = cost;
      best = i;
    }
  }
  return best;
}

}  // namespace spyre::compiler
