// The per-core work plan: tiling through the staging space, HBM bytes per
// core, compute cycles, matmul blocking and ring phases.

#include <gtest/gtest.h>

#include "runtime/arch_config.h"
#include "sim/schedule/kernel_plan.h"
#include "test_support.h"

namespace spyre::sim {
namespace {

const ArchConfig& arch() {
  static const ArchConfig a = load_arch("", test::hand_derived_arch());
  return a;
}

Program load(const std::string& bundle) { return load_program(bundle, arch().limits()); }

// sdpa's restickify of K (sdsc_9) computes head c on core c, but its LX
// input says (coordinates_.coreIdToWkSlice_) core c holds positions
// 16c..16c+15 of every head, as the RoPE before it computed them: the backend
// moves the parts over the data ring first. Core c needs 512 positions x 2
// sticks of its head; each of the 32 holders has 16 positions of it.
TEST(KernelPlan, LxInputHeldUnderAnotherDivisionIsRelayoutedOverTheRing) {
  const Program p = load(test::bundle_path("torch-spyre/granite_layer_prefill/sdpa"));
  const TensorBinding& k = p.kernels[9].tensors[0];
  ASSERT_TRUE(k.relayout);
  EXPECT_EQ(k.held.box.at(1).origin.at("x"), 16);  // what core 1's LX holds
  EXPECT_EQ(k.core_box.at(1).origin.at("mb"), 1);  // what core 1 computes on
  EXPECT_EQ(k.layout.size_bytes(), 512 * 2 * 128);
  const KernelWork w = plan_kernel(p, 9, arch());
  ASSERT_EQ(w.relayout.size(), 32u * 31u);
  for (const auto& t : w.relayout) {
    EXPECT_NE(t.src_core, t.dst_core);
    EXPECT_EQ(t.bytes, 16 * 2 * 128);
  }
  EXPECT_EQ(w.cores[3].tiles.front().lx_bytes, 2 * 16 * 2 * 128);  // its own part, copied within its LX
  // A kernel whose LX inputs are where it computes moves nothing.
  EXPECT_TRUE(plan_kernel(p, 3, arch()).relayout.empty());
}

// The RoPE table sdsc_0 left on core 0 (512 positions x 4 sticks): every
// other core receives its 16 positions from core 0 over the ring, core 0
// copies its own within its LX.
TEST(KernelPlan, LxInputOnOneCoreIsScatteredToTheCoresThatComputeOnIt) {
  const Program p = load(test::bundle_path("torch-spyre/granite_layer_prefill/sdpa"));
  const KernelWork w = plan_kernel(p, 1, arch());
  ASSERT_EQ(w.relayout.size(), 31u);
  for (const auto& t : w.relayout) {
    EXPECT_EQ(t.src_core, 0);
    EXPECT_EQ(t.bytes, 16 * 4 * 128);
  }
  EXPECT_EQ(w.cores[0].tiles.front().lx_bytes, 2 * 16 * 4 * 128);
}

TEST(KernelPlan, SeedAbsMovesExactlyItsBytes) {
  const Program p = load(test::bundle_path("seed-abs"));
  const KernelWork w = plan_kernel(p, 0, arch());
  EXPECT_EQ(w.hbm_read_bytes, 512);
  EXPECT_EQ(w.hbm_write_bytes, 512);
  ASSERT_EQ(w.cores.size(), 2u);
  // Core 1 reads rows 2-3: two sticks from 256 bytes into the input.
  ASSERT_EQ(w.cores[1].tiles.size(), 1u);
  ASSERT_EQ(w.cores[1].tiles[0].loads.size(), 1u);
  EXPECT_EQ(w.cores[1].tiles[0].loads[0].address, 256);
  EXPECT_EQ(w.cores[1].tiles[0].loads[0].bytes, 256);
  EXPECT_EQ(w.cores[1].tiles[0].stores[0].address, 768);
}

TEST(KernelPlan, PointwiseAddOnThirtyTwoCores) {
  const Program p = load(test::cli_bundle("add"));
  const KernelWork w = plan_kernel(p, 0, arch());
  EXPECT_EQ(w.hbm_read_bytes, 2 * 512 * 1024 * 2);
  EXPECT_EQ(w.hbm_write_bytes, 512 * 1024 * 2);
  // 256 x 64 per core per tensor = 32 KiB; three streams fit one tile.
  const CoreWork& c = w.cores[5];
  ASSERT_EQ(c.tiles.size(), 1u);
  EXPECT_EQ(c.tiles[0].loads.size(), 2u);
  EXPECT_EQ(c.tiles[0].loads[0].bytes, 32768);
  // 16384 elements / 64 lanes = 256 vectors of one cycle, split over two corelets.
  EXPECT_DOUBLE_EQ(c.tiles[0].sfu_cycles, 128);
  EXPECT_EQ(c.tiles[0].lx_bytes, 3 * 32768);
}

TEST(KernelPlan, StreamsInTilesThatFitTheStagingSpace) {
  // fma's mul on 8 cores: 512 x 128 per core = 128 KiB per tensor, two loads and
  // one store = 384 KiB, more than half the 419328-byte staging space.
  const Program p = load(test::cli_bundle("fma"));
  const KernelWork w = plan_kernel(p, 0, arch());
  const CoreWork& c = w.cores[0];
  EXPECT_EQ(c.hbm_read_bytes, 2 * 131072);
  ASSERT_EQ(c.tiles.size(), 2u);  // 256 KiB of HBM streams (output is LX) / 209664 per buffer
  EXPECT_EQ(c.tiles[0].loads[0].bytes + c.tiles[1].loads[0].bytes, 131072);
  EXPECT_LE(c.staging_bytes, arch().staging_bytes());
}

TEST(KernelPlan, LxResidentOperandsMoveNoHbmBytes) {
  const Program p = load(test::cli_bundle("softmax"));
  EXPECT_EQ(plan_kernel(p, 0, arch()).hbm_read_bytes, 512 * 1024 * 2);  // identity: HBM -> LX
  for (int k = 1; k <= 4; ++k) {
    const KernelWork w = plan_kernel(p, k, arch());
    EXPECT_EQ(w.hbm_read_bytes + w.hbm_write_bytes, 0) << k;
  }
  EXPECT_EQ(plan_kernel(p, 5, arch()).hbm_write_bytes, 512 * 1024 * 2);
}

TEST(KernelPlan, ReductionOutputIsStoredAfterTheLastTile) {
  const Program p = load(test::cli_bundle("mean_keepdim"));
  const KernelWork w = plan_kernel(p, 0, arch());
  const CoreWork& c = w.cores[0];
  // 16 rows of one output stick each.
  EXPECT_EQ(c.hbm_write_bytes, 16 * 128);
  EXPECT_TRUE(c.tiles.back().stores.size() == 1u && c.tiles.back().stores[0].bytes == 2048);
  EXPECT_EQ(c.reduce_group, -1);
}

TEST(KernelPlan, MatmulFitsStagingInOneBlock) {
  // mm 512x1024 @ 1024x256 on 32 cores: A 64x1024 (128 KiB), B 1024x64 (128 KiB),
  // C 64x64 (8 KiB) per core: 2x(A+B) + fp32 C does not fit, so K is blocked.
  const Program p = load(test::cli_bundle("mm"));
  const KernelWork w = plan_kernel(p, 0, arch());
  const CoreWork& c = w.cores[0];
  EXPECT_EQ(c.hbm_read_bytes, 131072 + 131072);  // each operand read once
  EXPECT_EQ(c.hbm_write_bytes, 8192);
  EXPECT_GT(c.tiles.size(), 1u);
  EXPECT_DOUBLE_EQ(w.compute_macs, 512.0 * 1024 * 256);
  double cycles = 0;
  for (const auto& t : c.tiles) cycles += t.pt_cycles;
  // 64*64*1024 MACs at 8x8x8 x 2 corelets x 0.742 per cycle.
  EXPECT_NEAR(cycles, 64.0 * 64 * 1024 / (1024 * 0.742), 1e-6);
}

// torch-spyre's bmm layouts put the batch dim innermost (A [mb][in][x],
// B [in][out][x]). The bundle's core has one batch element of 128 x 256 @
// 256 x 128: a tile holds 419328 / (256x128x2 + 8x256x2 + 8x128x4) = 5 batch
// elements, capped at the core's one; B is streamed again for each of the
// 128 / 8 = 16 passes of 8 rows, as 256 x 2 runs of one 128-byte stick.
TEST(KernelPlan, BatchedMatmulStreamsTheWeightPerPassOfEightRows) {
  const Program p = load(test::cli_bundle("bmm"));
  const KernelWork w = plan_kernel(p, 0, arch());
  const CoreWork& core = w.cores[0];
  ASSERT_EQ(core.tiles.size(), 16u);
  double cycles = 0;
  for (const auto& t : core.tiles) {
    ASSERT_EQ(t.loads.size(), 2u);
    EXPECT_EQ(t.loads[0].bytes, 8 * 256 * 2);  // 8 rows of A
    EXPECT_EQ(t.loads[1].bytes, 256 * 128 * 2);
    ASSERT_EQ(t.loads[1].runs.size(), 512u);
    for (const auto& run : t.loads[1].runs) EXPECT_EQ(run.second, 128);
    ASSERT_EQ(t.stores.size(), 1u);
    EXPECT_EQ(t.stores[0].bytes, 8 * 128 * 2);
    cycles += t.pt_cycles;
  }
  EXPECT_EQ(core.hbm_read_bytes, 128 * 256 * 2 + 16 * 256 * 128 * 2);
  EXPECT_NEAR(cycles, 128.0 * 128 * 256 / (1024 * arch().pt.efficiency), 1e-6);
  EXPECT_EQ(core.staging_bytes, 256 * 128 * 2 + 8 * 256 * 2 + 8 * 128 * 4);
}

// With half of LX or more for its tiles (DXP_LX_FRAC_AVAIL 0.8, 1.0) the
// backend keeps the tile's B across the row passes: the same bundle at LX
// fraction 1.0 loads B in the first of its 16 passes only.
TEST(KernelPlan, BatchedMatmulKeepsTheWeightAcrossPassesWithMostOfLx) {
  const Program p = load(test::cli_bundle("bmm"));
  ArchConfig a = arch();
  a.lx.backend_reserved_fraction = 1.0;
  const CoreWork core = plan_kernel(p, 0, a).cores[0];
  ASSERT_EQ(core.tiles.size(), 16u);
  EXPECT_EQ(core.tiles[0].loads.size(), 2u);
  for (size_t i = 1; i < core.tiles.size(); ++i) {
    ASSERT_EQ(core.tiles[i].loads.size(), 1u) << i;  // A's 8 rows only
    EXPECT_EQ(core.tiles[i].loads[0].bytes, 8 * 256 * 2);
  }
  EXPECT_EQ(core.hbm_read_bytes, 128 * 256 * 2 + 256 * 128 * 2);
  a.pt.bmm_keep_b_lx_fraction = 1.5;  // never: streamed again per pass, as at 0.2
  EXPECT_EQ(plan_kernel(p, 0, a).cores[0].hbm_read_bytes, 128 * 256 * 2 + 16 * 256 * 128 * 2);
}

// A projection's PT rate: halved when K is split over cores, halved when the
// core's block is at least large_block_rows x large_block_cols (twice each
// with K split, and in proportion to the staging space beyond
// pt.large_block_staging_bytes).
TEST(KernelPlan, ProjectionRateFallsForSplitKAndLargeBlocks) {
  ArchConfig a = arch();
  a.pt.split_k_rate = 0.5;
  a.pt.large_block_rate = 0.25;
  const double peak = 1024 * a.pt.efficiency;
  auto rate = [&](bool split_k, int64_t m, int64_t n) { return matmul_macs_per_cycle(a, false, split_k, m, n); };
  EXPECT_DOUBLE_EQ(rate(false, 128, 512), peak);
  EXPECT_DOUBLE_EQ(rate(true, 128, 512), peak * 0.5);
  EXPECT_DOUBLE_EQ(rate(false, 256, 128), peak * 0.25);
  EXPECT_DOUBLE_EQ(rate(false, 256, 64), peak);
  EXPECT_DOUBLE_EQ(rate(true, 256, 256), peak * 0.5);
  EXPECT_DOUBLE_EQ(rate(true, 512, 256), peak * 0.5 * 0.25);
  EXPECT_DOUBLE_EQ(matmul_macs_per_cycle(a, true, true, 512, 256), peak);  // batched: its own mechanisms
  // The band's edges grow with the staging space past the one they were
  // measured at: at LX fraction 1.0 (5x) a 256 x 256 or 512 x 128 block runs
  // at the full rate, a 1400 x 700 one does not.
  a.lx.backend_reserved_fraction = 1.0;
  EXPECT_DOUBLE_EQ(rate(false, 256, 256), peak);
  EXPECT_DOUBLE_EQ(rate(false, 512, 128), peak);
  EXPECT_DOUBLE_EQ(rate(false, 1400, 700), peak * 0.25);
}

TEST(MatmulBlocking, PicksTheLeastTrafficThatFits) {
  // Everything fits: one block, each operand once.
  MatmulBlocking b = choose_matmul_blocking(1000, 1000, 1000, 8, 8, 8, 100000);
  EXPECT_EQ(b.bm * b.bn * b.bk, 1);
  EXPECT_EQ(b.traffic, 3000);
  // A large B (the decode weights): blocking along N keeps A resident and reads B once.
  b = choose_matmul_blocking(8192, 4194304, 1024, 1, 8, 64, 419328);
  EXPECT_EQ(b.traffic, 8192 + 4194304 + 1024);
  EXPECT_LE(2 * (4194304 / (b.bk * b.bn)) + 2 * 1024 / b.bn + (b.a_resident ? 8192 : 2 * 8192 / b.bk), 419328);
}

}  // namespace
}  // namespace spyre::sim
