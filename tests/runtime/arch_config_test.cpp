// The arch config: defaults with sources, --set overrides, and errors.

#include <gtest/gtest.h>

#include "runtime/error.h"
#include "runtime/arch_config.h"
#include "test_support.h"

namespace spyre {
namespace {

using test::error_of;

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
  const double tflops = 2.0 * a.cores * a.corelets_per_core * a.pt.pe_rows * a.pt.pe_cols * a.pt.simd_lanes * a.clock_ghz / 1000.0;
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
  EXPECT_NE(error_of([] { load_arch("", {"lpddr5.read_gbs=300"}); }).find("--set: lpddr5.read_gbs: unknown arch parameter"), std::string::npos);
  EXPECT_EQ(error_of([] { load_arch("", {"cores=many"}); }), "--set: cores: value 'many' is not a number");
  EXPECT_EQ(error_of([] { load_arch("", {"cores"}); }), "--set: cores: expected path=value, e.g. lpddr5.read_gbps=300");
  EXPECT_EQ(error_of([] { load_arch("", {"cores=2000"}); }), "built-in spyre.json: cores: value 2000 is outside [1, 1024]");
  EXPECT_EQ(error_of([] { load_arch("", {"cores=2.5"}); }), "built-in spyre.json: cores: expected an integer");
}

TEST(ArchConfig, FileErrors) {
  test::TempDir dir;
  Json doc = read_json_file(test::source_path("models/arch/spyre.json"));
  doc["lpddr5"]["read_gbps"].erase("_source");
  test::write_json(dir.file("a.json"), doc);
  EXPECT_EQ(error_of([&] { load_arch(dir.file("a.json"), {}); }),
            dir.file("a.json") + ": lpddr5.read_gbps: every parameter needs a _source saying where its value comes from");
  doc = read_json_file(test::source_path("models/arch/spyre.json"));
  doc["lpddr5"]["bank_groups"] = {{"value", 4}, {"_source", "x"}};
  test::write_json(dir.file("b.json"), doc);
  EXPECT_NE(error_of([&] { load_arch(dir.file("b.json"), {}); }).find("lpddr5.bank_groups: unknown arch parameter"), std::string::npos);
  doc = read_json_file(test::source_path("models/arch/spyre.json"));
  doc.erase("clock_ghz");
  test::write_json(dir.file("c.json"), doc);
  EXPECT_EQ(error_of([&] { load_arch(dir.file("c.json"), {}); }), dir.file("c.json") + ": clock_ghz: missing parameter");
}

}  // namespace
}  // namespace spyre
