// `spyre-sim validate`: measured kernel tables run on the card model, ranked
// per shape, and bad tables refused with one line.

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "e2e_support.h"
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
    write_text(table, text);
    auto o = options_for(table);
    o.where = where;
    return error_of([&] { studies::run_validate(o); });
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
      table + ": line 2, column kernel: no bundle directory 'nowhere' next to the table or in its kernels/ folder");
  EXPECT_EQ(error_for(kHeader + "decode,K/V proj,1,64,1024,4096,1,2,1,32,0.2,70,\n"),
            table + ": line 2, column split_b: the splits use 64 cores; the card has 32");
  EXPECT_EQ(error_for(kHeader + "decode,K/V proj,1,64,1024,4096,2,1,1,16,0.2,70,\n"),
            table + ": line 2, column split_b: B is 1: nothing to split");
  EXPECT_EQ(error_for(kHeader + "decode,K/V proj,1,six,1024,4096,1,1,1,32,0.2,70,\n"),
            table + ": line 2, column M: 'six' is not an integer >= 1");
  EXPECT_EQ(error_for(kHeader + row + "0.2,70,\n", {"model=granite"}),
            table + ": --where model=granite: the table has no column 'model'");
  EXPECT_EQ(error_for(kHeader + row + "0.2,70,\n", {"phase=prefill"}), table + ": --where: no row is left to validate");
  // A split the compiler cannot make names the row.
  const std::string e = error_for(kHeader + "decode,K/V proj,1,64,1024,4096,1,1,3,1,0.2,70,\n");
  EXPECT_EQ(e.rfind(table + ": line 2: ", 0), 0u) << e;
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
  EXPECT_EQ(header, "line,shape,split,lx_fraction,source,measured_us,simulated_us,error_pct");
  write_text(table, "B,M\n");
  const auto bad = run_cli("validate " + table);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.output, "spyre-sim: error: " + table +
                            ": line 1: no column 'N' (required: B, M, N, K, split_b, split_m, split_n, split_k, "
                            "measured_us)\n");
}

}  // namespace
}  // namespace spyre::test
