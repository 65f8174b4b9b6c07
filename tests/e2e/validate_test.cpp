// `spyre-sim validate`: measured kernel tables run on the card model, ranked
// per shape, and bad tables refused with one line.

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "compiler/codegen/program_writer.h"
#include "compiler/compiler.h"
#include "compiler/reference/emit_io.h"
#include "e2e_support.h"
#include "sim/run_bundle.h"
#include "sim/schedule/kernel_plan.h"
#include "studies/matmul_split.h"
#include "studies/sweep_op_graph.h"
#include "studies/validate_splits.h"

namespace spyre::test {
namespace {

const std::string kHeader = "phase,op,B,M,N,K,split_b,split_m,split_n,split_k,lx_fraction,measured_us,kernel\n";

std::string calibration_kernels() { return source_path("models/calibration/granite_matmul/kernels"); }

studies::ValidateOptions options_for(const std::string& table) {
  studies::ValidateOptions o;
  o.table = table;
  return o;
}

// Writes `text` as the table and returns the one-line error validate gives it.
std::string validate_error(const std::string& table, const std::string& text, std::vector<std::string> where = {}) {
  write_text(table, text);
  auto o = options_for(table);
  o.where = std::move(where);
  return error_of([&] { studies::run_validate(o); });
}

TEST(Validate, SpearmanRanksWithTiesSharingTheirMeanRank) {
  EXPECT_DOUBLE_EQ(studies::spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(studies::spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // ranks (0.5, 0.5, 2) vs (0, 1, 2): cov 1.5, var 1.5 and 2.
  EXPECT_NEAR(studies::spearman({5, 5, 9}, {1, 2, 3}), 1.5 / std::sqrt(1.5 * 2.0), 1e-12);
  EXPECT_TRUE(std::isnan(studies::spearman({1, 2}, {1, 2})));        // too few
  EXPECT_TRUE(std::isnan(studies::spearman({1, 1, 1}, {1, 2, 3})));  // no spread
}

// The decode down projection streams 105 MB of weights: its time is what
// LPDDR5 sustains, on the card (685.5 us) and in the model. Its own SDSC and
// the same split compiled here agree; the 1_32_1_1 split, where each core
// reads every weight column for 2 rows, is slower in both.
TEST(Validate, RunsBundlesAndCompiledRowsAndRanksTheSplits) {
  TempDir dir;
  const std::string table = dir.file("t.csv");
  write_text(table, kHeader +
                        "decode,MLP down,1,64,4096,12800,1,4,8,1,0.2,685.5,"
                        "decode_MLP_down_1x64x4096x12800_1_4_8_1\n"
                        "decode,MLP down,1,64,4096,12800,1,4,8,1,0.2,685.5,\n"
                        "decode,MLP down,1,64,4096,12800,1,32,1,1,0.2,2561.3,\n");
  // The table names a kernel under kernels/ next to it.
  std::filesystem::create_directory(dir.file("kernels"));
  std::filesystem::copy(calibration_kernels() + "/decode_MLP_down_1x64x4096x12800_1_4_8_1",
                        dir.file("kernels/decode_MLP_down_1x64x4096x12800_1_4_8_1"));
  auto o = options_for(table);
  o.report_path = dir.file("r.json");
  const auto v = studies::run_validate(o);
  ASSERT_EQ(v.rows.size(), 3u);
  EXPECT_EQ(v.rows[0].source, dir.file("kernels/decode_MLP_down_1x64x4096x12800_1_4_8_1"));
  EXPECT_EQ(v.rows[1].source, "compiled");
  EXPECT_EQ(v.rows[0].line, 2);
  EXPECT_EQ(v.rows[0].split, "1_4_8_1");
  EXPECT_EQ(v.rows[0].shape, "decode MLP down 1x64x4096x12800");
  EXPECT_NEAR(v.rows[0].simulated_us, 685.5, 0.2 * 685.5);
  EXPECT_NEAR(v.rows[1].simulated_us, v.rows[0].simulated_us, 0.05 * v.rows[0].simulated_us);
  EXPECT_GT(v.rows[2].simulated_us, 1.5 * v.rows[1].simulated_us);
  ASSERT_EQ(v.groups.size(), 1u);
  EXPECT_EQ(v.groups[0].lx, "0.2");
  EXPECT_EQ(v.rows[v.groups[0].pick].split, "1_4_8_1");
  ASSERT_EQ(v.summary.ranking.size(), 1u);
  EXPECT_DOUBLE_EQ(v.summary.ranking[0].picks_us, 685.5);
  EXPECT_DOUBLE_EQ(v.summary.ranking[0].best_us, 685.5);
  const Json r = read_json_file(o.report_path);
  EXPECT_EQ(r["rows"].size(), 3u);
  EXPECT_EQ(r["groups"][0]["model_pick"], "1_4_8_1");
  EXPECT_EQ(r["summary"]["rows"], 3);
  EXPECT_EQ(r["summary"]["ranking"][0]["picks_over_best_pct"], 0.0);
}

// The LX fraction of a row reaches the card: more staging, fewer tiles.
TEST(Validate, EachRowRunsAtItsOwnLxFraction) {
  TempDir dir;
  const std::string table = dir.file("t.csv");
  write_text(table, kHeader +
                        "prefill,QK^T,512,32,512,128,1,4,8,1,0.2,1630,\n"
                        "prefill,QK^T,512,32,512,128,1,4,8,1,1.0,734,\n");
  const auto v = studies::run_validate(options_for(table));
  ASSERT_EQ(v.groups.size(), 2u);
  EXPECT_EQ(v.groups[1].lx, "1");
  ASSERT_TRUE(v.rows[1].lx_fraction);
  EXPECT_DOUBLE_EQ(*v.rows[1].lx_fraction, 1.0);
  EXPECT_LE(v.rows[1].simulated_us, v.rows[0].simulated_us);
}

TEST(Validate, WhereKeepsTheRowsThatMatch) {
  TempDir dir;
  const std::string table = dir.file("t.csv");
  write_text(table, kHeader +
                        "decode,K/V proj,1,64,1024,4096,1,1,1,32,0.2,73.17,\n"
                        "prefill,K/V proj,1,512,1024,4096,1,4,8,1,0.2,89.4,\n");
  auto o = options_for(table);
  o.where = {"phase=prefill"};
  const auto v = studies::run_validate(o);
  ASSERT_EQ(v.rows.size(), 1u);
  EXPECT_EQ(v.rows[0].line, 3);
}

TEST(Validate, BadTablesGetOneLineNamingLineAndColumn) {
  TempDir dir;
  const std::string table = dir.file("t.csv");
  auto error_for = [&](const std::string& text, std::vector<std::string> where = {}) {
    return validate_error(table, text, std::move(where));
  };
  const std::string row = "decode,K/V proj,1,64,1024,4096,1,1,1,32,";
  EXPECT_EQ(error_for(""), table + ": line 1: empty file: expected a header row naming the columns");
  EXPECT_EQ(error_for("B,M,N\n1,2,3\n"),
            table + ": line 1: no column 'K' (required: B, M, N, K, split_b, split_m, split_n, split_k, measured_us)");
  EXPECT_EQ(error_for(kHeader + row + "0.2,fast,\n"), table + ": line 2, column measured_us: 'fast' is not a number");
  EXPECT_EQ(error_for(kHeader + row + "0.2,-3,\n"),
            table + ": line 2, column measured_us: a device time must be positive");
  EXPECT_EQ(error_for(kHeader + row + "1.5,70,\n"),
            table + ": line 2, column lx_fraction: must be in (0, 1] (DXP_LX_FRAC_AVAIL)");
  EXPECT_EQ(error_for(kHeader + row + "0.2,70\n"), table + ": line 2: 12 cells, the header has 13");
  EXPECT_EQ(error_for(kHeader + row + "0.2,70,\"nowhere\n"), table + ": line 2: a quoted cell is never closed");
  EXPECT_EQ(
      error_for(kHeader + row + "0.2,70,nowhere\n"),
      table +
          ": line 2, column kernel: no bundle directory 'nowhere' next to the table, in its kernels/ folder or its "
          "case's");
  EXPECT_EQ(error_for(kHeader + "decode,K/V proj,1,64,1024,4096,1,2,1,32,0.2,70,\n"),
            table + ": line 2, column split_b: the splits use 64 cores; the card has 32");
  EXPECT_EQ(error_for(kHeader + "decode,K/V proj,1,64,1024,4096,2,1,1,16,0.2,70,\n"),
            table + ": line 2, column split_b: B is 1: nothing to split");
  EXPECT_EQ(error_for(kHeader + "decode,K/V proj,1,six,1024,4096,1,1,1,32,0.2,70,\n"),
            table + ": line 2, column M: 'six' is not an integer >= 1");
  EXPECT_EQ(error_for(kHeader + row + "0.2,70,\n", {"model=granite"}),
            table + ": --where model=granite: the table has no column 'model'");
  EXPECT_EQ(error_for(kHeader + row + "0.2,70,\n", {"phase=prefill"}), table + ": --where: no row is left to validate");
  // A table none of whose splits the compiler can make names the first row.
  const std::string e = error_for(kHeader + "decode,K/V proj,1,64,1024,4096,1,1,3,1,0.2,70,\n");
  EXPECT_EQ(e.rfind(table + ": line 2: no row could be run: the compiler cannot make it: ", 0), 0u) << e;
}

// A row the compiler refuses is listed with the reason and the others run;
// a dim ending in a partial stick (N = 1000: 16 padded sticks) splits as
// torch-spyre splits it.
TEST(Validate, SkipsRowsTheCompilerCannotMakeAndRunsTheRest) {
  TempDir dir;
  const std::string table = dir.file("t.csv");
  write_text(table, kHeader +
                        "prefill,odd proj,1,1000,1000,4096,1,4,8,1,0.5,200,\n"
                        "prefill,odd proj,1,1000,1000,4096,1,1,32,1,0.5,200,\n"
                        "prefill,odd proj,1,1000,1000,4096,1,2,16,1,1.0,200,\n");
  const auto v = studies::run_validate(options_for(table));
  ASSERT_EQ(v.rows.size(), 2u);
  EXPECT_EQ(v.rows[0].split, "1_4_8_1");
  EXPECT_EQ(v.rows[1].split, "1_2_16_1");
  for (const auto& row : v.rows) EXPECT_GT(row.simulated_us, 0) << row.split;
  ASSERT_EQ(v.skipped.size(), 1u);
  EXPECT_EQ(v.skipped[0].line, 3);
  EXPECT_EQ(v.skipped[0].reason,
            "the compiler cannot make it: --split c: dim 'out' has 16 sticks (the last one partial), which 32 slices "
            "do not divide");
}

// Rows run in worker processes; each is taken as it completes but reported
// (on_row, rows, skipped) in the table's order, the same for any count.
TEST(Validate, WorkersRunRowsAtOnceAndReportThemInTheTablesOrder) {
  TempDir dir;
  const std::string table = dir.file("t.csv");
  write_text(table, kHeader +
                        "decode,K/V proj,1,64,1024,4096,1,32,1,1,0.2,211.1,\n"
                        "decode,K/V proj,1,64,1024,4096,1,1,3,1,0.2,70,\n"
                        "decode,K/V proj,1,64,1024,4096,1,1,1,32,0.2,73.17,\n"
                        "decode,K/V proj,1,64,1024,4096,1,8,4,1,0.2,60.5,\n");
  auto run = [&](int workers) {
    auto o = options_for(table);
    o.workers = workers;
    std::vector<int> reported;
    o.on_row = [&](const studies::ValidateRow& row) { reported.push_back(row.line); };
    auto v = studies::run_validate(o);
    EXPECT_EQ(reported, (std::vector<int>{2, 4, 5})) << workers << " workers";
    return v;
  };
  const auto one = run(1), three = run(3);
  ASSERT_EQ(three.rows.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(three.rows[i].line, one.rows[i].line);
    EXPECT_EQ(three.rows[i].simulated_us, one.rows[i].simulated_us) << three.rows[i].split;
  }
  ASSERT_EQ(three.skipped.size(), 1u);
  EXPECT_EQ(three.skipped[0].line, 3);
  EXPECT_EQ(three.report.dump(), one.report.dump());
}

// A bundle that fails in a worker stops validate with one line naming the
// table's line; the rows before it were reported.
TEST(Validate, ARowsBundleThatFailsInAWorkerNamesItsLine) {
  TempDir dir;
  const std::string table = dir.file("t.csv");
  std::filesystem::create_directory(dir.file("broken"));
  write_text(dir.file("broken/sdsc_0.json"), "{");
  write_text(table, kHeader +
                        "decode,K/V proj,1,64,1024,4096,1,1,1,32,0.2,73.17,\n"
                        "decode,K/V proj,1,64,1024,4096,1,8,4,1,0.2,60.5,broken\n");
  auto o = options_for(table);
  o.workers = 2;
  std::vector<int> reported;
  o.on_row = [&](const studies::ValidateRow& row) { reported.push_back(row.line); };
  const std::string e = error_of([&] { studies::run_validate(o); });
  EXPECT_EQ(e.rfind(table + ": line 3: ", 0), 0u) << e;
  EXPECT_NE(e.find("sdsc_0.json"), std::string::npos) << e;
  EXPECT_EQ(reported, (std::vector<int>{2}));
}

TEST(Validate, CliPrintsRowsShapesAndSummaryAndExitsOneOnBadInput) {
  TempDir dir;
  const std::string table = dir.file("t.csv");
  write_text(table, kHeader +
                        "decode,K/V proj,1,64,1024,4096,1,1,1,32,0.2,73.17,\n"
                        "decode,K/V proj,1,64,1024,4096,1,8,4,1,0.2,60.5,\n"
                        "decode,K/V proj,1,64,1024,4096,1,32,1,1,0.2,211.1,\n");
  const auto ok = run_cli("validate " + table + " --csv " + dir.file("rows.csv"));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("decode K/V proj 1x64x1024x4096       1_8_4_1"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("3 rows: median |error|"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("lx 0.2, 1 shapes: median Spearman"), std::string::npos) << ok.output;
  std::ifstream rows(dir.file("rows.csv"));
  std::string header;
  std::getline(rows, header);
  EXPECT_EQ(header, "line,op,shape,split,ran_as,lx,source,measured_us,simulated_us,error_pct");
  write_text(table, "B,M\n");
  const auto bad = run_cli("validate " + table);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.output, "spyre-sim: error: " + table +
                            ": line 1: no column 'N' (required: B, M, N, K, split_b, split_m, split_n, split_k, "
                            "measured_us)\n");
}

// The sweep's op names as graphs: a chain of N inputs is N - 1 adds in one
// program; as separate launches the same adds, each reading the add before
// it from HBM (no LX planning keeps an intermediate across launches).
TEST(ValidateSweep, OpNamesBuildTheSweepsGraphs) {
  const auto chain = studies::sweep_op_programs("add5", 64, 128);
  ASSERT_TRUE(chain);
  ASSERT_EQ(chain->size(), 1u);
  EXPECT_EQ((*chain)[0].graph.ops.size(), 4u);
  EXPECT_FALSE((*chain)[0].hbm_intermediates);
  const auto separate = studies::sweep_op_programs("add5_sep", 64, 128);
  ASSERT_TRUE(separate);
  ASSERT_EQ(separate->size(), 1u);
  EXPECT_EQ((*separate)[0].graph.ops.size(), 4u);
  EXPECT_TRUE((*separate)[0].hbm_intermediates);
  EXPECT_EQ(studies::sweep_op_programs("add_indep2", 64, 128)->at(0).graph.ops.size(), 2u);
  for (const char* unknown : {"add2", "add3_fused", "add10", "bmm_3d2d_k_tiling", "sub"})
    EXPECT_FALSE(studies::sweep_op_programs(unknown, 64, 128)) << unknown;
}

// Every streaming family of the harness (profile_ops.py) as the graph of what
// it computes, and each compiles, runs and matches its reference: the
// unaries, mul, column sums, means, a sum of everything, transpose (of the
// stick dim, and of the two outer dims of [R, 8, C]), cat along either dim,
// and the coarse-tiled ones: reductions of the reduced dim, and loops over a
// chain of ops (`(a + b) * c`, the softmax control written op by op).
TEST(ValidateSweep, TheHarnessFamiliesCompileRunAndMatchTheirReference) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> families = {
      {"relu", {"relu"}},
      {"sigmoid", {"sigmoid"}},
      {"exp", {"exp"}},
      {"mul", {"mul"}},
      {"sumcol", {"sum"}},
      {"mean", {"mean"}},
      {"transpose", {"transpose", "clone"}},
      {"cat1", {"unsqueeze", "expand"}},
      {"ctamax", {"amax"}},
      {"ctamin", {"amin"}},
      {"sumall", {"sum"}},
      {"transpose_outer", {"transpose", "clone"}},
      {"chain", {"add", "mul"}},
      {"softmax_noexp_row_tiling", {"amax", "sub", "mul", "sum", "div"}}};
  for (const auto& [family, ops] : families) {
    const bool tiled = family.rfind("ct", 0) == 0 || family == "chain" || family.ends_with("_row_tiling");
    const auto programs = studies::sweep_op_programs(family, 128, 256, tiled ? 4 : 0);
    ASSERT_TRUE(programs) << family;
    std::vector<std::string> types;
    for (const auto& op : programs->at(0).graph.ops) types.push_back(op.type);
    EXPECT_EQ(types, ops) << family;
    test::TempDir dir;
    const compiler::Graph& model = programs->at(0).graph;
    compiler::CompileOptions options;
    options.lx.enabled = true;
    const compiler::Graph device = compiler::compile(model, options);
    compiler::write_program_dir(dir.file("out"), compiler::program_files(device, compiler::resolve_options(options)));
    compiler::commit_io(compiler::stage_io(model, 3, dir.file("io")), dir.file("io"));
    sim::RunOptions run;
    run.bundle = dir.file("out");
    run.inputs_dir = dir.file("io/inputs");
    run.expect_dir = dir.file("io/reference");
    const auto outcome = sim::run_bundle(run);
    ASSERT_EQ(outcome.report.comparisons.size(), 1u) << family;
    if (family == "sumall") {
      // 32768 values of [-1, 1) summed to one: the partials each core and
      // the ring combine are DLFloat16 (ulp 1/32 at 16..32), the result small
      // by cancellation; the reference's tolerance is relative to the result.
      EXPECT_LT(outcome.report.comparisons[0].abs_error, 0.25) << family;
    } else {
      EXPECT_TRUE(outcome.report.comparisons[0].passed) << family;
    }
    EXPECT_TRUE(outcome.report.hazards.empty()) << family;
  }
}

const std::string kSweepHeader = "op,rows,cols,cores,lx,kernel_us_median,failed\n";

// Rows of the cost-model sweep's export run as compiled graphs: the times
// follow the traffic (a chain with LX planning keeps its intermediate on
// chip; separate launches cannot) and the read-after-write cost (the chain's
// second add reads what its first wrote, measured 936 us against 870 for two
// independent adds of the same bytes), rows without a graph or with a failed
// measurement are listed as skipped, and the errors are summarised per op.
TEST(ValidateSweep, RunsStreamingOpRecordsAndSummarisesEachOp) {
  TempDir dir;
  const std::string table = dir.file("sweep.csv");
  write_text(table, kSweepHeader +
                        "add,2048,4096,32,0,439.586,False\n"
                        "add3,2048,4096,32,1,591.95,False\n"
                        "add3,2048,4096,32,0,936.094,False\n"
                        "add3_sep,2048,4096,32,1,933.304,False\n"
                        "add_indep2,2048,4096,32,0,870.084,False\n"
                        "bcast,2048,8192,32,0,567.864,False\n"
                        "bcastcol,2048,8192,32,0,564.1,False\n"
                        "amax,4096,2048,1,1,971.189,False\n"
                        "amax,4096,2048,32,1,132.726,False\n"
                        "bmm_3d2d_k_tiling,1024,2048,32,1,599.299,False\n"
                        "add,2048,4096,32,0,1.0,True\n");
  auto o = options_for(table);
  o.report_path = dir.file("r.json");
  const auto v = studies::run_validate(o);
  ASSERT_EQ(v.rows.size(), 9u);
  const auto& add = v.rows[0];
  EXPECT_EQ(add.shape, "add 2048x4096");
  EXPECT_EQ(add.split, "32 cores");
  EXPECT_EQ(add.lx, "off");
  // 50 MB of 2-read 1-write traffic at the card's ~115 GB/s.
  EXPECT_NEAR(add.simulated_us, 439.6, 0.1 * 439.6);
  EXPECT_LT(v.rows[1].simulated_us, 0.8 * v.rows[2].simulated_us);                     // t stays in LX
  EXPECT_NEAR(v.rows[4].simulated_us, 2 * add.simulated_us, 0.05 * add.simulated_us);  // independent adds
  EXPECT_GT(v.rows[2].simulated_us, 1.05 * v.rows[4].simulated_us);                    // read-after-write
  EXPECT_LT(v.rows[2].simulated_us, 1.2 * v.rows[4].simulated_us);
  EXPECT_NEAR(v.rows[3].simulated_us, v.rows[2].simulated_us, 1e-6 * add.simulated_us);  // launches: lx off
  // amax along the sticks is compute-bound on one core: ~32x slower than on 32.
  EXPECT_GT(v.rows[7].simulated_us, 5 * v.rows[8].simulated_us);
  for (const auto& row : v.rows) EXPECT_LT(std::fabs(row.error()), 0.25) << row.shape << " " << row.split;
  ASSERT_EQ(v.skipped.size(), 2u);
  EXPECT_EQ(v.skipped[0].line, 11);
  EXPECT_EQ(v.skipped[0].op, "bmm_3d2d_k_tiling");
  EXPECT_EQ(v.skipped[1].reason, "the measurement failed (column failed)");
  ASSERT_EQ(v.summary.ops.size(), 7u);
  EXPECT_EQ(v.summary.ops[0].op, "add");
  EXPECT_EQ(v.summary.ops[0].rows, 1u);
  EXPECT_EQ(v.summary.ops[1].op, "add3");
  EXPECT_EQ(v.summary.ops[1].rows, 2u);
  // The amax shape at two core counts is ranked; the fastest is 32 cores on both.
  const auto g = std::find_if(v.groups.begin(), v.groups.end(), [](const auto& x) { return x.rows.size() == 2; });
  ASSERT_NE(g, v.groups.end());
  EXPECT_EQ(v.rows[g->pick].split, "32 cores");
  const Json r = read_json_file(o.report_path);
  EXPECT_EQ(r["skipped"].size(), 2u);
  EXPECT_EQ(r["summary"]["ops"][1]["op"], "add3");
  EXPECT_EQ(r["rows"][1]["lx"], "on");
  const auto cli = run_cli("validate " + table + " --quiet");
  EXPECT_EQ(cli.exit_code, 0) << cli.output;
  EXPECT_NE(cli.output.find("per op: median error"), std::string::npos) << cli.output;
  EXPECT_NE(cli.output.find("skipped line 11 (bmm_3d2d_k_tiling): no graph for this op"), std::string::npos)
      << cli.output;
}

// amax along the sticks, as the card ran it: compute-bound on one and four
// cores (sfu.cycles_reduce_stick), reading at ~155 GB/s on 32 cores with
// about 5 us besides (a barrier that does not grow with the cores, a reduce
// that follows its loads as they land). Each row within 10% of the card.
TEST(ValidateSweep, AmaxRowsFollowTheCardFromOneCoreToThirtyTwo) {
  TempDir dir;
  const std::string table = dir.file("sweep.csv");
  write_text(table,
             "op,rows,cols,cores,lx,kernel_us_median,memset_us\n"
             "amax,4096,2048,1,1,971.189,39.201\n"
             "amax,2048,8192,4,1,550.327,28.305\n"
             "amax,2048,2048,32,1,59.117,31.674\n"
             "amax,2048,8192,32,0,220.748,30.024\n");
  const auto v = studies::run_validate(options_for(table));
  ASSERT_EQ(v.rows.size(), 4u);
  for (const auto& row : v.rows) EXPECT_LT(std::fabs(row.error()), 0.10) << row.shape << " " << row.split;
}

// The sweep's profiler runs a memset between repetitions (its memset_us
// column): such rows run with device work between runs, so a broadcast add
// whose 4 MiB fit the memory-side cache still moves them through LPDDR5 at
// the card's measured 64.1 us; timed back to back the cache serves them.
TEST(ValidateSweep, RowsThatLogAMemsetRunWithDeviceWorkBetweenRuns) {
  TempDir dir;
  const std::string table = dir.file("sweep.csv");
  write_text(table,
             "op,rows,cols,cores,lx,kernel_us_median,memset_us\n"
             "bcast,2048,1024,32,0,64.135,91.899\n"
             "bcast,2048,1024,32,0,64.135,\n");
  auto o = options_for(table);
  const auto v = studies::run_validate(o);
  ASSERT_EQ(v.rows.size(), 2u);
  EXPECT_EQ(v.rows[0].between_runs, sim::BetweenRuns::kDeviceWork);
  EXPECT_EQ(v.rows[1].between_runs, sim::BetweenRuns::kBackToBack);
  EXPECT_LT(std::fabs(v.rows[0].error()), 0.15) << v.rows[0].simulated_us;
  EXPECT_LT(v.rows[1].simulated_us, 0.6 * v.rows[0].simulated_us);
  o.between_runs = sim::BetweenRuns::kBackToBack;  // --between-runs overrides every row
  const auto forced = studies::run_validate(o);
  EXPECT_NEAR(forced.rows[0].simulated_us, v.rows[1].simulated_us, 1e-6 * v.rows[1].simulated_us);
  const auto cli = run_cli("validate " + table + " --quiet --between-runs sometimes");
  EXPECT_EQ(cli.exit_code, 1) << cli.output;  // CLI11's own message names the option
  EXPECT_NE(cli.output.find("--between-runs"), std::string::npos) << cli.output;
  EXPECT_EQ(validate_error(table, "op,rows,cols,cores,lx,kernel_us_median,memset_us\nbcast,128,8192,32,0,45.7,x\n"),
            table + ": line 2, column memset_us: 'x' is not a number");
}

TEST(ValidateSweep, BadRecordsGetOneLineNamingLineAndColumn) {
  TempDir dir;
  const std::string table = dir.file("sweep.csv");
  auto error_for = [&](const std::string& text) { return validate_error(table, text); };
  EXPECT_EQ(error_for("op,rows,cols,cores\nadd,64,128,32\n"),
            table + ": line 1: no column 'kernel_us_median' or 'measured_us' (the measured device time)");
  EXPECT_EQ(error_for(kSweepHeader + "add,64,128,64,0,10,False\n"),
            table + ": line 2, column cores: the card has 32 cores");
  EXPECT_EQ(error_for(kSweepHeader + "add,64,128,32,2,10,False\n"),
            table + ": line 2, column lx: must be 0 or 1 (LX planning off or on)");
  EXPECT_EQ(error_for(kSweepHeader + "add,64,128,32,0,0,False\n"),
            table + ": line 2, column kernel_us_median: a device time must be positive");
  EXPECT_EQ(error_for(kSweepHeader + "add,0,128,32,0,10,False\n"),
            table + ": line 2, column rows: '0' is not an integer >= 1");
}

// A batched matmul whose core holds 16 batch elements (64 x 8 x 128 x 512,
// split 4 ways over the batch) at LX fraction 0.2: with their whole B slices
// only 2 fit the staging space (runs of 2 x 128 bytes, shorter than a DMA
// request), so a tile takes all 16 and B one column stick at a time: every
// run of B and C is 16 x 128 bytes, A is loaded with the first column block.
TEST(ValidateSplits, BatchedMatmulTilesKeepTheBatchRunsARequestLong) {
  TempDir dir;
  const compiler::MatmulSplit split{4, 1, 1, 1};
  studies::compile_matmul({64, 8, 128, 512}, &split, 4, load_arch("", {}).limits(), dir.file("bmm"));
  const Program program = load_bundle(dir.file("bmm"));
  const sim::CoreWork core = sim::plan_kernel(program, 0, load_arch("", {})).cores[0];
  ASSERT_EQ(core.tiles.size(), 8u);  // 512 columns: 8 blocks of one stick, one pass of 8 rows
  for (size_t i = 0; i < core.tiles.size(); ++i) {
    const auto& tile = core.tiles[i];
    ASSERT_EQ(tile.loads.size(), i == 0 ? 2u : 1u) << i;
    const auto& b = tile.loads.back();
    EXPECT_EQ(b.bytes, 16 * 128 * 64 * 2) << i;
    for (const auto& run : b.runs) EXPECT_EQ(run.second, 16 * 128) << i;
    ASSERT_EQ(tile.stores.size(), 1u);
    for (const auto& run : tile.stores[0].runs) EXPECT_EQ(run.second, 16 * 128) << i;
  }
  EXPECT_EQ(core.hbm_read_bytes, 16 * 8 * 128 * 2 + 16 * 128 * 512 * 2);  // A and B once each
  // With all of LX (fraction 1.0) 14 batch elements fit whole: still short of
  // a request, so 7 column sticks at a time. B taken in blocks does not fit
  // whole, so it is streamed again for the second pass of 8 rows.
  studies::compile_matmul({64, 16, 128, 512}, &split, 4, load_arch("", {}).limits(), dir.file("bmm16"));
  const sim::CoreWork wide =
      sim::plan_kernel(load_bundle(dir.file("bmm16")), 0, load_arch("", {"lx.backend_reserved_fraction=1.0"})).cores[0];
  ASSERT_EQ(wide.tiles.size(), 4u);  // 2 passes x 2 column blocks (448 and 64 columns)
  EXPECT_EQ(wide.tiles[1].loads.back().bytes, 16 * 128 * 64 * 2);
  EXPECT_EQ(wide.hbm_read_bytes, 16 * 16 * 128 * 2 + 2 * 16 * 128 * 512 * 2);
}

}  // namespace
}  // namespace spyre::test
