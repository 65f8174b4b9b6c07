// The arch config: defaults with sources, --set overrides, and errors.

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/arch_config.h"
#include "runtime/error.h"
#include "test_support.h"

namespace spyre {
namespace {

using test::error_of;

// The parameter table is the one source: the repository's arch file and its
// schema are what the table generates, and the struct, the built-in card and
// the device limits hold the table's values.
TEST(ArchConfig, TheParameterTableIsTheOneSource) {
  EXPECT_EQ(test::read_text(test::source_path("models/arch/spyre.json")), builtin_arch_json())
      << "regenerate: build/spyre-sim arch --json > models/arch/spyre.json";
  EXPECT_EQ(test::read_text(test::source_path("models/arch/spyre.schema.json")), arch_json_schema())
      << "regenerate: build/spyre-sim arch --schema > models/arch/spyre.schema.json";
  const ArchConfig defaults;
  const ArchConfig builtin = load_arch("", {});
  ASSERT_EQ(arch_params().size(), 74u);
  for (const auto& p : arch_params()) {
    EXPECT_EQ(p.get(defaults), p.value) << p.path;
    EXPECT_EQ(p.get(builtin), p.value) << p.path;
    EXPECT_TRUE(p.value >= p.min && p.value <= p.max) << p.path;
    EXPECT_NE(std::string(p.source), "") << p.path;
    EXPECT_NE(std::string(p.unit), "") << p.path;
  }
  const DeviceLimits limits;
  EXPECT_EQ(limits.cores, 32);
  EXPECT_EQ(limits.lx_bytes, 2097152);
  EXPECT_EQ(limits.lx_alignment, 128);
  EXPECT_DOUBLE_EQ(limits.lx_backend_reserved_fraction, 0.2);
  EXPECT_EQ(limits.segment_bytes, int64_t{1} << 34);
  EXPECT_EQ(limits.segments, 8);
  EXPECT_EQ(limits.program_segment, 7);
  EXPECT_EQ(limits.span_limit_bytes, int64_t{1} << 28);
}

// The hand-derived timing tests run the card as it was before calibration.
TEST(ArchConfig, HandDerivedValuesAreTheValuesBeforeCalibration) {
  const std::vector<std::string> expected = {"pt.efficiency=0.742",
                                             "pt.split_k_rate=1.0",
                                             "pt.large_block_rate=1.0",
                                             "pt.output_stick_ns=0.0",
                                             "pt.one_stick_output_factor=1.0",
                                             "sfu.lanes=64",
                                             "sfu.cycles_divide=2.0",
                                             "sfu.cycles_reduce_stick=1.0",
                                             "lx.port_bytes_per_cycle=128",
                                             "dma.port_gbps=67.0",
                                             "dma.run_ns=0.0",
                                             "dma.compute_follows_data=0",
                                             "dma.write_fence_ns=0.0",
                                             "cache.bytes=0",
                                             "lpddr5.latency_ns=120.0",
                                             "lpddr5.raw_read_extra=0.0",
                                             "lpddr5.raw_run_ns=0.0",
                                             "lpddr5.access_ns=0.0",
                                             "lpddr5.mixed_batch_bytes=1024",
                                             "launch.bundle_overhead_us=15.0",
                                             "launch.sdsc_overhead_ns=500.0",
                                             "launch.barrier_ns=0.0"};
  EXPECT_EQ(uncalibrated_overrides(), expected);
  for (const auto& p : arch_params()) {
    if (p.before_calibration) {
      // Fitted, or derived from other values (not a value of its own).
      const std::string source = p.source;
      EXPECT_TRUE(source.starts_with("calibrated") || source.starts_with("derived")) << p.path;
    }
  }
}

TEST(ArchConfig, BuiltInMatchesTheRepositoryFile) {
  const ArchConfig builtin = load_arch("", {});
  const ArchConfig file = load_arch(test::source_path("models/arch/spyre.json"), {});
  EXPECT_EQ(builtin.to_json()["values"], file.to_json()["values"]);
  EXPECT_EQ(builtin.cores, 32);
  EXPECT_DOUBLE_EQ(builtin.clock_ghz, 1.5);
  EXPECT_EQ(builtin.lx.size_bytes, 2097152);
  // torch-spyre's usable LX: 2 MiB minus 20%, aligned down to 128 bytes.
  EXPECT_EQ(builtin.limits().lx_usable_bytes(), 1677696);
  EXPECT_EQ(builtin.staging_bytes(), 419328);
}

TEST(ArchConfig, PeakComputeMatchesThePublicFigure) {
  const ArchConfig a = load_arch("", {});
  const double tflops =
      2.0 * a.cores * a.corelets_per_core * a.pt.pe_rows * a.pt.pe_cols * a.pt.simd_lanes * a.clock_ghz / 1000.0;
  EXPECT_NEAR(tflops, 98.3, 0.05);
}

TEST(ArchConfig, OverridesApplyAndAreRecorded) {
  const ArchConfig a = load_arch("", {"lpddr5.read_gbps=300", "cores=16"});
  EXPECT_DOUBLE_EQ(a.lpddr5.read_gbps, 300);
  EXPECT_EQ(a.cores, 16);
  EXPECT_EQ(a.limits().cores, 16);
  EXPECT_EQ(a.to_json()["overrides"][0], "lpddr5.read_gbps=300");
  bool found = false;
  for (const auto& line : describe_arch("", {"cores=16"})) {
    if (line.rfind("cores = 16 cores  (command line --set cores=16)", 0) == 0) found = true;
  }
  EXPECT_TRUE(found);
}

TEST(ArchConfig, BadOverrides) {
  EXPECT_NE(
      error_of([] { load_arch("", {"lpddr5.read_gbs=300"}); }).find("--set: lpddr5.read_gbs: unknown arch parameter"),
      std::string::npos);
  EXPECT_EQ(error_of([] { load_arch("", {"cores=many"}); }), "--set: cores: value 'many' is not a number");
  EXPECT_EQ(error_of([] { load_arch("", {"cores"}); }), "--set: cores: expected path=value, e.g. lpddr5.read_gbps=300");
  EXPECT_EQ(error_of([] { load_arch("", {"cores=2000"}); }),
            "built-in spyre.json: cores: value 2000 is outside [1, 1024]");
  EXPECT_EQ(error_of([] { load_arch("", {"cores=2.5"}); }), "built-in spyre.json: cores: expected an integer");
}

TEST(ArchConfig, FileErrors) {
  test::TempDir dir;
  Json doc = read_json_file(test::source_path("models/arch/spyre.json"));
  doc["lpddr5"]["read_gbps"].erase("_source");
  test::write_json(dir.file("a.json"), doc);
  EXPECT_EQ(
      error_of([&] { load_arch(dir.file("a.json"), {}); }),
      dir.file("a.json") + ": lpddr5.read_gbps: every parameter needs a _source saying where its value comes from");
  doc = read_json_file(test::source_path("models/arch/spyre.json"));
  doc["lpddr5"]["bank_groups"] = {{"value", 4}, {"_source", "x"}};
  test::write_json(dir.file("b.json"), doc);
  EXPECT_NE(error_of([&] { load_arch(dir.file("b.json"), {}); }).find("lpddr5.bank_groups: unknown arch parameter"),
            std::string::npos);
  doc = read_json_file(test::source_path("models/arch/spyre.json"));
  doc.erase("clock_ghz");
  test::write_json(dir.file("c.json"), doc);
  EXPECT_EQ(error_of([&] { load_arch(dir.file("c.json"), {}); }),
            dir.file("c.json") + ": clock_ghz: missing parameter");
}

}  // namespace
}  // namespace spyre
