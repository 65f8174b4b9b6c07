// Core and Card timing: the seed abs kernel worked through by hand, and the
// double-buffered pipeline overlapping loads with stores.

#include <map>

#include <gtest/gtest.h>

#include "runtime/arch_config.h"
#include "runtime/device_memory.h"
#include "sim/report/invariants.h"
#include "sim/simulator.h"
#include "test_support.h"

namespace spyre::sim {
namespace {

// The hand-derived card with a memory-side cache of `cache_bytes` (and the
// further overrides), and one of the CLI's example bundles loaded for it.
struct CachedCard {
  ArchConfig arch;
  Program program;
};
CachedCard cached_card(const std::string& bundle, int64_t cache_bytes, const std::vector<std::string>& more = {}) {
  auto overrides = test::hand_derived_arch();
  overrides.push_back("cache.bytes=" + std::to_string(cache_bytes));
  overrides.insert(overrides.end(), more.begin(), more.end());
  ArchConfig arch = load_arch("", overrides);
  Program program = load_program(test::cli_bundle(bundle), arch.limits());
  return {std::move(arch), std::move(program)};
}

TEST(Card, SeedAbsLatencyWorkedByHand) {
  const ArchConfig a = load_arch("", test::hand_derived_arch());
  const Program p = load_program(test::bundle_path("seed-abs"), a.limits());
  const RunReport r = simulate(p, a, nullptr).report;
  // Launch: 15 us per bundle + 0.5 us per SDSC. Then each core, on its own
  // channels (core 0 reads channel 0 and writes channel 2, core 1 channels 1, 3):
  const double load = 50             // DMA setup
                      + 256 / 18.75  // one 256-byte chunk at 150/8 GB/s
                      + 120;         // LPDDR5 latency
  // Compute: 512 operand bytes through the LX ports (384 B/ns) outlast the
  // one PT cycle; then the store, write-only on its channel (no turnaround).
  const double compute = 512 / 384.0;
  const double store = 50 + 256 / 18.25 + 120;
  EXPECT_NEAR(r.latency_us * 1000, 15000 + 500 + load + compute + store, 0.01);
  EXPECT_NEAR(r.kernels[0].start_us, 15.5, 1e-6);
  EXPECT_EQ(r.cycles, std::llround((15500 + load + compute + store) * 1.5));
  // Uploading arg0 and downloading arg0_512: 1 us + 512 B at 50 GB/s each.
  EXPECT_NEAR(r.host_upload_us, 1 + 512 / 50e3, 1e-6);
  EXPECT_NEAR(r.host_download_us, 1 + 512 / 50e3, 1e-6);
}

TEST(Card, SdscsRunBackToBackBehindBarriers) {
  const ArchConfig a = load_arch("", test::hand_derived_arch());
  const Program p = load_program(test::cli_bundle("softmax"), a.limits());
  const RunReport r = simulate(p, a, nullptr).report;
  ASSERT_EQ(r.kernels.size(), 6u);
  for (size_t k = 1; k < r.kernels.size(); ++k) {
    // Each SDSC starts one dispatch overhead after the previous one's barrier.
    EXPECT_NEAR(r.kernels[k].start_us, r.kernels[k - 1].end_us + 0.5, 1e-6) << k;
  }
  EXPECT_NEAR(r.latency_us, r.kernels.back().end_us, 1e-6);
}

TEST(Core, DoubleBufferingOverlapsLoadsWithStores) {
  const ArchConfig a = load_arch("", test::hand_derived_arch());
  const Program p = load_program(test::bundle_path("synthetic/add_4096x4096"), a.limits());
  const RunReport r = simulate(p, a, nullptr).report;
  ASSERT_EQ(r.cores.size(), 32u);
  // Busy percentages over the whole run (including the 15.5 us launch): the
  // two DMA engines of a core are busy at the same time for most of the kernel.
  for (const auto& c : r.cores) EXPECT_GT(c.dma_in_busy_pct + c.dma_out_busy_pct, 120) << c.core;
  EXPECT_GE(r.kernels[0].tiles, 8);
  // 100 MB at the 2-read-1-write rate of the hand-derived LPDDR5 model:
  // ~96 GB/s (fully mixed bytes carry 2 x 24 ns per 1024; the calibrated
  // mixed_batch_bytes gives ~115), between all bytes fully mixed (79 GB/s)
  // and none (149).
  const double kernel_us = r.kernels[0].end_us - r.kernels[0].start_us;
  EXPECT_NEAR(100663296 / (kernel_us * 1000), 96, 6);
}

std::vector<std::string> with_port(int gbps) {
  auto o = test::hand_derived_arch();
  o.push_back("dma.port_gbps=" + std::to_string(gbps));
  return o;
}

TEST(Core, APortLimitedCoreStreamsAtItsPortRate) {
  // fma's mul on 8 cores: with dma.port_gbps at 10 GB/s the cores' ports, not
  // LPDDR5 (8 x 10 < 150 GB/s), limit it: 2 x 128 KiB read per core (the
  // product stays in LX) at 10 GB/s.
  const Program p = load_program(test::cli_bundle("fma"), load_arch("", test::hand_derived_arch()).limits());
  const RunReport slow = simulate(p, load_arch("", with_port(10)), nullptr).report;
  const double mul_us = slow.kernels[0].end_us - slow.kernels[0].start_us;
  EXPECT_NEAR(mul_us, 2 * 131072 / 10e3, 2.0);
}

// The memory-side cache (a calibration hypothesis): with it off every byte
// goes to LPDDR5; with it on, the second of two back-to-back runs of a small
// program finds its data in the cache.
TEST(MemoryCache, SmallWorkingSetsHitAfterAWarmUpRun) {
  auto off = test::hand_derived_arch();
  const ArchConfig a_off = load_arch("", off);
  const Program p = load_program(test::cli_bundle("add"), a_off.limits());
  const RunReport r_off = simulate(p, a_off, nullptr).report;
  EXPECT_EQ(r_off.cache_hit_bytes + r_off.cache_miss_bytes, 0);
  EXPECT_EQ(r_off.dram_read_bytes, r_off.hbm_read_bytes);
  EXPECT_EQ(r_off.dram_write_bytes, r_off.hbm_write_bytes);
  auto on = off;
  on.push_back("cache.bytes=8388608");
  const ArchConfig a_on = load_arch("", on);
  const RunReport warm = simulate(p, a_on, nullptr, {.protocol = {.warmup = 1}}).report;
  EXPECT_EQ(warm.protocol.warmup, 1);
  EXPECT_EQ(warm.cache_hit_bytes, warm.hbm_read_bytes + warm.hbm_write_bytes);  // 3 MiB fits in 8 MiB
  EXPECT_EQ(warm.cache_miss_bytes, 0);
  EXPECT_EQ(warm.dram_read_bytes, 0);
  EXPECT_LT(warm.kernels[0].end_us - warm.kernels[0].start_us, r_off.kernels[0].end_us - r_off.kernels[0].start_us);
  // Too small a cache: the streams miss and go to LPDDR5.
  on.back() = "cache.bytes=65536";
  const RunReport small = simulate(p, load_arch("", on), nullptr, {.protocol = {.warmup = 1}}).report;
  EXPECT_EQ(small.dram_read_bytes, small.cache_miss_bytes);
  EXPECT_GE(small.cache_miss_bytes, small.hbm_read_bytes * 9 / 10);
}

// Device work between runs (a profiler's memset and copies) displaces the
// cache: the measured run of the same add reads every input byte from LPDDR5
// and writes its output back before it ends, so it takes longer than the
// back-to-back run that found everything in the cache.
TEST(MemoryCache, DeviceWorkBetweenRunsLeavesNothingCachedAndWritesBackTheOutput) {
  const auto [a, p] = cached_card("add", 8388608);
  const RunReport warm = simulate(p, a, nullptr, {.protocol = {.warmup = 1}}).report;
  const RunReport displaced =
      simulate(p, a, nullptr, {.protocol = {.warmup = 1, .between_runs = BetweenRuns::kDeviceWork}}).report;
  EXPECT_EQ(warm.protocol.between_runs, BetweenRuns::kBackToBack);
  EXPECT_EQ(displaced.protocol.between_runs, BetweenRuns::kDeviceWork);
  EXPECT_EQ(displaced.cache_miss_bytes, displaced.hbm_read_bytes);  // no read hits
  EXPECT_EQ(displaced.cache_hit_bytes, displaced.hbm_write_bytes);  // the writes land in the cache
  EXPECT_EQ(displaced.dram_read_bytes, displaced.hbm_read_bytes);
  EXPECT_EQ(displaced.cache_writeback_bytes, displaced.hbm_write_bytes);
  EXPECT_EQ(displaced.dram_write_bytes, displaced.hbm_write_bytes);
  const auto& k = displaced.kernels[0];
  EXPECT_GT(k.end_us - k.start_us, 1.5 * (warm.kernels[0].end_us - warm.kernels[0].start_us));
  // Reading and then writing back 3 MiB at LPDDR5's rates at the most.
  const double floor_us =
      (displaced.hbm_read_bytes / a.lpddr5.read_gbps + displaced.hbm_write_bytes / a.lpddr5.write_gbps) / 1000.0;
  EXPECT_GT(k.end_us - k.start_us, floor_us);
  for (const auto& c : physical_invariants(displaced, a)) EXPECT_TRUE(c.holds()) << c.name;
}

// Write-around (cache.write_allocate=0): the warm add still reads its inputs
// from the cache, but its output, which no earlier iteration read, goes past
// the cache to LPDDR5 every iteration; the report stays physically possible.
TEST(MemoryCache, WriteAroundSendsTheOutputToLpddrEveryIteration) {
  const auto [a, p] = cached_card("add", 8388608, {"cache.write_allocate=0"});
  const RunReport r = simulate(p, a, nullptr, {.protocol = {.warmup = 1}}).report;
  EXPECT_EQ(r.dram_read_bytes, 0);
  EXPECT_EQ(r.cache_hit_bytes, r.hbm_read_bytes);
  EXPECT_EQ(r.dram_write_bytes, r.hbm_write_bytes);
  EXPECT_EQ(r.cache_writeback_bytes, 0);
  for (const auto& c : physical_invariants(r, a)) EXPECT_TRUE(c.holds()) << c.name;
}

// Byte conservation: torch-spyre's decode down projection (32 cores, each
// core's weight columns interleaved with the others') reads the 12800 x 4096
// weight once in all. The cache cannot serve bytes no core
// fetched: LPDDR5 reads at least every weight byte, and the kernel takes at
// least as long as LPDDR5 needs for them at its peak read rate.
TEST(MemoryCache, LpddrServesEveryDistinctByteTheCoresRead) {
  const ArchConfig a = load_arch("", {});
  const Program p =
      load_program(test::bundle_path("torch-spyre/swiglu/decode_bmm/sdsc_fused_bmm_1_obv__lbc"), a.limits());
  const RunReport r = simulate(p, a, nullptr).report;
  const int64_t weight = int64_t{12800} * 4096 * 2;
  EXPECT_GE(r.hbm_read_bytes, weight);
  EXPECT_GE(r.dram_read_bytes, weight);
  EXPECT_GE(r.kernels[0].end_us - r.kernels[0].start_us, static_cast<double>(weight) / (a.lpddr5.read_gbps * 1e3));
}

// The report's per-block counters add up to its totals: every byte the DMA
// engines moved reached the cache, every miss went to LPDDR5.
TEST(Report, BlockCountersAddUpToTheTotals) {
  const auto [a, p] = cached_card("softmax", 65536);
  const RunReport r = simulate(p, a, nullptr, {.protocol = {.warmup = 1}}).report;
  std::map<std::string, double> sum;
  for (const auto& b : r.blocks) {
    const std::string kind = b.block.substr(b.block.rfind('.') + 1);
    for (const auto& [key, value] : b.counters) sum[kind + "." + key] += value;
  }
  EXPECT_EQ(sum["dma_in.bytes"], r.hbm_read_bytes);
  EXPECT_EQ(sum["dma_out.bytes"], r.hbm_write_bytes);
  EXPECT_EQ(sum["cache.hit_bytes"] + sum["cache.miss_bytes"], r.hbm_read_bytes + r.hbm_write_bytes);
  EXPECT_EQ(sum["lpddr5.read_bytes"], sum["cache.miss_bytes"]);
  EXPECT_EQ(sum["lpddr5.write_bytes"], sum["cache.writeback_bytes"]);
  EXPECT_EQ(sum["lpddr5.read_bytes"], r.dram_read_bytes);
  EXPECT_GT(sum["lx.bytes"], 0);
  // No engine is busy longer than the measured iteration.
  for (const auto& b : r.blocks) {
    for (const auto& [key, value] : b.counters) {
      if (key.find("busy_ns") != std::string::npos && key != "channel_busy_ns") {
        EXPECT_LE(value, r.latency_us * 1000 + 1e-6) << b.block << " " << key;
      }
    }
  }
}

// After an SDSC on more than one core the card waits one barrier, whatever
// the number of cores; a kernel that wrote HBM waits its write fence.
TEST(Card, BarrierFollowsMultiCoreSdscsAndFencesFollowWrites) {
  const Program p =
      load_program(test::cli_bundle("add"), load_arch("", test::hand_derived_arch()).limits());  // 32 cores
  auto base = test::hand_derived_arch();
  const double t0 = simulate(p, load_arch("", base), nullptr).report.latency_us;
  auto barrier = base;
  barrier.push_back("launch.barrier_ns=1000");
  EXPECT_NEAR(simulate(p, load_arch("", barrier), nullptr).report.latency_us - t0, 1.0, 1e-6);
  auto fence = base;
  fence.push_back("dma.write_fence_ns=700");
  EXPECT_NEAR(simulate(p, load_arch("", fence), nullptr).report.latency_us - t0, 0.7, 1e-6);
}

// The invariants catch a report that is physically impossible: LPDDR5 above
// its peak over the window, a cache that served fills it never read, a DMA
// engine busier than the time there was, MACs beyond the PT arrays' peak.
TEST(Invariants, ImpossibleReportsAreCaught) {
  const ArchConfig arch = load_arch("", {});
  RunReport r;
  r.measured_window_ns = 1000;
  r.dram_read_bytes = 100000;  // 100 GB/s for 1 us: under 204.8
  r.cache_miss_bytes = 100000;
  r.blocks.push_back({"card.core0.dma_in", {{"bytes", 4096}, {"busy_ns", 900}}});
  r.kernels.push_back({});
  r.kernels.back().cores = 1;
  r.kernels.back().end_us = 1;
  r.kernels.back().macs = 1024 * 1000;  // 1024 MACs/cycle/core at peak: 667 ns of 1000 at 1.5 GHz
  auto violated = [&] {
    std::vector<std::string> names;
    for (const auto& c : physical_invariants(r, arch)) {
      if (!c.holds()) names.push_back(c.name.substr(0, c.name.find(':')));
    }
    return names;
  };
  EXPECT_TRUE(violated().empty());
  r.dram_read_bytes = 300000;  // 300 GB/s
  EXPECT_EQ(violated(), std::vector<std::string>{"card.lpddr5"});
  r.dram_read_bytes = 50000;  // fewer bytes than the cache filled
  EXPECT_EQ(violated(), std::vector<std::string>{"card.cache"});
  r.dram_read_bytes = 100000;
  r.blocks.back().counters["busy_ns"] = 1200;
  EXPECT_EQ(violated(), std::vector<std::string>{"card.core0.dma_in"});
  r.blocks.back().counters["busy_ns"] = 900;
  r.kernels.back().macs = 2e6;
  EXPECT_EQ(violated(), std::vector<std::string>{"kernel "});
}

}  // namespace
}  // namespace spyre::sim
