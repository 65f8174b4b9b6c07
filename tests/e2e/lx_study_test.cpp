// LX planning end to end: the softmax stage study's bytes against the seed's
// formulas, the multi-core LX case, LX placements in the SDSCs, and `run --vf`.

#include <gtest/gtest.h>

#include "compiler/compile_job.h"
#include "runtime/json_node.h"
#include "sim/run_bundle.h"
#include "studies/study_softmax_lx.h"
#include "test_support.h"

namespace spyre {
namespace {

using test::error_of;
using test::run_cli;
using test::TempDir;

studies::SoftmaxStudy study(int64_t m, int64_t n, int cores = 4) {
  studies::SoftmaxStudyOptions o;
  o.rows = m;
  o.cols = n;
  o.multi_cores = cores;
  return studies::run_softmax_study(o);
}

TEST(SoftmaxStudy, BytesEqualTheSeedsFormulasForSeveralShapes) {
  for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{512, 1024}, {256, 512}, {128, 2048}, {64, 64}}) {
    const auto s = study(m, n);
    ASSERT_EQ(s.rows.size(), 5u);
    const int64_t mn = m * n;
    const std::vector<int64_t> want = {2 * (8 * mn + 4 * n), 2 * 8 * mn, 2 * 3 * mn, 2 * 2 * mn, 2 * 2 * mn};
    for (size_t r = 0; r < 5; ++r) {
      EXPECT_EQ(s.rows[r].formula_bytes, want[r]) << m << "x" << n << " row " << r;
      EXPECT_EQ(s.rows[r].hbm_bytes, want[r])
          << m << "x" << n << " row " << r << " (" << s.rows[r].stage << ", " << s.rows[r].cores << " cores)";
    }
  }
}

// The calibration targets (docs/calibration.md): with the built-in arch every
// row within 10% of the seed's median, and the rows in the measured order
// (each stage faster, the 4-core row slower than one core).
TEST(SoftmaxStudy, LatenciesAreWithinTenPercentOfTheMeasurementsInTheirOrder) {
  const auto s = study(512, 1024);
  for (const auto& r : s.rows) {
    EXPECT_NEAR(r.latency_us, *r.measured_us, 0.10 * *r.measured_us) << r.stage << " on " << r.cores << " cores";
  }
  EXPECT_GT(s.rows[0].latency_us, s.rows[1].latency_us);
  EXPECT_GT(s.rows[1].latency_us, s.rows[2].latency_us);
  EXPECT_GT(s.rows[2].latency_us, s.rows[3].latency_us);
  EXPECT_GT(s.rows[4].latency_us, s.rows[3].latency_us);
}

TEST(SoftmaxStudy, RowsAreTheSeedsVariantsWithItsMeasurements) {
  const auto s = study(512, 1024);
  const std::vector<std::string> stages = {"baseline", "stage2", "stage3", "stage4", "stage4"};
  const std::vector<double> measured = {32.51, 27.66, 23.93, 23.67, 32.17};
  for (size_t r = 0; r < 5; ++r) {
    EXPECT_EQ(s.rows[r].stage, stages[r]);
    EXPECT_EQ(s.rows[r].cores, r == 4 ? 4 : 1);
    ASSERT_TRUE(s.rows[r].measured_us.has_value());
    EXPECT_DOUBLE_EQ(*s.rows[r].measured_us, measured[r]);
    EXPECT_GT(s.rows[r].latency_us, 0);
  }
  for (size_t r = 1; r < 4; ++r)
    EXPECT_LT(s.rows[r].hbm_bytes, s.rows[r - 1].hbm_bytes);  // each stage moves fewer bytes
  EXPECT_EQ(s.report.at("rows").size(), 5u);
  EXPECT_FALSE(study(256, 512).rows[0].measured_us.has_value());  // measured only for the seed's shape
}

// (1024, 2048) fp16 is 4 MiB: one core's usable LX holds none of the
// matrix-sized buffers; on four cores each slice is 1 MiB and all fit.
TEST(SoftmaxStudy, LargeShapeFitsOnlyAcrossFourCores) {
  const auto s = study(1024, 2048);
  EXPECT_EQ(s.rows[3].lx_buffers, 2);  // one core: only the two 1 x N vectors
  EXPECT_GT(s.rows[3].hbm_bytes, s.rows[3].formula_bytes);
  EXPECT_EQ(s.rows[4].lx_buffers, s.rows[4].lx_candidates);
  EXPECT_EQ(s.rows[4].hbm_bytes, s.rows[4].formula_bytes);
  EXPECT_EQ(s.rows[4].lx_peak_bytes,
            1048576 + 1024);  // a core's 256-column slice of x.lx/sub/exp plus one 1 x 256 vector (padded rows)
}

TEST(SoftmaxStudy, BadShapesAndCoresAreRejected) {
  EXPECT_NE(error_of([] { study(100, 1000); }).find("not a whole number of 64-element fp16 sticks"), std::string::npos);
  EXPECT_NE(error_of([] { study(512, 1024, 33); }).find("--cores"), std::string::npos);
  const auto r = run_cli("study softmax-lx --shape 512");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("M x N"), std::string::npos) << r.output;
}

TEST(LxPlanning, PlacedTensorsAreLxAllocationsAtOneAddressOnEveryCore) {
  TempDir dir;
  const auto r =
      run_cli("compile --workload softmax --shape 512x1024 --dim 0 --cores 4 --lx-planning --solver bestfit -o " +
              dir.file("p") + " --decisions " + dir.file("d.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("LX planning: stage 4, solver bestfit, 5 of 5"), std::string::npos) << r.output;
  const Json d = read_json_file(dir.file("d.json"));
  EXPECT_EQ(d.at("lx").at("placed"), 5);
  EXPECT_EQ(d.at("predicted_hbm_bytes"), 2 * 2 * 512 * 1024);
  // sdsc_1 is the max reduction: it reads the clone from LX and writes y.max to LX.
  const Json sdsc = read_json_file(dir.file("p/sdsc_1.json"));
  const Json& dsc = sdsc.begin().value().at("dscs_").at(0).begin().value();
  int lx = 0;
  for (const auto& node : dsc.at("scheduleTree_")) {
    if (node.at("component_") != "lx") continue;
    ++lx;
    std::set<std::string> addresses;
    for (const auto& [core, address] : node.at("startAddressCoreCorelet_").at("data_").items())
      addresses.insert(address.get<std::string>());
    EXPECT_EQ(addresses.size(), 1u);
  }
  EXPECT_EQ(lx, 2);
  const auto bad =
      run_cli("compile --workload softmax --shape 64x64 -o " + dir.file("q") + " --lx-planning --lx-stage 5");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("--lx-stage"), std::string::npos);
}

// With two argument segments the program splits into two bundles; the last
// op reads exp and sum from LX written by the first bundle.
TEST(LxPlanning, VfWipesLxAtBundleBoundariesAndReportsTheReads) {
  TempDir dir;
  const std::string arch = " --set address.segments=2 --set address.program_segment=1";
  ASSERT_EQ(run_cli("compile --workload softmax --shape 64x256 --dim 0 --cores 1 --lx-planning -o " + dir.file("p") +
                    " --emit-io " + dir.file("io") + arch)
                .exit_code,
            0);
  sim::RunOptions run;
  run.bundle = dir.file("p");
  run.inputs_dir = dir.file("io/inputs");
  run.expect_dir = dir.file("io/reference");
  run.arch_overrides = {"address.segments=2", "address.program_segment=1"};
  const auto persistent = sim::run_bundle(run);
  EXPECT_TRUE(persistent.report.hazards.empty());
  EXPECT_FALSE(persistent.expect_failed);
  run.vf = true;
  const auto wiped = sim::run_bundle(run);
  ASSERT_EQ(wiped.report.hazards.size(), 2u);
  for (const auto& h : wiped.report.hazards) {
    EXPECT_EQ(h.kind, "lx_wiped_read");
    EXPECT_NE(h.detail.find("written in bundle bundle_0"), std::string::npos) << h.detail;
  }
  EXPECT_TRUE(wiped.expect_failed);  // the values really are gone
  EXPECT_TRUE(wiped.report.lx_wiped_at_bundles);
}

}  // namespace
}  // namespace spyre
