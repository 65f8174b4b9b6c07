// torch-spyre's FP8 weights in QFP8WT sticks (two rows of 64 one-byte
// elements a stick), run from the hand-written kernels of
// models/bundles/hand-written (scripts/hand_written_kernels.py): qfp8wt
// writing them, batchmatmulfp8 reading them, their values against direct
// loops and their bytes; and the reader's refusals of sticks it cannot lay out.

#include <gtest/gtest.h>

#include "compiler/compile_job.h"
#include "e2e_support.h"
#include "runtime/error.h"
#include "runtime/numerics.h"
#include "runtime/sdsc.h"
#include "runtime/tensor_layout.h"

namespace spyre::test {
namespace {

sim::RunOutcome timed(const std::string& name) { return run_timed(bundle_path("hand-written/" + name)); }

// The host tensor `name` of a hand-written kernel.
const HostTensor& host_tensor(const Program& p, const std::string& name) {
  for (const auto& h : p.host_tensors) {
    if (h.name == name) return h;
  }
  throw std::runtime_error("no host tensor " + name);
}

// qfp8wt on a [128, 1024] fp16 weight over 4 cores: every element converted to
// FP8 E4M3 (the device's fp16 input rounded to DLFloat16 first), laid out so a
// stick holds rows 2r and 2r + 1 of 64 columns.
TEST(Fp8Weights, Qfp8wtWritesTwoRowSticks) {
  const std::string bundle = bundle_path("hand-written/qfp8wt_weight");
  const Program program = load_bundle(bundle);
  const TensorLayout& w = host_tensor(program, "arg1").layout;
  EXPECT_EQ(w.stick_shape().rows, 2);
  EXPECT_EQ(w.offset({{"mb", 1}, {"out", 0}}), 64);   // the second row of the first stick
  EXPECT_EQ(w.offset({{"mb", 2}, {"out", 0}}), 128);  // the next stick: the next row pair
  EXPECT_EQ(w.offset({{"mb", 0}, {"out", 64}}), 64 * 128);
  const auto inputs = random_inputs(program, -300, 300, 21);
  const sim::RunOutcome r = run_functional(bundle, inputs);
  const auto& x = inputs.at("arg0");
  const auto& y = r.outputs.at("arg1");
  ASSERT_EQ(y.size(), 128u * 1024u);
  size_t wrong = 0;
  for (size_t i = 0; i < y.size(); ++i) wrong += y[i] != round_fp8e4m3(round_dl16(x[i]));
  EXPECT_EQ(wrong, 0u);
  const auto t = timed("qfp8wt_weight");
  EXPECT_EQ(t.report.hbm_read_bytes, 128 * 1024 * 2);
  EXPECT_EQ(t.report.hbm_write_bytes, 128 * 1024);
}

// batchmatmulfp8: a [4, 128] FP8 times w [128, 1024] FP8 in QFP8WT sticks into
// fp16, the output columns over 4 cores: out[m][n] = sum over k of a[m][k] *
// w[k][n], each core reading its 256 columns of every row pair of w.
TEST(Fp8Weights, BatchMatmulFp8ReadsTheWeightsTwoRowSticks) {
  const std::string bundle = bundle_path("hand-written/fp8_matmul_qfp8wt");
  const auto inputs = random_inputs(load_bundle(bundle), -4, 4, 22);
  const sim::RunOutcome r = run_functional(bundle, inputs);
  std::vector<float> a, w;
  for (float v : inputs.at("arg0")) a.push_back(round_fp8e4m3(v));
  for (float v : inputs.at("arg1")) w.push_back(round_fp8e4m3(v));
  ASSERT_EQ(a.size(), 4u * 128u);
  ASSERT_EQ(w.size(), 128u * 1024u);
  std::vector<double> want(4 * 1024, 0.0);
  for (size_t m = 0; m < 4; ++m)
    for (size_t n = 0; n < 1024; ++n)
      for (size_t k = 0; k < 128; ++k) want[m * 1024 + n] += double(a[m * 128 + k]) * w[k * 1024 + n];
  EXPECT_LE(worst_excess(r.outputs.at("arg2"), want, 4e-3), 2e-2);
  const auto t = timed("fp8_matmul_qfp8wt");
  EXPECT_EQ(t.report.hbm_read_bytes, 128 * 1024 + 4 * (4 * 128));  // w once, a by every core
  EXPECT_EQ(t.report.hbm_write_bytes, 4 * 1024 * 2);
  EXPECT_EQ(t.report.kernels.at(0).unit, "pt");
  EXPECT_EQ(t.report.kernels.at(0).macs, 4.0 * 128 * 1024);
}

// Both as scaled_mm's device part, one bundle: the matmul reads the bytes
// qfp8wt wrote, so the two agree on where each element of a two-row stick lies.
TEST(Fp8Weights, BatchMatmulFp8ReadsWhatQfp8wtWrote) {
  const std::string bundle = bundle_path("hand-written/fp8_scaled_mm_qfp8wt");
  const auto inputs = random_inputs(load_bundle(bundle), -4, 4, 23);
  ASSERT_EQ(inputs.size(), 2u);  // w in fp16 (arg0) and a in FP8 (arg2)
  const sim::RunOutcome r = run_functional(bundle, inputs);
  const auto& w16 = inputs.at("arg0");
  const auto& a8 = inputs.at("arg2");
  std::vector<double> want(4 * 1024, 0.0);
  for (size_t m = 0; m < 4; ++m)
    for (size_t n = 0; n < 1024; ++n)
      for (size_t k = 0; k < 128; ++k)
        want[m * 1024 + n] += double(round_fp8e4m3(a8[m * 128 + k])) * round_fp8e4m3(round_dl16(w16[k * 1024 + n]));
  EXPECT_LE(worst_excess(r.outputs.at("arg3"), want, 4e-3), 2e-2);
  EXPECT_EQ(r.report.kernels.size(), 2u);
}

// quantize_weight_fp8_with_scale of a one-column weight [128, 1]: its QFP8WT
// sticks along the columns still (one padded row pair a stick), the values
// read back through them.
TEST(Fp8Weights, AOneColumnWeightKeepsItsQfp8wtLayout) {
  TempDir dir;
  compiler::CompileJob job;
  job.graph_path = dir.file("g.json");
  write_text(job.graph_path, R"({"name": "n1", "tensors": [
      {"name": "w", "shape": [128, 1], "dtype": "float16", "role": "input"},
      {"name": "s", "shape": [1], "dtype": "float16", "role": "constant", "value": 2.0},
      {"name": "qw", "role": "output"}],
    "ops": [{"op": "quantize_weight_fp8_with_scale", "inputs": ["w", "s"], "outputs": ["qw"]}]})");
  const CompiledRun c = compile_and_run(job, dir);
  ASSERT_EQ(c.run.report.comparisons.size(), 1u);
  EXPECT_TRUE(c.run.report.comparisons[0].passed) << c.run.report.comparisons[0].mismatches;
  const Json program = read_json_file(dir.file("program/program.json"));
  int found = 0;
  for (const auto& t : program["tensors"]) {
    if (t["name"] != "qw") continue;
    EXPECT_EQ(t["device_size"], Json::parse("[1, 64, 2, 64]"));
    ++found;
  }
  EXPECT_EQ(found, 1);
}

// The stick fields a kernel may not have: each one line naming the field.
TEST(Fp8Weights, ReaderRefusesSticksItCannotLayOut) {
  using Edit = std::function<void(Json&)>;
  const std::vector<std::pair<Edit, std::string>> cases = {
      {[](Json& d) {
         d["primaryDsInfo_"]["KERNEL"]["stickDimOrder_"] = {"mb", "in", "out"};
       },
       "KERNEL.stickDimOrder_: unsupported: sticks made of 3 dimensions (one or two)"},
      {[](Json& d) { d["primaryDsInfo_"]["KERNEL"]["stickSize_"] = {64}; },
       "KERNEL.stickSize_: has 1 entries for 2 stick dimensions"},
      {[](Json& d) {
         d["primaryDsInfo_"]["KERNEL"]["stickSize_"] = {4, 64};
       },
       "a stick of 4 x 64 x SEN143_FP8 is 256 bytes; the device stick is 128 bytes"},
      {[](Json& d) {
         d["primaryDsInfo_"]["KERNEL"]["stickDimOrder_"] = {"out", "out"};
       },
       "names 'out' twice"},
      {[](Json& d) {
         d["primaryDsInfo_"]["KERNEL"]["stickDimOrder_"] = {"mb", "out"};
       },
       "stickDimOrder_[0]: stick dimension 'mb' is not in layoutDimOrder_"},
      {[](Json& d) {
         d["labeledDs_"][1]["scale_"] = {-1, 1};
       },
       "unsupported: scale -1 on the stick's row dimension 'in' (a two-dim stick is read whole)"},
  };
  for (const auto& [edit, message] : cases) {
    Json doc = read_json_file(bundle_path("hand-written/fp8_matmul_qfp8wt/sdsc_0.json"));
    edit(doc["0_batchmatmulfp8"]["dscs_"][0]["batchmatmulfp8"]);
    const std::string error = error_of([&] { parse_sdsc(doc, "sdsc_0.json"); });
    EXPECT_NE(error.find(message), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace spyre::test
