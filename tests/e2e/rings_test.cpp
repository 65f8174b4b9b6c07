// Cross-core data movement: reductions split over cores combine their partial
// results on the reduce-sum ring; SHUFFLE relayouts LX over the data ring.

#include <cmath>

#include <gtest/gtest.h>

#include "e2e_support.h"
#include "sdsc_builder.h"

namespace spyre::test {
namespace {

TEST(Rings, MatmulSplitAlongKCombinesOnTheReduceSumRing) {
  TempDir dir;
  Json doc = read_json_file(cli_bundle("mm/sdsc_0.json"));
  resplit(doc["0_batchmatmul"], "batchmatmul", {{"mb", 4}, {"out", 4}, {"in", 2}}, [](int c) {
    return std::map<std::string, int>{{"mb", c % 4}, {"out", (c / 4) % 4}, {"in", c / 16}};
  });
  write_json(dir.file("sdsc_0.json"), doc);
  const Arrays inputs = random_inputs(load_bundle(dir.path()), -1, 1, 3);
  const auto r = run_functional(dir.path(), inputs);
  // Each output slice is written once, by the first core of its pair.
  EXPECT_EQ(r.report.hbm_write_bytes, 512 * 256 * 2);
  // 16 pairs (cores c and c+16, 16 hops apart), each moving one 128x64 partial
  // (16 KiB) around to the partner and the sum back.
  EXPECT_EQ(r.report.reduce_ring_bytes, 16 * 2 * 16384 * 16);
  std::vector<double> want(512 * 256, 0.0);
  const auto& a = inputs.at("arg0");
  const auto& b = inputs.at("arg1");
  for (int i = 0; i < 512; ++i) {
    for (int p = 0; p < 1024; ++p) {
      for (int j = 0; j < 256; ++j) want[i * 256 + j] += double(a[i * 1024 + p]) * b[p * 256 + j];
    }
  }
  EXPECT_LE(worst_excess(r.outputs.at("arg2"), want, 1e-2), 0.06);
}

TEST(Rings, MeanSplitAcrossTwoCoresPerRow) {
  TempDir dir;
  Json doc = read_json_file(cli_bundle("mean_keepdim/sdsc_0.json"));
  resplit(doc["0_mean"], "mean", {{"mb", 16}, {"out", 2}}, [](int c) {
    return std::map<std::string, int>{{"mb", c % 16}, {"out", c / 16}};
  });
  write_json(dir.file("sdsc_0.json"), doc);
  const Arrays inputs = random_inputs(load_bundle(dir.path()), -2, 2, 5);
  const auto r = run_functional(dir.path(), inputs);
  EXPECT_GT(r.report.reduce_ring_bytes, 0);
  std::vector<double> want(512, 0.0);
  for (int row = 0; row < 512; ++row) {
    for (int c = 0; c < 1024; ++c) want[row] += inputs.at("arg0")[row * 1024 + c] / 1024.0;
  }
  EXPECT_LE(worst_excess(r.outputs.at("arg1"), want, 1e-2), 3e-3);
  // Splitting the row doubles the cores per row but adds the ring combine.
  sim::RunOptions whole;
  whole.bundle = cli_bundle("mean_keepdim");
  EXPECT_EQ(sim::run_bundle(whole).report.reduce_ring_bytes, 0);
}

// Rows split over two cores, moved to a column split by SHUFFLE, stored back.
TEST(Rings, ShuffleMovesLxDataAcrossCoresOnTheDataRing) {
  TempDir dir;
  const std::vector<std::map<std::string, int>> by_row = {{{"r", 0}, {"c", 0}}, {{"r", 1}, {"c", 0}}};
  const std::vector<std::map<std::string, int>> by_col = {{{"r", 0}, {"c", 0}}, {{"r", 0}, {"c", 1}}};
  const int64_t seg1 = int64_t{1} << 34;
  SdscSpec load{"0_identity",
                "identity",
                "sfp",
                {{"r", 4}, {"c", 128}},
                {{"r", 2}},
                by_row,
                {{"OUTPUT", {"r", "c"}, "c", {1, 1}, "hbm", {0, 256}, {}, 0},
                 {"OUTPUT", {"r", "c"}, "c", {1, 1}, "lx", {0, 0}, {}, 0}},
                {0},
                {1},
                {}};
  SdscSpec shuffle{"1_shuffle",
                   "shuffle",
                   "sfp",
                   {{"r", 4}, {"c", 128}},
                   {{"c", 2}},
                   by_col,
                   {{"OUTPUT", {"r", "c"}, "c", {1, 1}, "lx", {0, 0}, {{0, {{"r", 0}}}, {1, {{"r", 1}}}}, 0},
                    {"OUTPUT", {"r", "c"}, "c", {1, 1}, "lx", {1024, 1024}, {}, 0}},
                   {0},
                   {1},
                   {}};
  SdscSpec store{"2_identity",
                 "identity",
                 "sfp",
                 {{"r", 4}, {"c", 128}},
                 {{"c", 2}},
                 by_col,
                 {{"OUTPUT", {"r", "c"}, "c", {1, 1}, "lx", {1024, 1024}, {}, 0},
                  {"OUTPUT", {"r", "c"}, "c", {1, 1}, "hbm", {seg1, seg1 + 512}, {}, 0}},
                 {0},
                 {1},
                 {}};
  write_json(dir.file("sdsc_0.json"), build_sdsc(load));
  write_json(dir.file("sdsc_1.json"), build_sdsc(shuffle));
  write_json(dir.file("sdsc_2.json"), build_sdsc(store));
  const Arrays inputs = random_inputs(load_bundle(dir.path()), -3, 3, 9);
  const auto r = run_functional(dir.path(), inputs);
  const auto& in = inputs.at("arg0");
  const auto& out = r.outputs.at("arg1");
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) ASSERT_NEAR(out[i], in[i], std::fabs(in[i]) * 2e-3) << i;
  // Each core keeps half of its rows' columns and sends the other half (one
  // 2-row x 64-column block = 2 sticks) one hop over the data ring.
  EXPECT_EQ(r.report.data_ring_bytes, 2 * 256);
  EXPECT_TRUE(r.report.hazards.empty());
}

}  // namespace
}  // namespace spyre::test
