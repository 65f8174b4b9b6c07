// `spyre-sim calibrate`: a fit recovers a parameter the measurements were
// made with, each source is also scored left out of the fit, runs are kept
// and resumed, and bad parameters or a stale run file are refused.

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "e2e_support.h"
#include "runtime/arch_config.h"
#include "studies/calibrate.h"

namespace spyre::test {
namespace {

// Seed 000's softmax stages as a table whose "measured" times are the model's
// own with the bundle launch at `overhead_us`: a fit must find that value.
std::string synthetic_stages(const TempDir& dir, const std::string& name, double overhead_us) {
  studies::ValidateOptions o;
  o.table = source_path("models/calibration/softmax_seed000/stages.csv");
  o.arch_overrides = {"launch.bundle_overhead_us=" + std::to_string(overhead_us)};
  const auto v = studies::run_validate(o);
  std::string text = "stage,op,rows,cols,dim,lx_stage,cores,measured_us\n";
  const char* stages[] = {"0", "2", "3", "4", "4"};
  for (size_t i = 0; i < v.rows.size(); ++i) {
    text += std::string("s,softmax,512,1024,0,") + stages[i] + "," + (i == 4 ? "4," : "1,") +
            std::to_string(v.rows[i].simulated_us) + "\n";
  }
  const std::string path = dir.file(name);
  write_text(path, text);
  return path;
}

studies::CalibrateOptions options(const std::vector<std::string>& tables, const std::string& out) {
  studies::CalibrateOptions o;
  o.validate.tables = tables;
  o.params = {"launch.bundle_overhead_us=5:40"};
  o.output_dir = out;
  return o;
}

// Measured with a 20 us launch, fitted from 11 us: the fit lands within 5% of
// 20 and every row within 1%; the arch file it writes loads and says how the
// value was found.
TEST(Calibrate, AFitFindsTheValueTheMeasurementsWereMadeWith) {
  TempDir dir;
  const std::string table = synthetic_stages(dir, "a.csv", 20);
  const auto c = studies::run_calibrate(options({table}, dir.file("out")));
  ASSERT_EQ(c.params.size(), 1u);
  EXPECT_EQ(c.params[0].start, 11);
  EXPECT_EQ(c.params[0].lo, 5);
  ASSERT_EQ(c.fits.size(), 1u);  // one source: nothing to leave out
  EXPECT_NEAR(c.fits[0].values[0], 20, 1.0);
  EXPECT_LT(c.fits[0].modelled_objective, 0.5 * c.fits[0].modelled_start);
  ASSERT_EQ(c.sources.size(), 1u);
  EXPECT_GT(c.sources[0].before.median_abs_error, 0.15);
  EXPECT_LT(c.sources[0].in_fit.median_abs_error, 0.01);
  const ArchConfig fitted = load_arch(dir.file("out/arch.json"), {});
  EXPECT_NEAR(fitted.launch.bundle_overhead_us, c.fits[0].values[0], 1e-9);
  const auto sources = arch_sources(dir.file("out/arch.json"), {});
  EXPECT_EQ(sources.at("launch.bundle_overhead_us").rfind("calibrated by spyre-sim calibrate: ", 0), 0u);
  EXPECT_NE(sources.at("launch.bundle_overhead_us").find("was 11 ("), std::string::npos);
  EXPECT_EQ(sources.at("lpddr5.latency_ns"), arch_sources("", {}).at("lpddr5.latency_ns"));
  EXPECT_EQ(read_json_file(dir.file("out/calibration.json"))["sources"][0]["source"], "a");
}

// Two sources that disagree (launch 20 us and 6 us): fitted together the
// value falls between; each left out is predicted by the other alone, so its
// left-out error is far above its error in the fit.
TEST(Calibrate, EachSourceLeftOutIsScoredByTheFitOfTheOthers) {
  TempDir dir;
  const std::string slow = synthetic_stages(dir, "slow.csv", 20), fast = synthetic_stages(dir, "fast.csv", 6);
  const auto c = studies::run_calibrate(options({slow, fast}, dir.file("out")));
  ASSERT_EQ(c.fits.size(), 3u);
  EXPECT_EQ(c.fits[1].left_out, "slow");
  EXPECT_NEAR(c.fits[1].values[0], 6, 0.5);   // fitted to fast alone
  EXPECT_NEAR(c.fits[2].values[0], 20, 1.0);  // to slow alone
  EXPECT_GT(c.fits[0].values[0], 6.5);
  EXPECT_LT(c.fits[0].values[0], 19.5);
  for (const auto& s : c.sources) {
    EXPECT_GT(s.left_out.median_abs_error, s.in_fit.median_abs_error) << s.name;
    EXPECT_GT(s.left_out.median_abs_error, 0.2) << s.name;
  }
  EXPECT_NE(studies::calibration_markdown(c).find("| slow | 5 | 5 |"), std::string::npos);
}

// Every run is kept in evaluations.jsonl; the same call again runs nothing
// and gives the same fit. Changed options make the file stale: refused.
TEST(Calibrate, ARerunResumesFromItsRunsAndRefusesAStaleFile) {
  TempDir dir;
  const std::string table = synthetic_stages(dir, "a.csv", 20);
  auto o = options({table}, dir.file("out"));
  const auto first = studies::run_calibrate(o);
  EXPECT_GT(first.simulations, 0u);
  const auto again = studies::run_calibrate(o);
  EXPECT_EQ(again.simulations, 0u);
  EXPECT_GT(again.cached, 0u);
  EXPECT_EQ(again.fits[0].values, first.fits[0].values);
  o.validate.warmup = 0;
  EXPECT_EQ(error_of([&] { studies::run_calibrate(o); }),
            dir.file("out/evaluations.jsonl") +
                ": line 1: written for other sources or options; remove it or choose another output folder to start "
                "over");
}

TEST(Calibrate, BadParametersGetOneLine) {
  TempDir dir;
  const std::string table = synthetic_stages(dir, "a.csv", 20);
  auto error_for = [&](std::vector<std::string> params) {
    auto o = options({table}, dir.file("out"));
    o.params = std::move(params);
    return error_of([&] { studies::run_calibrate(o); });
  };
  EXPECT_EQ(error_for({"lpddr5.speed"}), "--param: lpddr5.speed: unknown arch parameter (`spyre-sim arch` lists them)");
  EXPECT_EQ(error_for({"launch.sdsc_overhead_ns"}),
            "--param: launch.sdsc_overhead_ns: its value is 0: give a range, path=lo:hi");
  EXPECT_EQ(error_for({"launch.bundle_overhead_us=20:40"}),
            "--param: launch.bundle_overhead_us=20:40: the range must hold the parameter's value 11");
  EXPECT_EQ(error_for({"launch.bundle_overhead_us=40:5"}),
            "--param: launch.bundle_overhead_us=40:5: the range must have lo < hi");
  EXPECT_EQ(error_for({"launch.bundle_overhead_us=a:5"}),
            "--param: launch.bundle_overhead_us=a:5: 'a' is not a number");
  EXPECT_EQ(error_for({"launch.bundle_overhead_us", "launch.bundle_overhead_us"}),
            "--param: launch.bundle_overhead_us: given twice");
  const auto cli = run_cli("calibrate " + table + " -o " + dir.file("o2"));
  EXPECT_EQ(cli.exit_code, 1) << cli.output;
  EXPECT_NE(cli.output.find("--param"), std::string::npos) << cli.output;
}

}  // namespace
}  // namespace spyre::test
