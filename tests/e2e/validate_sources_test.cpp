// `spyre-sim validate` over several measurement sources: the built-in
// manifest, the newer table kinds (kernels, softmax stages, the sweep's later
// ops) and forced splits as torch-spyre's planner emitted them.

#include <cmath>

#include <gtest/gtest.h>

#include <fstream>

#include "e2e_support.h"
#include "sim/run_bundle.h"
#include "studies/measurement_sources.h"
#include "studies/sweep_op_graph.h"
#include "studies/validate_splits.h"

namespace spyre::test {
namespace {

const std::string kSplitHeader = "phase,op,B,M,N,K,split_b,split_m,split_n,split_k,lx_fraction,measured_us\n";

const studies::ValidateRow& row_at_line(const studies::Validation& v, int line) {
  for (const auto& r : v.rows) {
    if (r.line == line) return r;
  }
  throw std::runtime_error("no row at line " + std::to_string(line));
}

// models/calibration/sources.json names every source the built-in arch is
// judged on, each with tables that exist; GPT-OSS and Granite say their
// forced splits ran as torch-spyre's planner emitted them.
TEST(ValidateSources, TheBuiltInManifestListsEverySource) {
  const auto sources = studies::load_measurement_sources({source_path("models/calibration")});
  std::vector<std::string> names;
  for (const auto& s : sources) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"granite-splits", "gpt-oss-prefill", "add-bcast-sweep", "more-sweeps",
                                             "softmax-seed000", "swiglu-kernels"}));
  EXPECT_EQ(sources[3].tables.size(), 10u);
  ASSERT_TRUE(sources[1].forced_splits);
  EXPECT_EQ(*sources[1].forced_splits, studies::ForcedSplits::kAsEmitted);
  EXPECT_FALSE(sources[2].forced_splits);
  // A CSV is a source of its own, a folder without a manifest one of its CSVs.
  const auto one = studies::load_measurement_sources(
      {source_path("models/calibration/softmax_seed000/stages.csv"), source_path("models/calibration/more_sweeps")});
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].name, "stages");
  EXPECT_EQ(one[1].name, "more_sweeps");
  EXPECT_EQ(one[1].tables.size(), 10u);
  // A table given alone runs as the manifest listing it says (GPT-OSS's forced splits as emitted); one no
  // manifest lists, as given.
  const auto gpt = studies::load_measurement_sources({source_path("models/calibration/gpt_oss_prefill/splits.csv")});
  ASSERT_TRUE(gpt.at(0).forced_splits);
  EXPECT_EQ(*gpt[0].forced_splits, studies::ForcedSplits::kAsEmitted);
  EXPECT_EQ(gpt[0].name, "splits");
  EXPECT_FALSE(one[0].forced_splits);  // softmax_seed000: listed, without forced_splits
  TempDir dir;
  write_text(dir.file("alone.csv"), "op,rows,cols,cores,kernel_us_median\nadd,64,64,1,1.0\n");
  EXPECT_FALSE(studies::load_measurement_sources({dir.file("alone.csv")}).at(0).forced_splits);
}

TEST(ValidateSources, BadManifestsGetOneLineNamingTheField) {
  TempDir dir;
  const std::string manifest = dir.file("sources.json");
  auto error_for = [&](const std::string& text) {
    write_text(manifest, text);
    return error_of([&] { studies::load_measurement_sources({manifest}); });
  };
  write_text(dir.file("a.csv"), "op,rows,cols,cores,measured_us\nadd,64,128,1,5\n");
  EXPECT_EQ(error_for("{\"sources\": []}"), manifest + ": $.sources: expected a non-empty list of sources");
  EXPECT_EQ(error_for("{\"sources\": [{\"name\": \"a\", \"tables\": [\"b.csv\"]}]}"),
            manifest + ": $.sources[0].tables[0]: no table '" + dir.file("b.csv") + "'");
  EXPECT_EQ(error_for("{\"sources\": [{\"name\": \"a\", \"tables\": [\"a.csv\"], \"rows\": 3}]}"),
            manifest + ": $.sources[0].rows: unknown field (expected name, tables, about, forced_splits)");
  EXPECT_EQ(error_for("{\"sources\": [{\"name\": \"a\", \"tables\": [\"a.csv\"], \"forced_splits\": \"maybe\"}]}"),
            manifest + ": $.sources[0].forced_splits: expected as-emitted or as-given");
  EXPECT_EQ(error_for("{\"sources\": [{\"name\": \"a\", \"tables\": [\"a.csv\"]}, {\"name\": \"a\", \"tables\": "
                      "[\"a.csv\"]}]}"),
            dir.file("a.csv") + ": a second source named 'a' (each source needs its own name)");
  EXPECT_EQ(error_of([&] { studies::load_measurement_sources({dir.file("none.csv")}); }).rfind(dir.file("none.csv"), 0),
            0u);
}

// The GPT-OSS sweep forced each split through torch-spyre's planner of
// 2026-06-14, which compiled its default division for any split on fewer
// cores than that (the card ran 1_4_4_1 of K/V proj in 143.96 us, 1_32_1_1 in
// 145.94, 1_4_8_1 in 46.65). As emitted, the 16-core row runs 1_32_1_1 and
// times exactly as that row; as given it runs on 16 cores.
TEST(ValidateSources, ForcedSplitsRunAsTorchSpyresPlannerEmittedThem) {
  TempDir dir;
  const std::string table = dir.file("gpt.csv");
  write_text(table, kSplitHeader +
                        "prefill,K/V proj,1,512,512,2880,1,4,4,1,1.0,143.96\n"
                        "prefill,K/V proj,1,512,512,2880,1,32,1,1,1.0,145.94\n"
                        "prefill,K/V proj,1,512,512,2880,1,4,8,1,1.0,46.65\n"
                        "prefill,K/V proj,1,512,512,2880,1,2,4,3,1.0,145.27\n");
  auto o = studies::ValidateOptions{};
  o.table = table;
  o.forced_splits = studies::ForcedSplits::kAsEmitted;
  const auto emitted = studies::run_validate(o);
  ASSERT_EQ(emitted.rows.size(), 4u);
  EXPECT_EQ(emitted.rows[0].ran_as, "1_32_1_1");
  EXPECT_EQ(emitted.rows[0].simulated_us, emitted.rows[1].simulated_us);
  EXPECT_EQ(emitted.rows[1].ran_as, "");  // the default itself
  EXPECT_EQ(emitted.rows[2].ran_as, "");  // a 32-core split it emits
  EXPECT_EQ(emitted.rows[3].ran_as, "1_32_1_1");
  EXPECT_LT(emitted.rows[2].simulated_us, 0.6 * emitted.rows[1].simulated_us);
  o.forced_splits = studies::ForcedSplits::kAsGiven;
  const auto given = studies::run_validate(o);
  EXPECT_EQ(given.rows[0].ran_as, "");
  EXPECT_NE(given.rows[0].simulated_us, emitted.rows[0].simulated_us);
  const auto cli = run_cli("validate " + table + " --forced-splits as-emitted");
  EXPECT_EQ(cli.exit_code, 0) << cli.output;
  EXPECT_NE(cli.output.find("(ran as 1_32_1_1)"), std::string::npos) << cli.output;
  const auto bad = run_cli("validate " + table + " --forced-splits sometimes");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
}

// The sweep's later ops as the harness ran them (x + 1.0 for "copy", a row
// sum for "read", an outer sum for "write"), each within 15% of the card.
// Under coarse tiling (tiles 8) a row softmax runs as 8 loop iterations over
// row tiles, a column sum as 8 over the rows it reduces; cat0 as an expand.
TEST(ValidateSources, TheSweepsLaterOpsRunAsTheHarnessDefinedThem) {
  TempDir dir;
  const std::string table = dir.file("more.csv");
  write_text(table,
             "op,rows,cols,tiles,cores,lx,kernel_us_median,memset_us\n"
             "copy,2048,8192,0,4,0,543.788,167.952\n"
             "read,4096,2048,1,1,1,982.254,42.2\n"
             "sumrow,2048,8192,1,32,1,221.7,31.671\n"
             "write,8192,1024,0,32,0,132.55,112.963\n"
             "mulbcast,2048,4096,0,32,0,277.907,98.072\n"
             "neg,2048,4096,0,32,1,320.903,117.6\n"
             "ctsum,2048,512,1,32,0,18.535,23.106\n"
             "softmax_row_tiling,4096,2048,1,16,1,397.348,120.625\n"
             "softmax_row_tiling,4096,2048,8,16,1,472.517,120.14\n"
             "ctsum,2048,512,8,32,0,68.076,23.1\n"
             "cat0,1024,1024,0,32,0,67.855,79.909\n");
  studies::ValidateOptions o;
  o.table = table;
  const auto v = studies::run_validate(o);
  ASSERT_EQ(v.rows.size(), 11u);
  EXPECT_TRUE(v.skipped.empty());
  for (const auto& row : v.rows) {
    // cat0 runs as one expand kernel and the model is 23-80% fast on it
    // (docs/calibration.md, "cat0"): not yet a number to hold it to.
    if (row.shape.rfind("cat0", 0) == 0) continue;
    EXPECT_LT(std::fabs(row.error()), 0.15) << row.shape << " " << row.split;
  }
  EXPECT_EQ(studies::sweep_op_programs("write", 64, 128)->at(0).graph.tensors.size(), 3u);
}

// Real bundles with measured kernel times (swiglu/MEASURED.csv: case, kernel)
// and seed 000's softmax stages (whole-bundle latency, as `study softmax-lx`),
// run together as two sources in one pool.
TEST(ValidateSources, KernelTablesAndSoftmaxStagesRunAsSources) {
  TempDir dir;
  studies::ValidateOptions o;
  o.tables = {bundle_path("torch-spyre/swiglu/MEASURED.csv"),
              source_path("models/calibration/softmax_seed000/stages.csv")};
  o.csv_path = dir.file("rows.csv");
  o.where = {};
  const auto all = studies::run_validate_sources(o);
  ASSERT_EQ(all.sources.size(), 2u);
  EXPECT_EQ(all.sources[0].name, "MEASURED");
  ASSERT_EQ(all.sources[0].rows.size(), 4u);
  EXPECT_EQ(all.sources[0].rows[1].shape, "small_bmm sdsc_fused_bmm_1_n673lgwk");
  EXPECT_NE(all.sources[0].rows[1].source.find("small_bmm/sdsc_fused_bmm_1_n673lgwk"), std::string::npos);
  // The decode kernels read their weights in 256-byte (down) and 1 KiB
  // (gate/up) runs per core; LPDDR5's cost per access (derived, never fitted
  // to them) puts both within 20% of the card (2196.9 and 1834.9 us).
  for (int row : {2, 3}) {
    EXPECT_LT(std::fabs(all.sources[0].rows[row].error()), 0.20) << all.sources[0].rows[row].shape;
  }
  EXPECT_GT(all.sources[0].rows[3].simulated_us, 1650.0);  // 105 MB at ~57 GB/s, not at 150
  const auto& softmax = all.sources[1];
  ASSERT_EQ(softmax.rows.size(), 5u);
  EXPECT_EQ(softmax.rows[0].shape, "softmax 512x1024 dim 0 baseline");
  // The seed's order: each stage faster on one core, four cores slower.
  EXPECT_GT(softmax.rows[0].simulated_us, softmax.rows[2].simulated_us);
  EXPECT_GT(softmax.rows[4].simulated_us, softmax.rows[3].simulated_us);
  for (const auto& row : softmax.rows) EXPECT_LT(std::fabs(row.error()), 0.10) << row.shape;
  EXPECT_EQ(row_at_line(softmax, 6).split, "4 cores");
  EXPECT_EQ(all.report["sources"].size(), 2u);
  EXPECT_EQ(all.report["sources"][1]["source"], "stages");
  EXPECT_NE(studies::sources_summary_table(all).find("stages"), std::string::npos);
  std::ifstream csv(o.csv_path);
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "source_name,line,op,shape,split,ran_as,lx,source,measured_us,simulated_us,error_pct");
}

// What bounds a kernel: a one-core amax reduces within sticks on the SFU
// (compute-bound: 971 us measured), a 32-core add streams through LPDDR5;
// every core's shares of the kernel's window sum to one.
// `validate --explain LINE` prints them next to the measurement.
TEST(ValidateSources, ExplainNamesWhatBoundsEachKernel) {
  TempDir dir;
  const std::string table = dir.file("t.csv");
  write_text(table,
             "op,rows,cols,cores,lx,kernel_us_median\n"
             "amax,4096,2048,1,1,971.189\n"
             "add,2048,4096,32,0,439.586\n");
  studies::ValidateOptions o;
  o.table = table;
  const std::string amax = studies::explain_row(o, 2);
  EXPECT_NE(amax.find("measured 971.2 us, simulated"), std::string::npos) << amax;
  EXPECT_NE(amax.find("core 0 bound by sfu: "), std::string::npos) << amax;
  const std::string add = studies::explain_row(o, 3);
  EXPECT_NE(add.find("32 cores"), std::string::npos) << add;
  EXPECT_NE(add.find("core 31  done at"), std::string::npos) << add;
  // The report's kernels carry the shares: the add's slowest core waits on LPDDR5 most.
  const auto v = studies::run_validate(o);
  ASSERT_EQ(v.rows.size(), 2u);
  sim::RunOptions run;
  TempDir out;
  run.bundle = bundle_path("synthetic/add_4096x4096");
  run.report_path = out.file("r.json");
  sim::run_bundle(run);
  const Json r = read_json_file(run.report_path);
  const Json& bound = r["kernels"][0]["bound"];
  EXPECT_EQ(bound["by"], "lpddr5") << bound.dump();
  EXPECT_EQ(bound["cores"].size(), 32u);
  for (const auto& c : bound["cores"]) {
    double sum = 0;
    for (const auto& [name, pct] : c["shares_pct"].items()) sum += pct.get<double>();
    EXPECT_NEAR(sum, 100, 0.1) << c.dump();
  }
  EXPECT_EQ(error_of([&] { studies::explain_row(o, 9); }), table + ": --explain 9: no row on that line");
  const auto cli = run_cli("validate " + table + " --explain 3");
  EXPECT_EQ(cli.exit_code, 0) << cli.output;
  EXPECT_NE(cli.output.find("what bounds each kernel"), std::string::npos) << cli.output;
}

}  // namespace
}  // namespace spyre::test
