// torch-spyre's windowed ops (conv2d on the PT array, depthwise conv and
// avgpool on the SFU) run from the hand-written kernels of
// models/bundles/hand-written (scripts/hand_written_kernels.py): their
// values against a direct loop over the window, their bytes as each core's
// span of the input (halos included), and the reader's refusals; then
// compiled from a graph's conv2d and avg_pool2d against the host reference.

#include <filesystem>

#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "compiler/ir/graph.h"
#include "e2e_support.h"
#include "runtime/error.h"
#include "runtime/numerics.h"
#include "runtime/sdsc.h"

namespace spyre::test {
namespace {

// Host arrays: N_ order without the stick dim, the stick dim last (the
// inputs are rounded to DLFloat16 on the device, so the reference rounds them too).
struct Shape4 {
  int64_t a, b, c;
  int64_t at(int64_t i, int64_t j, int64_t k) const { return (i * b + j) * c + k; }
};

std::vector<float> rounded(const std::vector<float>& v) {
  std::vector<float> out;
  for (float x : v) out.push_back(round_dl16(x));
  return out;
}

sim::RunOutcome timed(const std::string& name) { return run_timed(bundle_path("hand-written/" + name)); }

// A hand-written kernel run functionally on random inputs: the run and its
// inputs as the device holds them (arg0, and arg1 when it has one).
struct RandomRun {
  sim::RunOutcome run;
  std::vector<float> x, w;
};
RandomRun run_on_random(const std::string& name, uint32_t seed, float magnitude) {
  const std::string bundle = bundle_path("hand-written/" + name);
  const auto inputs = random_inputs(load_bundle(bundle), -magnitude, magnitude, seed);
  RandomRun r{run_functional(bundle, inputs), rounded(inputs.at("arg0")), {}};
  if (inputs.count("arg1")) r.w = rounded(inputs.at("arg1"));
  return r;
}

// The reference of a k x k window at `stride` over an [H][W][C] input for an
// [oh][ow][channels] output: at each output, the sum over the window of
// term(input row, input column, ki, kj, output channel).
template <typename Term>
std::vector<double> window_sums(int64_t oh, int64_t ow, int64_t channels, int64_t stride, int64_t k, Term&& term) {
  std::vector<double> out(static_cast<size_t>(oh * ow * channels), 0.0);
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j)
      for (int64_t o = 0; o < channels; ++o) {
        double acc = 0;
        for (int64_t ki = 0; ki < k; ++ki)
          for (int64_t kj = 0; kj < k; ++kj) acc += term(i * stride + ki, j * stride + kj, ki, kj, o);
        out[static_cast<size_t>((i * ow + j) * channels + o)] = acc;
      }
  return out;
}

// conv2d 1x64x13x13, 128 filters of 3x3, stride 2: out[i][j][o] =
// sum over c, ki, kj of x[2i + ki][2j + kj][c] * w[c][ki][kj][o].
TEST(WindowedOps, Conv2dContractsChannelsAndWindowAtItsStride) {
  const auto [r, x, w] = run_on_random("conv2d_k3_s2", 11, 1);
  ASSERT_EQ(x.size(), 13u * 13u * 64u);
  ASSERT_EQ(w.size(), 64u * 3u * 3u * 128u);
  const Shape4 xs{13, 13, 64};
  const auto want = window_sums(6, 6, 128, 2, 3, [&](int64_t h, int64_t v, int64_t ki, int64_t kj, int64_t o) {
    double acc = 0;
    for (int64_t c = 0; c < 64; ++c) acc += double(x[xs.at(h, v, c)]) * w[((c * 3 + ki) * 3 + kj) * 128 + o];
    return acc;
  });
  EXPECT_LE(worst_excess(r.outputs.at("arg2"), want, 4e-3), 2e-2);
  // Each of the 2 cores reads the whole 13x13 input and its half of the weight.
  const auto t = timed("conv2d_k3_s2");
  EXPECT_EQ(t.report.hbm_read_bytes, 2 * 13 * 13 * 64 * 2 + 64 * 9 * 128 * 2);
  EXPECT_EQ(t.report.hbm_write_bytes, 6 * 6 * 128 * 2);
  EXPECT_EQ(t.report.kernels.at(0).unit, "pt");
}

// Depthwise 3x3 over 64 channels of 30x30: each of 2 cores computes 14 output
// rows from its 16 input rows (2 rows of halo read by both).
TEST(WindowedOps, DepthwiseConvReducesEachChannelsWindowWithHalos) {
  const auto [r, x, w] = run_on_random("depthwise_conv2d_k3", 12, 1);
  ASSERT_EQ(x.size(), 30u * 30u * 64u);
  ASSERT_EQ(w.size(), 3u * 3u * 64u);
  const Shape4 xs{30, 30, 64}, ws{3, 3, 64};
  const auto want = window_sums(28, 28, 64, 1, 3, [&](int64_t h, int64_t v, int64_t ki, int64_t kj, int64_t c) {
    return double(x[xs.at(h, v, c)]) * w[ws.at(ki, kj, c)];
  });
  EXPECT_LE(worst_excess(r.outputs.at("arg2"), want, 4e-3), 1e-2);
  const auto t = timed("depthwise_conv2d_k3");
  EXPECT_EQ(t.report.hbm_read_bytes, 2 * (16 * 30 * 64 * 2) + 2 * (9 * 128));
  EXPECT_EQ(t.report.hbm_write_bytes, 28 * 28 * 64 * 2);
}

// avg_pool2d(x, 2) on 2x64x8x8: the mean of each 2x2 window (the window's sum
// times nmap = 1/4), the batch over 2 cores.
TEST(WindowedOps, AvgPoolIsTheWindowsMeanThroughNmap) {
  const auto [r, x, w] = run_on_random("avg_pool2d_k2", 13, 4);
  ASSERT_TRUE(w.empty());
  ASSERT_EQ(x.size(), 2u * 8u * 8u * 64u);
  // The two images stacked as 16 rows: a window never crosses them (8 rows each, stride 2).
  const auto want = window_sums(8, 4, 64, 2, 2, [&](int64_t h, int64_t v, int64_t, int64_t, int64_t c) {
    return x[static_cast<size_t>((h * 8 + v) * 64 + c)] / 4.0;
  });
  EXPECT_LE(worst_excess(r.outputs.at("arg1"), want, 4e-3), 1e-6);
  const auto t = timed("avg_pool2d_k2");
  EXPECT_EQ(t.report.hbm_read_bytes, 2 * 8 * 8 * 64 * 2);
  EXPECT_EQ(t.report.hbm_write_bytes, 2 * 4 * 4 * 64 * 2);
}

// The window fields a kernel may not have: each one line naming the field.
TEST(WindowedOps, ReaderRefusesWindowsItCannotRun) {
  using Edit = std::function<void(Json&)>;
  const std::vector<std::pair<Edit, std::string>> cases = {
      {[](Json& d) { d["N_"]["paddingSizes_"]["i"]["padFront_"] = 1; },
       "$.0_avgpoolfwd.dscs_[0].avgpoolfwd.N_.paddingSizes_.i.padFront_: unsupported: padding 1"},
      {[](Json& d) { d["N_"]["paddingSizes_"]["i"]["totalSize_"] = 6; },
       "6 input elements, but 4 outputs at stride 2 with a window of 2 read 8"},
      {[](Json& d) {
         d["N_"]["i_"] = d["dataStageParam_"]["0"]["ss_"]["i_"] = int64_t{1} << 30;
         d["N_"]["paddingSizes_"]["i"]["stride_"] = int64_t{1} << 20;
       },
       "paddingSizes_.i: the windows of 'i' reach past 2^48 input elements"},
      {[](Json& d) { d["N_"]["paddingSizes_"]["i"]["totalSize_"] = 10; },
       "10 input elements, but its 4 windows end at 8: a whole stride or more no window reads"},
      {[](Json& d) { d["N_"]["paddingSizes_"]["j"]["windowDim_"] = "j"; }, "'j' is not another dimension of N_"},
      {[](Json& d) { d["dataStageParam_"]["0"]["ss_"]["paddingSizes_"]["i"]["stride_"] = 1; },
       "differs from N_'s window of 'i'"},
      {[](Json& d) { d["scheduleTree_"][0]["padding_"]["i"] = "zeros"; }, "unknown padding 'zeros'"},
      {[](Json& d) { d["computeOp_"][0]["opFuncName"] = "sumnonstick"; }, "no op reads through them"},
  };
  for (const auto& [edit, message] : cases) {
    Json doc = read_json_file(bundle_path("hand-written/avg_pool2d_k2/sdsc_0.json"));
    edit(doc["0_avgpoolfwd"]["dscs_"][0]["avgpoolfwd"]);
    const std::string error = error_of([&] { parse_sdsc(doc, "sdsc_0.json"); });
    EXPECT_NE(error.find(message), std::string::npos) << error;
  }
}

// A small CNN block as a graph: a strided conv2d with bias (PT), a padded
// depthwise conv (a pad, then the SFU's depthwiseconv2dnative) and a 2x2
// average pool; every device value against the host reference, and the
// SDSCs in torch-spyre's form (the windows in N_.paddingSizes_).
TEST(WindowedOps, CompiledCnnBlockMatchesItsReference) {
  const std::string graph = R"({"name": "cnn", "tensors": [
      {"name": "x", "shape": [2, 64, 13, 13], "dtype": "float16", "role": "input"},
      {"name": "w", "shape": [128, 64, 3, 3], "dtype": "float16", "role": "weight"},
      {"name": "b", "shape": [128], "dtype": "float16", "role": "weight"},
      {"name": "dw", "shape": [128, 1, 3, 3], "dtype": "float16", "role": "weight"},
      {"name": "y", "role": "output"}],
    "ops": [{"op": "conv2d", "inputs": ["x", "w", "b"], "outputs": ["c"], "attrs": {"stride": 2}},
            {"op": "conv2d", "inputs": ["c", "dw"], "outputs": ["d"], "attrs": {"padding": [1, 1], "groups": 128}},
            {"op": "avg_pool2d", "inputs": ["d"], "outputs": ["y"], "attrs": {"kernel_size": 2}}]})";
  for (const bool lx : {false, true}) {
    TempDir dir;
    compiler::CompileJob job;
    job.graph_path = dir.file("graph.json");
    write_text(job.graph_path, graph);
    job.options.lx.enabled = lx;
    const CompiledRun c = compile_and_run(job, dir);
    ASSERT_EQ(c.run.report.comparisons.size(), 1u);
    EXPECT_TRUE(c.run.report.comparisons[0].passed) << c.run.report.comparisons[0].mismatches;
    EXPECT_GT(c.run.report.comparisons[0].abs_error, 0.0);  // computed on the device, not passed through
    std::map<std::string, std::string> unit;
    for (const auto& k : c.run.report.kernels) unit[k.op] = k.unit;
    EXPECT_EQ(unit["conv2d"], "pt");
    EXPECT_EQ(unit["depthwiseconv2dnative"], "sfp");
    EXPECT_EQ(unit["avgpoolfwd"], "sfp");
    expect_invariants_hold(c.run.report, "cnn block");
    std::map<std::string, Json> windows;
    for (const auto& entry : std::filesystem::directory_iterator(dir.file("program"))) {
      if (!entry.path().filename().string().starts_with("sdsc_")) continue;
      const Json sdsc = read_json_file(entry.path().string());
      const Json& body = sdsc.begin().value()["dscs_"][0].begin().value();
      if (body["N_"].contains("paddingSizes_")) windows[sdsc.begin().value()["dscs_"][0].begin().key()] = body;
    }
    ASSERT_EQ(windows.size(), 3u);
    EXPECT_EQ(windows["conv2d"]["N_"]["paddingSizes_"]["i"],
              Json::parse(R"({"padFront_": 0, "padBack_": 0, "totalSize_": 13, "stride_": 2, "dilation_": 1,
                              "windowDim_": "ki"})"));
    EXPECT_EQ(windows["depthwiseconv2dnative"]["N_"]["paddingSizes_"]["j"]["totalSize_"], 8);  // 6 + 2 padding
    EXPECT_EQ(windows["avgpoolfwd"]["constantInfo_"]["0"]["name_"], "nmap");
    EXPECT_EQ(windows["avgpoolfwd"]["scheduleTree_"][0]["padding_"]["i"], "padded_fullspan_wunneeded");
  }
}

// torch-spyre's work division of a window (test_work_division.py,
// TestConvSpatialBlockedVars): at stride 1 the output rows are divided like
// any output dim (each core reads its rows' window, the halo rows twice);
// at a stride above 1 i and j stay whole (test_blocks_spatial_dims_for_strided_conv,
// test_blocked_spatial_dims_are_not_distributed: [2, 32, 32, 32] on 32 cores);
// the window dims are never divided. Values against the reference either way.
TEST(WindowedOps, StrideOneDividesTheOutputRowsAStrideAboveOneDoesNot) {
  auto compiled = [](int stride) {
    const std::string graph = R"({"name": "dw", "tensors": [
        {"name": "x", "shape": [2, 32, 34, 34], "dtype": "float16", "role": "input"},
        {"name": "w", "shape": [32, 1, 3, 3], "dtype": "float16", "role": "weight"},
        {"name": "y", "role": "output"}],
      "ops": [{"op": "conv2d", "inputs": ["x", "w"], "outputs": ["y"], "attrs": {"groups": 32, "stride": [)" +
                              std::to_string(stride) + R"(, 1]}}]})";
    TempDir dir;
    compiler::CompileJob job;
    job.graph_path = dir.file("graph.json");
    write_text(job.graph_path, graph);
    const CompiledRun c = compile_and_run(job, dir);
    EXPECT_TRUE(c.run.report.comparisons.at(0).passed) << stride;
    const Json sdsc = read_json_file(dir.file("program/sdsc_0.json"));
    return sdsc.begin().value()["numWkSlicesPerDim_"];
  };
  const Json unstrided = compiled(1), strided = compiled(2);
  EXPECT_EQ(unstrided["i"], 32);  // the largest output dim takes the cores (one stick of channels, 2 images)
  EXPECT_EQ(unstrided["mb"], 1);
  EXPECT_EQ(strided["i"], 1);
  EXPECT_EQ(strided["j"], 1);
  EXPECT_EQ(strided["mb"], 2);
  for (const char* window : {"ki", "kj"}) {
    EXPECT_EQ(unstrided[window], 1);
    EXPECT_EQ(strided[window], 1);
  }
}

// What torch-spyre does not run either: one line naming the op.
TEST(WindowedOps, CompileRefusesWindowsItCannotRun) {
  auto error = [](const std::string& op, const std::string& weight, const std::string& attrs) {
    const Json graph = Json::parse(R"({"name": "g", "tensors": [
        {"name": "x", "shape": [1, 64, 8, 8], "dtype": "float16", "role": "input"},
        {"name": "w", "shape": )" + weight +
                                   R"(, "dtype": "float16", "role": "weight"},
        {"name": "y", "role": "output"}],
      "ops": [{"op": ")" + op + R"(", "inputs": )" +
                                   (op == "conv2d" ? R"(["x", "w"])" : R"(["x"])") +
                                   R"(, "outputs": ["y"], "attrs": )" + attrs + "}]}");
    return error_of([&] { compiler::compile(compiler::parse_graph(graph, "g.json"), compiler::CompileOptions{}); });
  };
  EXPECT_EQ(error("conv2d", "[64, 32, 3, 3]", R"({"groups": 2})"),
            "g.json: $.ops[0] conv2d 'y': unsupported: conv2d with groups 2 and weight (64, 32, 3, 3) (torch-spyre "
            "runs groups 1 and depthwise: groups = input channels = output channels)");
  EXPECT_EQ(error("conv2d", "[64, 32, 3, 3]", "{}"),
            "g.json: $.ops[0] conv2d 'y': conv2d weight (64, 32, 3, 3) takes 32 input channels, the input has 64");
  EXPECT_EQ(error("conv2d", "[64, 64, 9, 9]", "{}"),
            "g.json: $.ops[0] conv2d 'y': conv2d: the window (9x9) is larger than the padded input (1, 64, 8, 8)");
  EXPECT_EQ(error("avg_pool2d", "[1]", R"({"kernel_size": 2, "padding": 1, "count_include_pad": false})"),
            "g.json: $.ops[0] avg_pool2d 'y': unsupported: avg_pool2d with padding left out of the divisor "
            "(count_include_pad false)");
  EXPECT_EQ(error("avg_pool2d", "[1]", R"({"kernel_size": 3, "ceil_mode": true})"),
            "g.json: $.ops[0] avg_pool2d 'y': unsupported: avg_pool2d with ceil_mode where a last window would be "
            "partial (torch-spyre refuses ceil_mode)");
  EXPECT_EQ(error("conv2d", "[64, 64, 3, 3]", R"({"dilation": 0})"),
            "g.json: $.ops[0] conv2d 'y': conv2d: kernel, stride and dilation are 1 to 2^20 and padding 0 to 2^20");
  EXPECT_EQ(error("avg_pool2d", "[1]", "{}"),
            "g.json: $.ops[0] avg_pool2d 'y': avg_pool2d needs attribute 'kernel_size'");
  EXPECT_EQ(error("avg_pool2d", "[1]", R"({"kernel_size": [2, 2, 2]})"),
            "g.json: $.ops[0] avg_pool2d 'y': attribute 'kernel_size' must be an integer or a list of two");
}

}  // namespace
}  // namespace spyre::test
