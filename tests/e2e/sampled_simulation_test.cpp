// Sampled simulation (run --sample-repeats, sim/schedule/kernel_twins.h): a
// model's repeated layers take the timing of the layers simulated before
// them. The sampled run must compute the same values, stay close to the full
// simulation in time and traffic, and say which kernels it did not simulate.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "compiler/compile_job.h"
#include "e2e_support.h"
#include "sim/run_bundle.h"
#include "test_support.h"

namespace spyre {
namespace {

// Six layers of the small Granite (test::small_granite_job), prefill, with
// inputs and reference logits.
struct SixLayers {
  test::TempDir dir;
  compiler::CompileJob job = test::small_granite_job("prefill", 6);
  SixLayers() {
    job.output_dir = dir.file("program");
    job.emit_io_dir = dir.file("io");
    compiler::run_compile_job(job);
  }
  sim::RunOutcome run(int sample_repeats) const {
    sim::RunOptions o;
    o.bundle = job.output_dir;
    o.inputs_dir = dir.file("io/inputs");
    o.expect_dir = dir.file("io/reference");
    o.sample_repeats = sample_repeats;
    return sim::run_bundle(o);
  }
};

const SixLayers& six_layers() {
  static const SixLayers model;
  return model;
}

// The layers after the first two take their timing; the values are those of
// the full run; time, DRAM traffic and busy shares stay within a few percent.
TEST(SampledSimulation, LaterLayersTakeTheTimingOfTheFirstTwo) {
  const sim::RunOutcome full = six_layers().run(0);
  const sim::RunOutcome sampled = six_layers().run(2);
  const sim::RunReport &f = full.report, &s = sampled.report;
  ASSERT_EQ(f.kernels.size(), s.kernels.size());
  int taken = 0;
  std::map<std::string, size_t> index_of;
  for (size_t k = 0; k < s.kernels.size(); ++k) index_of[s.kernels[k].file] = k;
  for (size_t k = 0; k < s.kernels.size(); ++k) {
    const auto& kr = s.kernels[k];
    EXPECT_TRUE(f.kernels[k].timing_of.empty());
    if (kr.timing_of.empty()) continue;
    ++taken;
    // The twin ran before, simulated, the same op on the same cores, for as long.
    ASSERT_TRUE(index_of.count(kr.timing_of)) << kr.timing_of;
    const auto& twin = s.kernels[index_of.at(kr.timing_of)];
    EXPECT_LT(index_of.at(kr.timing_of), k);
    EXPECT_TRUE(twin.timing_of.empty());
    EXPECT_EQ(twin.op, kr.op);
    EXPECT_EQ(twin.cores, kr.cores);
    EXPECT_EQ(twin.hbm_read_bytes, kr.hbm_read_bytes);
    EXPECT_NEAR(kr.end_us - kr.start_us, twin.end_us - twin.start_us, 1e-3);
    EXPECT_EQ(twin.bound.bound_by, kr.bound.bound_by);
  }
  // Six layers of ~20 kernels: at least three layers' worth taken.
  EXPECT_GT(taken, static_cast<int>(s.kernels.size()) / 3);
  EXPECT_LT(taken, static_cast<int>(s.kernels.size()));
  // Values are computed for every kernel: the logits match as in the full run.
  ASSERT_EQ(s.comparisons.size(), 1u);
  EXPECT_TRUE(s.comparisons[0].passed);
  EXPECT_EQ(sampled.outputs.at("logits"), full.outputs.at("logits"));
  EXPECT_NEAR(s.latency_us, f.latency_us, 0.02 * f.latency_us);
  EXPECT_EQ(s.hbm_read_bytes, f.hbm_read_bytes);
  EXPECT_EQ(s.hbm_write_bytes, f.hbm_write_bytes);
  EXPECT_NEAR(static_cast<double>(s.dram_read_bytes), static_cast<double>(f.dram_read_bytes),
              0.05 * static_cast<double>(f.dram_read_bytes));
  EXPECT_NEAR(static_cast<double>(s.cache_hit_bytes), static_cast<double>(f.cache_hit_bytes),
              0.05 * static_cast<double>(f.cache_hit_bytes));
  ASSERT_EQ(s.cores.size(), f.cores.size());
  for (size_t c = 0; c < s.cores.size(); ++c)
    EXPECT_NEAR(s.cores[c].dma_in_busy_pct, f.cores[c].dma_in_busy_pct, 5.0) << "core " << s.cores[c].core;
  test::expect_invariants_hold(s, "sampled six layers");
}

// With more repeats than any kernel has instances (some repeat within a
// layer: RoPE's halves), every kernel is simulated and the run is the full one.
TEST(SampledSimulation, MoreRepeatsThanInstancesSimulateEverything) {
  const sim::RunOutcome full = six_layers().run(0);
  const sim::RunOutcome all = six_layers().run(1000);
  for (const auto& k : all.report.kernels) EXPECT_TRUE(k.timing_of.empty()) << k.file;
  EXPECT_EQ(all.report.latency_us, full.report.latency_us);
  EXPECT_EQ(all.report.dram_read_bytes, full.report.dram_read_bytes);
}

}  // namespace
}  // namespace spyre
