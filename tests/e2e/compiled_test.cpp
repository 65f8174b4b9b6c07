// Compiled programs on the card model: every built-in workload compiles for
// 1, 4 and 32 cores, runs, and matches the fp32 host reference within
// DLFloat16 tolerance; the Granite-3.3-8B decoder layer runs in timing mode;
// program.json manifests bind names, constants, several bundles.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>

#include "compiler/compile_job.h"
#include "compiler/compiler.h"
#include "compiler/ir/model_ops.h"
#include "compiler/split/hbm_traffic.h"
#include "e2e_support.h"
#include "runtime/arch_config.h"
#include "runtime/npy.h"
#include "runtime/numerics.h"
#include "sim/run_bundle.h"
#include "test_support.h"
#include "tests/compiler/small_workloads.h"

namespace spyre {
namespace {

namespace fs = std::filesystem;
using compiler::CompileJob;

struct Case {
  std::string workload;
  std::vector<int64_t> shape;
  int64_t dim = -1;
  compiler::DType dtype = compiler::DType::F16;
  std::string label;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  // Every unary op of the registry (runtime/op_registry.cpp) and the binary workloads.
  std::vector<std::string> pointwise = compiler::pointwise_op_names();
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) pointwise.push_back(op);
  for (const auto& op : pointwise) out.push_back({op, {64, 256}, -1, compiler::DType::F16, ""});
  for (const char* op : {"sum", "mean", "amax", "amin", "prod", "softmax"}) {
    out.push_back({op, {64, 256}, -1, compiler::DType::F16, ""});
    out.push_back({op, {64, 256}, 0, compiler::DType::F16, std::string(op) + "_rows"});
  }
  out.push_back({"add", {4, 64, 128}, -1, compiler::DType::F32, "add_fp32_3d"});
  out.push_back({"softmax", {64, 256}, -1, compiler::DType::BF16, "softmax_bf16"});
  out.push_back({"exp", {3, 100}, -1, compiler::DType::F16, "exp_partial_stick"});
  // Dims ending in a partial stick, split over their padded sticks (N_ padded):
  // a matmul's N, a softmax's rows (its reductions keep the padded dim whole),
  // a reduction over rows whose output sticks are padded.
  out.push_back({"matmul", {40, 128, 1000}, -1, compiler::DType::F16, "matmul_partial_stick"});
  out.push_back({"softmax", {8, 1000}, -1, compiler::DType::F16, "softmax_partial_stick"});
  out.push_back({"sum", {64, 100}, 0, compiler::DType::F16, "sum_rows_partial_stick"});
  out.push_back({"layernorm", {64, 256}, -1, compiler::DType::F16, ""});
  out.push_back({"rmsnorm", {64, 256}, -1, compiler::DType::F16, ""});
  out.push_back({"matmul", {64, 128, 256}, -1, compiler::DType::F16, ""});
  out.push_back({"matmul", {8, 1024, 64}, -1, compiler::DType::F16, "matmul_ksplit"});
  out.push_back({"linear", {64, 128, 256}, -1, compiler::DType::F16, ""});
  out.push_back({"bmm", {4, 64, 128, 64}, -1, compiler::DType::F16, ""});
  out.push_back({"mlp", {64, 128, 256}, -1, compiler::DType::F16, ""});
  out.push_back({"attention", {1, 8, 64, 64}, -1, compiler::DType::F16, ""});
  out.push_back({"decoder", {}, -1, compiler::DType::F16, ""});
  return out;
}

// The compile job of one case on `cores` cores.
CompileJob workload_job(const Case& c, int cores) {
  CompileJob job;
  job.workload = c.workload;
  job.params.shape = c.shape;
  job.params.dim = c.dim;
  job.params.dtype = c.dtype;
  if (c.workload == "attention") job.params.kv_heads = 2;
  if (c.workload == "decoder") {
    // Granite's structure at a size a functional run does in a second.
    const compiler::WorkloadParams small = compiler::test_workloads::small_decoder();
    job.params.seq = small.seq;
    job.params.hidden = small.hidden;
    job.params.heads = small.heads;
    job.params.kv_heads = small.kv_heads;
    job.params.intermediate = small.intermediate;
  }
  job.options.cores = cores;
  return job;
}

// Compiles the job with --emit-io, runs it on the reference inputs and
// checks every output and the absence of hazards.
using Checked = test::CompiledRun;

Checked compile_and_check(CompileJob job, const test::TempDir& dir) {
  const Checked c = test::compile_and_run(job, dir);
  EXPECT_FALSE(c.run.report.comparisons.empty());
  for (const auto& cmp : c.run.report.comparisons) {
    EXPECT_TRUE(cmp.passed) << job.graph_path << job.workload << " " << cmp.name << ": " << cmp.mismatches << " of "
                            << cmp.elements << " off; worst at " << cmp.worst_coords << " got " << cmp.got
                            << " expected " << cmp.expected;
  }
  EXPECT_TRUE(c.run.report.hazards.empty()) << c.run.report.hazards.front().detail;
  test::expect_invariants_hold(c.run.report, job.graph_path + job.workload);
  return c;
}

// Every workload compiles with LX planning off and on (stage 4, the best
// solver): the numbers must not change, and the HBM bytes the compiler
// predicts must be the bytes the card model moves.
class CompiledWorkload : public ::testing::TestWithParam<std::tuple<Case, int, bool>> {};

TEST_P(CompiledWorkload, MatchesTheHostReference) {
  const auto& [c, cores, lx] = GetParam();
  test::TempDir dir;
  CompileJob job = workload_job(c, cores);
  job.options.lx.enabled = lx;
  const Checked checked = compile_and_check(job, dir);
  // A batched matmul's core reads its weight slice again for every pass of
  // pt.pe_rows rows (sim/schedule/kernel_plan.cpp); the prediction counts
  // each slice once, so there the card moves at least as much.
  const auto& ops = checked.compiled.device.ops;
  const bool batched = std::any_of(ops.begin(), ops.end(), [](const auto& op) { return op.type == "batchmatmul"; });
  const int64_t predicted = compiler::predicted_hbm_bytes(checked.compiled.device);
  const int64_t moved = checked.run.report.hbm_read_bytes + checked.run.report.hbm_write_bytes;
  if (batched) {
    EXPECT_GE(moved, predicted);
  } else {
    EXPECT_EQ(predicted, moved);
  }
  // Every SDSC ran, on at most the cores work division gave it.
  size_t sdscs = 0;
  for (const auto& b : checked.compiled.device.bundles) sdscs += b.ops.size();
  ASSERT_EQ(checked.run.report.kernels.size(), sdscs);
  for (const auto& k : checked.run.report.kernels) EXPECT_LE(k.cores, cores);
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<Case, int, bool>>& info) {
  const Case& c = std::get<0>(info.param);
  return (c.label.empty() ? c.workload : c.label) + "_" + std::to_string(std::get<1>(info.param)) + "cores" +
         (std::get<2>(info.param) ? "_lx" : "");
}

INSTANTIATE_TEST_SUITE_P(Workloads, CompiledWorkload,
                         ::testing::Combine(::testing::ValuesIn(cases()), ::testing::Values(1, 4, 32),
                                            ::testing::Bool()),
                         case_name);

// Every LX solver's plan keeps the numbers right and the program hazard-free:
// every workload on 1, 4 and 32 cores against its host reference.
class CheckedWithSolver : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckedWithSolver, EveryWorkloadMatchesItsReference) {
  for (const Case& c : cases()) {
    for (int cores : {1, 4, 32}) {
      SCOPED_TRACE((c.label.empty() ? c.workload : c.label) + " on " + std::to_string(cores) + " cores");
      test::TempDir dir;
      CompileJob job = workload_job(c, cores);
      job.options.lx.enabled = true;
      job.options.lx.solver = GetParam();
      compile_and_check(job, dir);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Solvers, CheckedWithSolver,
                         ::testing::Values("greedy", "firstfit", "bestfit", "exact", "best"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(CompiledProgram, ExampleGraphsMatchTheirReference) {
  int graphs = 0;
  for (const auto& entry : fs::directory_iterator(test::source_path("models/workloads"))) {
    if (entry.path().extension() != ".json") continue;
    ++graphs;
    test::TempDir dir;
    CompileJob job;
    job.graph_path = entry.path().string();
    job.options.cores = 8;
    compile_and_check(job, dir);
  }
  EXPECT_GE(graphs, 4);
}

// The unary ops torch-spyre decomposes into pointwise device ops give
// torch's values exactly, zeros and integers included (random inputs in
// [-1, 1) never hit them).
TEST(CompiledProgram, PointwiseCompositesGiveTorchValuesAtTheEdges) {
  const std::vector<float> x = {-2.5f, -2.0f, -1.5f, -1.0f, -0.5f, 0.0f, 0.25f, 1.0f, 1.75f, 3.0f};
  std::vector<float> input;
  while (input.size() < 64 * 64) input.insert(input.end(), x.begin(), x.end());
  input.resize(64 * 64);
  const std::map<std::string, float (*)(float)> torch = {
      {"ceil", [](float v) { return std::ceil(v); }},
      {"sign", [](float v) { return static_cast<float>((v > 0) - (v < 0)); }},
      {"logical_not", [](float v) { return v == 0 ? 1.0f : 0.0f; }}};
  for (const auto& [op, value] : torch) {
    test::TempDir dir;
    CompileJob job;
    job.workload = op;
    job.params.shape = {64, 64};
    job.output_dir = dir.file("program");
    compiler::run_compile_job(job);
    fs::create_directories(dir.file("inputs"));
    write_npy(dir.file("inputs/x.npy"), {64, 64}, input, "f4");
    sim::RunOptions run;
    run.bundle = job.output_dir;
    run.inputs_dir = dir.file("inputs");
    const sim::RunOutcome outcome = sim::run_bundle(run);
    const std::vector<float>& y = outcome.outputs.at("y");
    ASSERT_EQ(y.size(), input.size()) << op;
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], value(x[i])) << op << "(" << x[i] << ")";
  }
}

// torch-spyre's FP8 quantize / dequantize (models/workloads/fp8_quantize.json):
// the qfp8ch kernel writes SEN143_FP8, 128 elements per stick; every value is
// the E4M3 rounding of the scaled fp16 value, and back, exactly.
TEST(CompiledProgram, Fp8QuantizeRoundsToE4m3AndBack) {
  test::TempDir dir;
  CompileJob job;
  job.graph_path = test::source_path("models/workloads/fp8_quantize.json");
  job.options.cores = 8;
  const Checked c = compile_and_check(job, dir);
  const Json sdsc = Json::parse(test::read_text(dir.file("program/sdsc_3.json")));
  ASSERT_TRUE(sdsc.begin().key().ends_with("_qfp8ch")) << sdsc.begin().key();
  const std::string text = sdsc.dump();
  EXPECT_NE(text.find("\"dataFormat_\":\"SEN143_FP8\""), std::string::npos);
  EXPECT_NE(
      text.find("\"OUTPUT\":{\"layoutDimOrder_\":[\"mb\",\"out\"],\"stickDimOrder_\":[\"out\"],\"stickSize_\":[128]}"),
      std::string::npos);
  EXPECT_EQ(c.run.report.kernels[3].hbm_write_bytes, 128 * 512);  // one byte an element
  const std::vector<float> x = read_npy(dir.file("io/inputs/x.npy")).values;
  const float scale = read_npy(dir.file("io/inputs/scale.npy")).values.at(0);
  const float inv = round_dl16(1.0f / scale);
  const std::vector<float>& q = c.run.outputs.at("q");
  const std::vector<float>& y = c.run.outputs.at("y");
  ASSERT_EQ(q.size(), x.size());
  int inexact = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float scaled = round_dl16(x[i] * inv);
    const float want = round_fp8e4m3(std::clamp(scaled, -448.0f, 448.0f));
    ASSERT_EQ(q[i], want) << i;
    ASSERT_EQ(y[i], round_dl16(want * scale)) << i;
    inexact += want != scaled;
  }
  EXPECT_GT(inexact, static_cast<int>(x.size()) / 2);  // FP8 keeps 3 fraction bits: most values move
}

// An example graph compiled and checked on 1, 4 and 32 cores, LX planning
// off and on: `check` is given each run.
void on_every_core_count(const std::string& graph, const std::function<void(const Checked&)>& check) {
  for (const int cores : {1, 4, 32}) {
    for (const bool lx : {false, true}) {
      SCOPED_TRACE(graph + " on " + std::to_string(cores) + " cores, lx " + std::to_string(lx));
      test::TempDir dir;
      CompileJob job;
      job.graph_path = test::source_path("models/workloads/" + graph);
      job.options.cores = cores;
      job.options.lx.enabled = lx;
      check(compile_and_check(job, dir));
    }
  }
}

// The example graph of composed torch ops (mm, addmm, t, fills, norms,
// reductions over two dims, max, repeat, type_as, view_as) matches its
// reference on every core count.
TEST(CompiledProgram, TensorOpsMatchTheirReferenceOnEveryCoreCount) {
  on_every_core_count("tensor_ops.json", [](const Checked& c) { EXPECT_EQ(c.run.report.comparisons.size(), 17u); });
}

// cat (RoPE's rotate_half along the stick dim, halves of whole sticks and
// halves ending mid-stick; a KV cache along the sequence) and stack match
// their reference on every core count, without hazards; each input is
// copied once.
TEST(CompiledProgram, CatMatchesItsReferenceOnEveryCoreCount) {
  on_every_core_count("rope_kv_cat.json", [](const Checked& c) {
    EXPECT_EQ(c.run.report.comparisons.size(), 4u);
    // Two negs, then one identity per input of the three cats and the stack.
    EXPECT_EQ(c.run.report.kernels.size(), 10u);
    EXPECT_EQ(compiler::predicted_hbm_bytes(c.compiled.device),
              c.run.report.hbm_read_bytes + c.run.report.hbm_write_bytes);
  });
}

// Prefill and a decode step over a KV cache match the host reference's
// logits, hazard-free.
TEST(CompiledProgram, GraniteModelPrefillAndDecodeMatchTheirReference) {
  for (const std::string phase : {"prefill", "decode"}) {
    SCOPED_TRACE(phase);
    test::TempDir dir;
    const Checked c = compile_and_check(test::small_granite_job(phase), dir);
    ASSERT_EQ(c.run.report.comparisons.size(), 1u);
    EXPECT_EQ(c.run.report.comparisons[0].name, "logits");
  }
}

// Tensor parallelism on two cards (--cards 2): each card runs its half of
// the heads and of the MLP on its half of the weights, an all-reduce after
// the O and down projections sums the partial results; the logits of card 0
// match the whole model's reference, prefill and decode. Each all-reduce of
// B bytes takes the ring's 2 (N - 1) steps of B / N on the card's link.
TEST(CompiledProgram, GraniteModelOnTwoCardsMatchesTheWholeModel) {
  for (const std::string phase : {"prefill", "decode"}) {
    SCOPED_TRACE(phase);
    test::TempDir dir;
    CompileJob job = test::small_granite_job(phase);
    job.params.cards = 2;
    const Checked c = compile_and_check(job, dir);
    const sim::RunReport& r = c.run.report;
    ASSERT_EQ(r.comparisons.size(), 1u);
    EXPECT_EQ(r.comparisons[0].name, "logits");
    EXPECT_EQ(r.cards, 2);
    ASSERT_EQ(r.collectives.size(), 4u);                      // O and down of each layer
    const int64_t bytes = int64_t{2} * job.params.seq * 512;  // (1, seq, hidden) fp16
    const ArchConfig arch = load_arch("", {});
    const double step_us = arch.card_link.latency_us + static_cast<double>(bytes / 2) / arch.card_link.gbps / 1000;
    for (const auto& collective : r.collectives) {
      EXPECT_EQ(collective.op, "all_reduce");
      EXPECT_EQ(collective.bytes, bytes);
      EXPECT_NEAR(collective.end_us - collective.start_us, 2 * step_us, 1e-3) << collective.tensor;
    }
    EXPECT_EQ(r.collectives[0].tensor, "layers.0.o");
    EXPECT_EQ(r.collectives[1].tensor, "layers.0.m");
    EXPECT_EQ(r.card_link_sent_bytes, 4 * bytes);  // 2 (N - 1) / N of each tensor
    EXPECT_EQ(r.card_link_received_bytes, 4 * bytes);
    EXPECT_GT(r.latency_us, r.collectives.back().end_us);
  }
}

// A tensor-parallel split must divide the heads, the KV heads and the MLP.
TEST(CompiledProgram, CardsThatDoNotDivideTheModelAreRefused) {
  test::TempDir dir;
  CompileJob job = test::small_granite_job("prefill");
  job.params.cards = 4;
  job.output_dir = dir.file("program");
  EXPECT_EQ(test::error_of([&] { compiler::run_compile_job(job); }),
            "--cards: 4 cards do not divide the key/value heads (2)");
}

// The same graph on an input whose results are known by hand: x[i][j] =
// (j % 4 - 1.5) / 2, values -0.75, -0.25, 0.25, 0.75 in every row.
TEST(CompiledProgram, TensorOpsGiveHandComputedValues) {
  test::TempDir dir;
  CompileJob job;
  job.graph_path = test::source_path("models/workloads/tensor_ops.json");
  job.output_dir = dir.file("program");
  job.emit_io_dir = dir.file("io");
  compiler::run_compile_job(job);
  std::vector<float> x(64 * 128);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (static_cast<float>(i % 4) - 1.5f) / 2;
  write_npy(dir.file("io/inputs/x.npy"), {64, 128}, x, "f4");
  sim::RunOptions run;
  run.bundle = job.output_dir;
  run.inputs_dir = dir.file("io/inputs");
  const sim::RunOutcome outcome = sim::run_bundle(run);
  auto out = [&](const std::string& name) { return outcome.outputs.at(name); };
  EXPECT_EQ(out("full_out"), std::vector<float>(32 * 64, 1.5f));
  EXPECT_EQ(out("fill_out"), std::vector<float>(64 * 128, -2.25f));
  EXPECT_EQ(out("zl_out"), std::vector<float>(64 * 128, 0.0f));
  EXPECT_EQ(out("l1"), std::vector<float>{4096.0f});  // 8192 elements of mean |x| 0.5
  EXPECT_EQ(out("sum2"), std::vector<float>{4096.0f});
  EXPECT_EQ(out("mean2"), std::vector<float>{0.5f});
  EXPECT_EQ(out("mx"), std::vector<float>{0.75f});
  const std::vector<float> l2 = out("l2");  // sqrt(128 x 0.3125) per row
  ASSERT_EQ(l2.size(), 64u);
  for (float v : l2) EXPECT_NEAR(v, std::sqrt(40.0f), 0.02f);
  const std::vector<float> linf = out("linf");  // per column: |x| of that column
  ASSERT_EQ(linf.size(), 128u);
  for (size_t j = 0; j < 128; ++j) EXPECT_EQ(linf[j], std::fabs(x[j])) << j;
  // repeat [1, 2]: each row twice side by side; [2, 1]: the whole tensor twice.
  const std::vector<float> rep1 = out("rep1"), rep0 = out("rep0");
  for (size_t i = 0; i < 64; ++i) {
    for (size_t j = 0; j < 256; ++j) ASSERT_EQ(rep1[i * 256 + j], x[i * 128 + j % 128]) << i << "," << j;
  }
  for (size_t i = 0; i < rep0.size(); ++i) ASSERT_EQ(rep0[i], x[i % x.size()]) << i;
}

// A graph that converts fp16 to fp32, computes in fp32 and converts back
// runs on 1, 4 and 32 cores, LX planning off and on: the fp32 result matches
// the reference to fp32 precision, the fp16 one to DLFloat16's.
TEST(CompiledProgram, CastsRunAndKeepEachFormatsPrecision) {
  const std::string graph = R"({"name": "cast", "tensors": [
      {"name": "x", "shape": [64, 256], "dtype": "float16", "role": "input"},
      {"name": "w", "shape": [64, 256], "dtype": "float32", "role": "input"},
      {"name": "y", "role": "output"}, {"name": "z", "role": "output"}],
    "ops": [{"op": "float", "inputs": ["x"], "outputs": ["x32"]}, {"op": "mul", "inputs": ["x32", "w"], "outputs": ["y"]},
            {"op": "to", "inputs": ["y"], "outputs": ["z"], "attrs": {"dtype": "float16"}}]})";
  for (const int cores : {1, 4, 32}) {
    for (const bool lx : {false, true}) {
      test::TempDir dir;
      CompileJob job;
      job.graph_path = dir.file("cast.json");
      test::write_text(job.graph_path, graph);
      job.options.cores = cores;
      job.options.lx.enabled = lx;
      const test::CompiledRun c = test::compile_and_run(job, dir);
      ASSERT_EQ(c.run.report.comparisons.size(), 2u);
      for (const auto& cmp : c.run.report.comparisons) {
        EXPECT_TRUE(cmp.passed) << cores << " cores, lx " << lx << ": " << cmp.name << " " << cmp.mismatches;
        EXPECT_LT(cmp.tolerance.rtol, cmp.name == "y" ? 1e-6 : 1e-2) << cmp.name;
      }
      std::vector<std::string> ops;
      for (const auto& k : c.run.report.kernels) ops.push_back(k.op);
      EXPECT_EQ(ops, (std::vector<std::string>{"dl16tofp32", "mul", "fp32todl16"}));
      test::expect_invariants_hold(c.run.report, "cast on " + std::to_string(cores) + " cores");
    }
  }
}

// Integer tensors as torch-spyre runs them (int64 narrowed to IEEE_INT32,
// arithmetic in fp32 between int32tofp32 and fp32toint32): position ids
// shifted and squared stay integers, a comparison is a float16 0/1 mask, a
// cast to float16 is exact; every value matches the host reference exactly.
TEST(CompiledProgram, IntegerTensorsComputeInFp32AndStayExact) {
  const std::string graph = R"({"name": "ints", "tensors": [
      {"name": "pos", "shape": [4, 64], "dtype": "int64", "role": "input"},
      {"name": "shifted", "role": "output"}, {"name": "square", "role": "output"},
      {"name": "mask", "role": "output"}, {"name": "half", "role": "output"}],
    "ops": [{"op": "add", "inputs": ["pos"], "outputs": ["shifted"], "attrs": {"scalar": 3}},
            {"op": "mul", "inputs": ["shifted", "shifted"], "outputs": ["square"]},
            {"op": "le", "inputs": ["pos"], "outputs": ["mask"], "attrs": {"scalar": 10}},
            {"op": "to", "inputs": ["pos"], "outputs": ["half"], "attrs": {"dtype": "float16"}}]})";
  for (const int cores : {1, 4}) {
    test::TempDir dir;
    CompileJob job;
    job.graph_path = dir.file("ints.json");
    test::write_text(job.graph_path, graph);
    job.options.cores = cores;
    const test::CompiledRun c = test::compile_and_run(job, dir);
    ASSERT_EQ(c.run.report.comparisons.size(), 4u);
    for (const auto& cmp : c.run.report.comparisons) {
      EXPECT_TRUE(cmp.passed) << cores << " cores: " << cmp.name << " " << cmp.mismatches;
      EXPECT_EQ(cmp.abs_error, 0.0) << cmp.name << " worst at " << cmp.worst_coords;
    }
    std::vector<std::string> ops;
    for (const auto& k : c.run.report.kernels) ops.push_back(k.op);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "int32tofp32"), 4) << cores;  // add, le, to, and mul's operand
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "fp32toint32"), 2) << cores;  // add's and mul's results
    test::expect_invariants_hold(c.run.report, "ints on " + std::to_string(cores) + " cores");
  }
}

// A graph given as text compiled (LX planning on or off) and run against its references.
test::CompiledRun compile_graph_text(const std::string& graph, bool lx, const test::TempDir& dir) {
  CompileJob job;
  job.graph_path = dir.file("graph.json");
  test::write_text(job.graph_path, graph);
  job.options.lx.enabled = lx;
  return test::compile_and_run(job, dir);
}

// torch-spyre's test_fp8_scaled_mm (test_inductor_ops.py, bdc905f): a and b
// quantized with their scales (spyre.quantize_fp8_with_scale and
// quantize_weight_fp8_with_scale: * 1 / scale, clamped to +-448, qfp8ch and
// qfp8wt), then _scaled_mm with scale_a 2, scale_b 3 and bias 0.5, on its
// shapes: the FP8 matmul (batchmatmulfp8 on the PT array, one byte an operand
// element, the weight in QFP8WT's two-row sticks, its contraction never
// divided), then the scales and the bias; the values against the host
// reference. Once more with the weight converted by `to` (qfp8ch, one-dim sticks).
TEST(CompiledProgram, ScaledMmRunsTorchSpyresFp8Matmul) {
  for (const auto& [m, k, n, weight_op] :
       {std::tuple{128, 128, 128, "quantize_weight_fp8_with_scale"},
        std::tuple{3, 128, 128, "quantize_weight_fp8_with_scale"},
        std::tuple{4, 128, 1024, "quantize_weight_fp8_with_scale"},
        std::tuple{1, 4096, 4096, "quantize_weight_fp8_with_scale"}, std::tuple{4, 128, 1024, "to"}}) {
    const bool qfp8wt = std::string(weight_op) != "to";
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + " " + weight_op);
    auto shape = [](int rows, int cols) { return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]"; };
    const std::string quantize_b =
        qfp8wt ? R"({"op": "quantize_weight_fp8_with_scale", "inputs": ["b", "scale_b"], "outputs": ["qb"]})"
               : R"({"op": "div", "inputs": ["b", "scale_b"], "outputs": ["b_s"]},
              {"op": "clamp", "inputs": ["b_s"], "outputs": ["b_c"], "attrs": {"min": -448, "max": 448}},
              {"op": "to", "inputs": ["b_c"], "outputs": ["qb"], "attrs": {"dtype": "float8_e4m3fn"}})";
    const std::string graph = R"({"name": "fp8mm", "tensors": [
        {"name": "a", "shape": )" +
                              shape(m, k) + R"(, "dtype": "float16", "role": "input"},
        {"name": "b", "shape": )" +
                              shape(k, n) + R"(, "dtype": "float16", "role": "weight"},
        {"name": "scale_a", "shape": [1], "dtype": "float16", "role": "constant", "value": 2.0},
        {"name": "scale_b", "shape": [1], "dtype": "float16", "role": "constant", "value": 3.0},
        {"name": "bias", "shape": [1], "dtype": "float16", "role": "constant", "value": 0.5},
        {"name": "qb", "role": "output"},
        {"name": "y", "role": "output"}],
      "ops": [{"op": "quantize_fp8_with_scale", "inputs": ["a", "scale_a"], "outputs": ["qa"]},
              )" + quantize_b +
                              R"(,
              {"op": "_scaled_mm", "inputs": ["qa", "qb", "scale_a", "scale_b", "bias"], "outputs": ["y"],
               "attrs": {"out_dtype": "float16"}}]})";
    test::TempDir dir;
    const test::CompiledRun c = compile_graph_text(graph, false, dir);
    ASSERT_EQ(c.run.report.comparisons.size(), 2u);  // y and the quantized weight, read back through its layout
    for (const auto& cmp : c.run.report.comparisons) EXPECT_TRUE(cmp.passed) << cmp.name << ": " << cmp.mismatches;
    const auto mm = std::find_if(c.run.report.kernels.begin(), c.run.report.kernels.end(),
                                 [](const auto& kr) { return kr.op == "batchmatmulfp8"; });
    ASSERT_NE(mm, c.run.report.kernels.end());
    EXPECT_EQ(mm->unit, "pt");
    EXPECT_GE(mm->hbm_read_bytes, int64_t{k} * n);  // b once at least, one byte an element
    EXPECT_LT(mm->hbm_read_bytes, 2 * (int64_t{k} * n + int64_t{m} * k) * 32);
    EXPECT_EQ(mm->macs, double(m) * k * n);
    const Json sdsc = read_json_file(dir.file("program") + "/" + mm->file);
    const Json& top = sdsc.begin().value();
    const Json& body = top["dscs_"][0].begin().value();
    EXPECT_EQ(body["primaryDsInfo_"]["KERNEL"]["stickSize_"], qfp8wt ? Json::parse("[2, 64]") : Json::parse("[128]"));
    if (qfp8wt) {
      EXPECT_EQ(top["numWkSlicesPerDim_"]["in"], 1);  // the contraction over a QFP8WT weight is whole
    }
    test::expect_invariants_hold(c.run.report, "scaled_mm");
  }
  const Json bad = Json::parse(R"({"name": "g", "tensors": [
      {"name": "a", "shape": [4, 128], "dtype": "float16", "role": "input"},
      {"name": "b", "shape": [128, 64], "dtype": "float8_e4m3fn", "role": "input"},
      {"name": "s", "shape": [1], "dtype": "float16", "role": "input"}, {"name": "y", "role": "output"}],
    "ops": [{"op": "_scaled_mm", "inputs": ["a", "b", "s", "s"], "outputs": ["y"]}]})");
  EXPECT_EQ(
      test::error_of([&] { compiler::compile(compiler::parse_graph(bad, "g.json"), compiler::CompileOptions{}); }),
      "g.json: $.ops[0] _scaled_mm 'y': _scaled_mm multiplies float8_e4m3fn tensors (torch-spyre's "
      "lower_scaled_mm), not float16 'a'");
}

// An embedding lookup as torch-spyre runs it (indirect access): the table
// laid out rows outermost, the int64 ids as an int32 index, one core; each
// kernel reads the rows it gathers (not the table) and its index, and the
// values are the table's rows exactly, LX planning off and on.
TEST(CompiledProgram, EmbeddingGathersTheRowsOfItsIds) {
  const std::string graph = R"({"name": "emb", "tensors": [
      {"name": "ids", "shape": [2, 24], "dtype": "int64", "role": "input"},
      {"name": "table", "shape": [1000, 256], "dtype": "float16", "role": "weight"},
      {"name": "y", "role": "output"}],
    "ops": [{"op": "embedding", "inputs": ["table", "ids"], "outputs": ["e"]},
            {"op": "mul", "inputs": ["e"], "outputs": ["y"], "attrs": {"scalar": 2}}]})";
  for (const bool lx : {false, true}) {
    test::TempDir dir;
    const test::CompiledRun c = compile_graph_text(graph, lx, dir);
    ASSERT_EQ(c.run.report.comparisons.size(), 1u);
    EXPECT_TRUE(c.run.report.comparisons[0].passed) << c.run.report.comparisons[0].mismatches;
    EXPECT_EQ(c.run.report.comparisons[0].abs_error, 0.0);  // rows copied, then doubled: exact
    // 24 ids per row end inside a 32-element stick: one gather per row of ids.
    ASSERT_EQ(c.run.report.kernels.size(), 3u);
    for (size_t k = 0; k < 2; ++k) {
      const auto& gather = c.run.report.kernels[k];
      EXPECT_EQ(gather.op, "identity");
      EXPECT_EQ(gather.cores, 1);
      EXPECT_EQ(gather.hbm_read_bytes, 24 * 256 * 2 + 128) << "24 rows and the index's stick, not the table";
    }
    test::expect_invariants_hold(c.run.report, "embedding, lx " + std::to_string(lx));
  }
}

// Gathers the compiler cannot lay out, or an index that is not an integer
// tensor, get one line naming the op.
TEST(CompiledProgram, GatherRefusalsNameTheOp) {
  auto error = [](const std::string& table, const std::string& index) {
    const Json graph = Json::parse(R"({"name": "g", "tensors": [
        {"name": "x", "shape": )" + table +
                                   R"(, "dtype": "float16", "role": "input"},
        {"name": "i", "shape": [2, 5], "dtype": ")" +
                                   index + R"(", "role": "input"},
        {"name": "y", "role": "output"}],
      "ops": [{"op": "embedding", "inputs": ["x", "i"], "outputs": ["y"]}]})");
    return test::error_of(
        [&] { compiler::compile(compiler::parse_graph(graph, "g.json"), compiler::CompileOptions{}); });
  };
  EXPECT_EQ(error("[272]", "int32"),
            "g.json: $.ops[0] embedding 'y': unsupported: a gather from a rank-1 table through an index whose rows (5 "
            "elements) end inside a stick: flatten the index first");
  EXPECT_EQ(error("[272, 64]", "float16"),
            "g.json: $.ops[0] embedding 'y': the index of a gather is an integer tensor (int32 or int64), not float16");
}

// index_put (x[idx] = v, a KV-cache update) as torch-spyre runs it: the
// input copied into the result, then one indirect scatter writing the new
// rows at the rows the index names (the result its value tensor, the index
// its KERNEL_IDX, one core), its 8 rows and index read, 8 rows written; the
// values exact, LX planning off and on, rank 2 and rank 1.
TEST(CompiledProgram, IndexPutScattersTheRowsItsIndexNames) {
  const std::string graph = R"({"name": "kv", "tensors": [
      {"name": "cache", "shape": [64, 128], "dtype": "float16", "role": "input"},
      {"name": "slot", "shape": [8], "dtype": "int64", "role": "input"},
      {"name": "rows", "shape": [8, 128], "dtype": "float16", "role": "input"},
      {"name": "line", "shape": [96], "dtype": "float16", "role": "input"},
      {"name": "at", "shape": [3], "dtype": "int32", "role": "input"},
      {"name": "v", "shape": [3], "dtype": "float16", "role": "input"},
      {"name": "y", "role": "output"}, {"name": "z", "role": "output"}],
    "ops": [{"op": "index_put", "inputs": ["cache", "slot", "rows"], "outputs": ["updated"]},
            {"op": "mul", "inputs": ["updated"], "outputs": ["y"], "attrs": {"scalar": 2}},
            {"op": "index_put", "inputs": ["line", "at", "v"], "outputs": ["z"]}]})";
  for (const bool lx : {false, true}) {
    test::TempDir dir;
    const test::CompiledRun c = compile_graph_text(graph, lx, dir);
    ASSERT_EQ(c.run.report.comparisons.size(), 2u);
    for (const auto& cmp : c.run.report.comparisons) {
      EXPECT_TRUE(cmp.passed) << cmp.name << " " << cmp.mismatches;
      EXPECT_EQ(cmp.abs_error, 0.0) << cmp.name;  // rows copied (and doubled): exact
    }
    int scatters = 0;
    for (const auto& k : c.run.report.kernels) {
      if (k.op != "identity" || k.cores != 1) continue;
      ++scatters;
      if (k.hbm_write_bytes == 8 * 128 * 2) EXPECT_EQ(k.hbm_read_bytes, 8 * 128 * 2 + 128) << "8 rows and the index";
    }
    EXPECT_EQ(scatters, 2) << lx;
    test::expect_invariants_hold(c.run.report, "index_put, lx " + std::to_string(lx));
    // The scatter as torch-spyre writes one: the result is the value tensor its index names.
    bool found = false;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.file("program"))) {
      if (entry.path().extension() != ".json" || !entry.path().filename().string().starts_with("sdsc_")) continue;
      const Json sdsc = read_json_file(entry.path().string());
      const Json& top = sdsc.begin().value();
      if (!top.is_object() || !top.contains("dscs_") || !top["dscs_"][0].contains("identity")) continue;
      const Json& body = top["dscs_"][0]["identity"];
      if (!body["computeOp_"][0].contains("indirectAccessIndexLabeledDs")) continue;
      found = true;
      EXPECT_EQ(body["computeOp_"][0]["outputLabeledDs"], Json::array({"Tensor2-idx2"}));
      EXPECT_EQ(body["computeOp_"][0]["indirectAccessIndexLabeledDs"], Json::array({"Tensor1-idx1"}));
      EXPECT_EQ(body["scheduleTree_"][2]["indirectAllocType_"], "value_tensor");
      EXPECT_EQ(body["scheduleTree_"][1]["relatedIndirectAccessAlloc_"], "allocate-Tensor2_hbm");
    }
    EXPECT_TRUE(found);
  }
}

// index_put beyond torch-spyre's scatter (accumulation, values that are not
// the rows the index names, a float index) gets one line naming the op.
TEST(CompiledProgram, IndexPutRefusalsNameTheOp) {
  auto error = [](const std::string& values, const std::string& index, const std::string& attrs) {
    const Json graph = Json::parse(R"({"name": "g", "tensors": [
        {"name": "x", "shape": [16, 64], "dtype": "float16", "role": "input"},
        {"name": "i", "shape": [2], "dtype": ")" +
                                   index + R"(", "role": "input"},
        {"name": "v", "shape": )" + values +
                                   R"(, "dtype": "float16", "role": "input"},
        {"name": "y", "role": "output"}],
      "ops": [{"op": "index_put", "inputs": ["x", "i", "v"], "outputs": ["y"], "attrs": )" +
                                   attrs + "}]}");
    return test::error_of(
        [&] { compiler::compile(compiler::parse_graph(graph, "g.json"), compiler::CompileOptions{}); });
  };
  EXPECT_EQ(error("[2, 64]", "int32", R"({"accumulate": 1})"),
            "g.json: $.ops[0] index_put 'y': unsupported: index_put with accumulate (torch-spyre's scatter replaces "
            "rows)");
  EXPECT_EQ(error("[3, 64]", "int32", "{}"),
            "g.json: $.ops[0] index_put 'y': index_put's values are (3, 64), not the (2, 64) its index names (one row "
            "of the input per index)");
  EXPECT_EQ(error("[2, 64]", "float16", "{}"),
            "g.json: $.ops[0] index_put 'y': the index of index_put is an integer tensor (int32 or int64), not "
            "float16");
}

TEST(CompiledProgram, GraniteDecoderLayerRunsInTimingMode) {
  test::TempDir dir;
  CompileJob job;
  job.workload = "decoder";
  job.params.seq = 512;
  job.output_dir = dir.file("decoder");
  const auto compiled = compiler::run_compile_job(job);
  EXPECT_EQ(compiled.device.bundles.size(), 2u);  // 10 weights + activations need more than 7 arguments
  sim::RunOptions run;
  run.bundle = job.output_dir;
  const auto outcome = sim::run_bundle(run);
  EXPECT_EQ(outcome.report.mode, "timing");
  EXPECT_EQ(outcome.report.kernels.size(), 28u);
  EXPECT_TRUE(outcome.report.hazards.empty());
  // Every weight is read at least once: 4096x4096 x2, 1024x4096 x2, 12800x4096 x3 fp16.
  const int64_t weights = 2 * (2 * 4096LL * 4096 + 2 * 1024LL * 4096 + 3 * 12800LL * 4096);
  EXPECT_GT(outcome.report.hbm_read_bytes, weights);
  EXPECT_GT(outcome.report.latency_us, 1000.0);
  test::expect_invariants_hold(outcome.report, "decoder");
}

// A run starts cold: the host upload of a 9 MB matmul's operands leaves the
// memory-side cache empty, so LPDDR5 serves every distinct byte the cores
// read (before, the last 8 MiB uploaded were cache hits: 1.6 MB from DRAM).
TEST(CompiledProgram, ColdRunReadsEveryDistinctByteFromLpddr5) {
  test::TempDir dir;
  CompileJob job;
  job.workload = "matmul";
  job.params.shape = {64, 4096, 1024};
  compiler::parse_split_override("c=out:8,in:4", job.options);
  job.output_dir = dir.file("mm");
  compiler::run_compile_job(job);
  sim::RunOptions run;
  run.bundle = job.output_dir;
  const auto report = sim::run_bundle(run).report;
  const int64_t distinct = 2 * (64LL * 4096 + 4096LL * 1024);
  EXPECT_GE(report.dram_read_bytes, distinct);
  EXPECT_GE(report.cache_miss_bytes, 4096LL * 1024 * 2);
  test::expect_invariants_hold(report, "matmul 64x4096x1024");
}

// A streaming kernel's compute follows its loads as they land
// (dma.compute_follows_data): amax 2048x2048 on 32 cores reads two tiles per
// core and used to wait for the whole last tile before reducing it (7.6 us of
// reduce after the last byte); now it ends shortly after its last bytes. The
// reduce itself costs the same. A matmul's PT blocks still wait for their
// whole tile: its time does not depend on the setting.
TEST(CompiledProgram, StreamingComputeFollowsItsLoadsAsTheyLand) {
  test::TempDir dir;
  auto kernel_us = [&](const std::string& workload, std::vector<int64_t> shape, const std::string& follows) {
    CompileJob job;
    job.workload = workload;
    job.params.shape = std::move(shape);
    job.output_dir = dir.file(workload);
    compiler::run_compile_job(job);
    sim::RunOptions run;
    run.bundle = job.output_dir;
    run.protocol.warmup = 1;
    run.arch_overrides = {"dma.compute_follows_data=" + follows};
    const auto report = sim::run_bundle(run).report;
    test::expect_invariants_hold(report, workload + " follows=" + follows);
    double sfu = 0;
    for (const auto& c : report.cores) sfu += c.sfu_busy_pct;
    EXPECT_GT(report.kernels.size(), 0u);
    return std::pair(report.kernels.back().end_us - report.kernels.front().start_us, sfu * report.latency_us);
  };
  const auto [follows, follows_sfu] = kernel_us("amax", {2048, 2048}, "1");
  const auto [waits, waits_sfu] = kernel_us("amax", {2048, 2048}, "0");
  EXPECT_GT(waits - follows, 5.0);
  EXPECT_LT(waits - follows, 7.7);
  EXPECT_LT(follows, 70.0);                               // the card: 59.1 us (calibration/add_bcast_sweep_records.csv)
  EXPECT_NEAR(follows_sfu, waits_sfu, 1e-3 * waits_sfu);  // the same reduce, only earlier
  EXPECT_NEAR(kernel_us("matmul", {512, 1024, 256}, "1").first, kernel_us("matmul", {512, 1024, 256}, "0").first, 1e-6);
}

TEST(CompiledProgram, ManifestNamesHostTensorsAndShapes) {
  test::TempDir dir;
  CompileJob job;
  job.workload = "sum";
  job.params.shape = {64, 256};
  job.output_dir = dir.file("sum");
  job.emit_io_dir = dir.file("io");
  compiler::run_compile_job(job);
  sim::RunOptions run;
  run.bundle = job.output_dir;
  run.inputs_dir = dir.file("io/inputs");
  run.outputs_dir = dir.file("out");
  sim::run_bundle(run);
  // The host sees sum(x, -1) as (64,); the device keeps the reduced stick.
  EXPECT_EQ(read_npy(dir.file("out/y.npy")).shape, (std::vector<int64_t>{64}));
  EXPECT_EQ(read_npy(dir.file("io/reference/y.npy")).shape, (std::vector<int64_t>{64}));
  // Inputs are bound by tensor name.
  fs::remove(dir.file("io/inputs/x.npy"));
  EXPECT_EQ(test::error_of([&] { sim::run_bundle(run); }),
            dir.file("io/inputs") + ": missing input file(s): x.npy (64, 256)");
}

TEST(CompiledProgram, ManifestErrorsNameTheField) {
  test::TempDir dir;
  CompileJob job;
  job.workload = "abs";
  job.params.shape = {4, 64};
  job.output_dir = dir.file("abs");
  compiler::run_compile_job(job);
  sim::RunOptions run;
  run.bundle = job.output_dir;
  run.arch_overrides = {"address.segment_bytes=1073741824"};
  EXPECT_EQ(test::error_of([&] { sim::run_bundle(run); }),
            dir.file("abs/program.json") +
                ": $.segment_bytes: 17179869184 differs from the arch's address.segment_bytes 1073741824");
  Json manifest = read_json_file(dir.file("abs/program.json"));
  manifest["bundles"][0]["arguments"][1] = "nowhere";
  test::write_json(dir.file("abs/program.json"), manifest);
  run.arch_overrides.clear();
  EXPECT_EQ(test::error_of([&] { sim::run_bundle(run); }),
            dir.file("abs/program.json") + ": $.bundles[0].arguments[1]: no buffer named 'nowhere'");
  manifest["bundles"][0]["arguments"].erase(1);
  test::write_json(dir.file("abs/program.json"), manifest);
  EXPECT_EQ(test::error_of([&] { sim::run_bundle(run); }),
            dir.file("abs/sdsc_0.json") +
                ": $.0_abs.dscs_[0].abs.scheduleTree_[1]: uses argument segment 1, to which " +
                dir.file("abs/program.json") + " binds no buffer in this bundle");
  // Collectives: a known op, on a tensor the manifest lists, in a program of several cards.
  manifest = read_json_file(dir.file("abs/program.json"));
  manifest["collectives"] = Json::array({{{"op", "all_gather"}, {"tensor", "x"}, {"after_bundle", 0}}});
  manifest["cards"] = 2;
  test::write_json(dir.file("abs/program.json"), manifest);
  EXPECT_EQ(test::error_of([&] { sim::run_bundle(run); }),
            dir.file("abs/program.json") + ": $.collectives[0].op: unknown collective 'all_gather' (all_reduce)");
  manifest["collectives"][0]["op"] = "all_reduce";
  manifest["collectives"][0]["tensor"] = "nothing";
  test::write_json(dir.file("abs/program.json"), manifest);
  EXPECT_EQ(test::error_of([&] { sim::run_bundle(run); }),
            dir.file("abs/program.json") + ": $.collectives[0].tensor: no tensor named 'nothing'");
  manifest["collectives"][0]["tensor"] = "x";
  manifest["cards"] = 1;
  test::write_json(dir.file("abs/program.json"), manifest);
  EXPECT_EQ(test::error_of([&] { sim::run_bundle(run); }),
            dir.file("abs/program.json") + ": $.collectives[0]: a collective needs 'cards' of 2 or more");
}

}  // namespace
}  // namespace spyre
