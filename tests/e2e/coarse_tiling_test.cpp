// Coarse tiling (compiler/passes/coarse_tiling.cpp): an op hinted with
// coarse_tile runs as scf.for iterations over tiles in one bundle, as
// torch-spyre's LoopSpec does; the card runs every iteration on its tile of
// the whole buffers and the values match the untiled reference.

#include <gtest/gtest.h>

#include "compiler/compile_job.h"
#include "e2e_support.h"
#include "sim/run_bundle.h"
#include "test_support.h"

namespace spyre {
namespace {

std::string softmax_graph(int64_t rows, int64_t cols, const std::string& tile) {
  return R"({"name": "sm", "tensors": [{"name": "x", "shape": [)" + std::to_string(rows) + ", " + std::to_string(cols) +
         R"(], "dtype": "float16", "role": "input"}, {"name": "y", "role": "output"}],
  "ops": [{"op": "softmax", "inputs": ["x"], "outputs": ["y"], "attrs": {"dim": -1})" +
         (tile.empty() ? "" : R"(, "coarse_tile": )" + tile) + "}]}";
}

using Tiled = test::CompiledRun;

Tiled compile_and_run(const test::TempDir& dir, const std::string& graph, bool lx_planning,
                      std::vector<std::string> arch_overrides = {}) {
  compiler::CompileJob job;
  job.graph_path = dir.file("g.json");
  test::write_text(job.graph_path, graph);
  job.options.lx.enabled = lx_planning;
  return test::compile_and_run(job, dir, std::move(arch_overrides));
}

void expect_correct(const sim::RunReport& report) {
  ASSERT_EQ(report.comparisons.size(), 1u);
  EXPECT_TRUE(report.comparisons[0].passed) << report.comparisons[0].mismatches << " off";
  EXPECT_TRUE(report.hazards.empty()) << report.hazards.front().detail;
  test::expect_invariants_hold(report, "tiled softmax");
}

TEST(CoarseTiling, RowSoftmaxRunsAsLoopIterationsOverItsTiles) {
  test::TempDir dir;
  const Tiled t = compile_and_run(dir, softmax_graph(256, 512, R"({"dim": 0, "tiles": 4})"), true);
  expect_correct(t.run.report);
  // One loop of 4 iterations: a read copy of the input tile and the 5 softmax stages.
  const std::string mlir = test::read_text(dir.file("program/bundle.mlir"));
  EXPECT_NE(mlir.find("%trips0 = arith.constant 4 : index"), std::string::npos) << mlir;
  EXPECT_NE(mlir.find("scf.for %i0 = %c0 to %trips0 step %c1 {"), std::string::npos) << mlir;
  ASSERT_EQ(t.run.report.kernels.size(), 24u);
  EXPECT_EQ(t.run.report.kernels[0].op, "identity");
  EXPECT_EQ(t.run.report.kernels[6].op, "identity");
  // The tiles fit LX: the input is read once and the output written once.
  EXPECT_EQ(t.run.report.hbm_read_bytes, 256 * 512 * 2);
  EXPECT_EQ(t.run.report.hbm_write_bytes, 256 * 512 * 2);
}

TEST(CoarseTiling, WithoutLxPlanningTheTilesGoThroughHbm) {
  test::TempDir dir;
  const Tiled t = compile_and_run(dir, softmax_graph(128, 256, R"({"dim": 0, "tiles": 2})"), false);
  expect_correct(t.run.report);
  EXPECT_EQ(t.run.report.kernels.size(), 12u);
  EXPECT_GT(t.run.report.hbm_write_bytes, 128 * 256 * 2);  // the read copies and the intermediates
}

// The cores synchronize once per loop iteration, not after every SDSC of it
// (launch.barrier_ns; softmax_row_tiling rows, docs/calibration.md).
TEST(CoarseTiling, TheLoopBodyPaysOneBarrierPerIteration) {
  test::TempDir a, b;
  const std::string graph = softmax_graph(256, 512, R"({"dim": 0, "tiles": 4})");
  const double without = compile_and_run(a, graph, true, {"launch.barrier_ns=0"}).run.report.latency_us;
  const double with = compile_and_run(b, graph, true, {"launch.barrier_ns=10000"}).run.report.latency_us;
  EXPECT_NEAR(with - without, 4 * 10.0, 1e-3);
}

// A loop runs in one bundle: with other ops binding most argument segments
// before it, the bundle is cut before the loop, not inside it.
TEST(CoarseTiling, ALoopIsNeverCutAcrossBundles) {
  std::string tensors = R"({"name": "x", "shape": [256, 512], "role": "input"}, {"name": "y", "role": "output"})";
  std::string ops;
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    tensors += R"(, {"name": "a)" + n + R"(", "shape": [64, 128], "role": "input"}, {"name": "o)" + n +
               R"(", "role": "output"})";
    ops += R"({"op": "abs", "inputs": ["a)" + n + R"("], "outputs": ["o)" + n + R"("]}, )";
  }
  ops += R"({"op": "softmax", "inputs": ["x"], "outputs": ["y"], "attrs": {"dim": -1},
             "coarse_tile": {"dim": 0, "tiles": 4}})";
  test::TempDir dir;
  const Tiled t = compile_and_run(dir, R"({"tensors": [)" + tensors + R"(], "ops": [)" + ops + "]}", true);
  EXPECT_EQ(t.run.report.comparisons.size(), 4u);
  for (const auto& c : t.run.report.comparisons) EXPECT_TRUE(c.passed) << c.name;
  EXPECT_TRUE(t.run.report.hazards.empty());
  ASSERT_EQ(t.compiled.device.bundles.size(), 2u);
  const std::string second = test::read_text(dir.file("program/bundle_1/bundle.mlir"));
  EXPECT_NE(second.find("scf.for"), std::string::npos) << second;
  EXPECT_EQ(t.compiled.device.bundles[1].ops.size(), 6u);  // the read copy and the 5 stages
}

std::string compile_error(const std::string& graph) {
  test::TempDir dir;
  return test::error_of([&] { compile_and_run(dir, graph, true); });
}

std::string column_sum_graph(const std::string& op, const std::string& tile, int64_t cols = 512) {
  return R"({"tensors": [{"name": "x", "shape": [128, )" + std::to_string(cols) +
         R"(], "role": "input"}, {"name": "y", "role": "output"}], "ops": [{"op": ")" + op +
         R"(", "inputs": ["x"], "outputs": ["y"], "attrs": {"dim": 0}, "coarse_tile": )" + tile + "}]}";
}

// Tiling the dim a sum reduces: a fill before the loop, and per tile a read
// copy, the sum into a partial and an add into the output (torch-spyre's
// flat reduction tiling). The output is the sum of every tile.
TEST(CoarseTiling, ASumOverTheTiledDimAccumulatesItsTiles) {
  for (const bool lx : {false, true}) {
    // 4096 columns: the copy of a 32-row tile divides its columns over the
    // cores as the sum does, so LX can hold it.
    test::TempDir dir;
    const Tiled t = compile_and_run(dir, column_sum_graph("sum", R"({"dim": 0, "tiles": 4})", 4096), lx);
    expect_correct(t.run.report);
    ASSERT_EQ(t.run.report.kernels.size(), 1u + 4 * 3) << lx;
    EXPECT_EQ(t.run.report.kernels[0].op, "identity");  // the fill, before the loop
    for (size_t i = 1; i < t.run.report.kernels.size(); i += 3) {
      EXPECT_EQ(t.run.report.kernels[i].op, "identity");  // the read copy
      EXPECT_EQ(t.run.report.kernels[i + 1].op, "sumnonstick");
      EXPECT_EQ(t.run.report.kernels[i + 2].op, "add");  // the combine
    }
    // Without LX the tile copy goes through HBM and is read back; with LX
    // the input is read once, plus the 8 KiB accumulator and partial per tile.
    const int64_t input_bytes = 128 * 4096 * 2;
    if (lx) {
      EXPECT_EQ(t.run.report.hbm_read_bytes, input_bytes + 4 * 2 * 4096 * 2 + 32 * 128);  // + the constant, per core
    } else {
      EXPECT_GT(t.run.report.hbm_read_bytes, 2 * input_bytes);
    }
  }
  EXPECT_NE(compile_error(column_sum_graph("mean", R"({"dim": 0, "tiles": 2})"))
                .find("$.ops[0] mean 'y': coarse tiling of the dim mean reduces is not compiled yet (sum, prod, amax, "
                      "amin are)"),
            std::string::npos);
}

// A product over the tiled dim: the fill writes 1 and each tile's partial
// product multiplies into the output (torch-spyre's combine for prod).
TEST(CoarseTiling, AProductOverTheTiledDimMultipliesItsTiles) {
  test::TempDir dir;
  const Tiled t = compile_and_run(dir, column_sum_graph("prod", R"({"dim": 0, "tiles": 4})", 4096), true);
  expect_correct(t.run.report);
  ASSERT_EQ(t.run.report.kernels.size(), 1u + 4 * 3);
  for (size_t i = 1; i < t.run.report.kernels.size(); i += 3) {
    EXPECT_EQ(t.run.report.kernels[i + 1].op, "prodnonstick");
    EXPECT_EQ(t.run.report.kernels[i + 2].op, "mul");  // the combine
  }
}

TEST(CoarseTiling, HintsItCannotCompileGetOneLine) {
  EXPECT_NE(compile_error(softmax_graph(96, 128, R"({"dim": 0, "tiles": 5})"))
                .find("$.ops[0] softmax 'y': coarse_tile.tiles 5 does not divide dim 0 of its input (size 96)"),
            std::string::npos);
  EXPECT_NE(compile_error(softmax_graph(96, 128, R"({"dim": 2, "tiles": 2})"))
                .find("coarse_tile.dim 2 is not a dim of its input (rank 2)"),
            std::string::npos);
  EXPECT_NE(compile_error(softmax_graph(96, 128, R"({"dim": 1, "tiles": 2})"))
                .find("coarse tiling along 'x''s stick dim is not supported"),
            std::string::npos);
  EXPECT_NE(compile_error(softmax_graph(96, 128, "3")).find("g.json: $.ops[0].coarse_tile: expected an object"),
            std::string::npos);
  // A row sum keeps the rows: tiling them is output-dim tiling; its columns
  // are the dim it reduces, and the stick dim.
  EXPECT_NE(compile_error(R"({"tensors": [{"name": "x", "shape": [96, 128], "role": "input"}, {"name": "b",
    "shape": [96, 128], "role": "input"}, {"name": "t"}, {"name": "y", "role": "output"}], "ops": [{"op": "add",
    "inputs": ["x", "b"], "outputs": ["t"]}, {"op": "abs", "inputs": ["t"], "outputs": ["y"],
    "coarse_tile": {"dim": 0, "tiles": 2}}]})")
                .find("coarse tiling reads 't', which an op outside its loop computes: hint that op alike (one "
                      "loop) or tile neither"),
            std::string::npos);
  // A loop's output that the loop also reads.
  EXPECT_NE(compile_error(R"({"tensors": [{"name": "x", "shape": [96, 128], "role": "input"}, {"name": "t",
    "role": "output"}, {"name": "y", "role": "output"}], "ops": [{"op": "abs", "inputs": ["x"], "outputs": ["t"],
    "coarse_tile": {"dim": 0, "tiles": 2}}, {"op": "exp", "inputs": ["t"], "outputs": ["y"],
    "coarse_tile": {"dim": 0, "tiles": 2}}]})")
                .find("coarse tiling: 't' is a graph output that later ops of its loop read: not compiled yet"),
            std::string::npos);
  // Inside a loop of several ops the tiled dim is not reduced.
  EXPECT_NE(
      compile_error(R"({"tensors": [{"name": "x", "shape": [96, 128], "role": "input"}, {"name": "y",
    "role": "output"}], "ops": [{"op": "abs", "inputs": ["x"], "outputs": ["t"], "coarse_tile": {"dim": 0,
    "tiles": 2}}, {"op": "sum", "inputs": ["t"], "outputs": ["y"], "attrs": {"dim": 0},
    "coarse_tile": {"dim": 0, "tiles": 2}}]})")
          .find("$.ops[1] sum 'y': coarse tiling of the dim sum reduces inside a chain of ops is not compiled yet"),
      std::string::npos);
}

// Consecutive ops hinted alike are one loop (torch-spyre's LoopSpec over a
// fused group, the cost-model harness's chain): (a + b) * c over row tiles,
// each input read through its copy, a + b a tile-sized intermediate that LX
// holds; the softmax written op by op, x read by two of them through one copy.
TEST(CoarseTiling, OpsHintedAlikeRunAsOneLoop) {
  const std::string tile = R"("coarse_tile": {"dim": 0, "tiles": 4})";
  const std::string chain = R"({"name": "chain", "tensors": [
      {"name": "a", "shape": [256, 512], "role": "input"}, {"name": "b", "shape": [256, 512], "role": "input"},
      {"name": "c", "shape": [256, 512], "role": "input"}, {"name": "z", "role": "output"}],
    "ops": [{"op": "add", "inputs": ["a", "b"], "outputs": ["y"], )" +
                            tile + R"(}, {"op": "mul", "inputs": ["y", "c"], "outputs": ["z"], )" + tile + "}]}";
  test::TempDir dir;
  const Tiled t = compile_and_run(dir, chain, true);
  expect_correct(t.run.report);
  const std::string mlir = test::read_text(dir.file("program/bundle.mlir"));
  EXPECT_NE(mlir.find("%trips0 = arith.constant 4 : index"), std::string::npos) << mlir;
  EXPECT_EQ(mlir.find("%trips1"), std::string::npos) << mlir;  // one loop
  ASSERT_EQ(t.run.report.kernels.size(), 4u * 5u);             // 3 read copies, add, mul per iteration
  EXPECT_EQ(t.run.report.kernels[2].op, "add");
  EXPECT_EQ(t.run.report.hbm_read_bytes, 3 * 256 * 512 * 2);  // y never leaves LX
  EXPECT_EQ(t.run.report.hbm_write_bytes, 256 * 512 * 2);
  const std::string softmax =
      R"({"name": "sm", "tensors": [{"name": "x", "shape": [256, 512], "role": "input"},
      {"name": "out", "role": "output"}], "ops": [
      {"op": "amax", "inputs": ["x"], "outputs": ["m"], "attrs": {"dim": -1, "keepdim": true}, )" +
      tile + R"(}, {"op": "sub", "inputs": ["x", "m"], "outputs": ["y"], )" + tile +
      R"(}, {"op": "exp", "inputs": ["y"], "outputs": ["e"], )" + tile +
      R"(}, {"op": "sum", "inputs": ["e"], "outputs": ["s"], "attrs": {"dim": -1, "keepdim": true}, )" + tile +
      R"(}, {"op": "div", "inputs": ["e", "s"], "outputs": ["out"], )" + tile + "}]}";
  test::TempDir dir2;
  const Tiled u = compile_and_run(dir2, softmax, true);
  expect_correct(u.run.report);
  EXPECT_EQ(u.run.report.kernels.size(), 4u * 6u);  // one read copy of x, the 5 ops
  EXPECT_EQ(u.run.report.hbm_read_bytes, 256 * 512 * 2);
}

}  // namespace
}  // namespace spyre
