// Every op the card model executes, on random inputs, against a plain host
// computation: unary and binary SFU ops, comparisons, where3, reductions over
// the stick and over a non-stick dim (split over cores), restickify, and layer
// norm as torch-spyre lowers it (exx2 -> layernormscale -> layernormnorm).

#include <cmath>
#include <utility>

#include <gtest/gtest.h>

#include "compiler/compile_job.h"
#include "e2e_support.h"
#include "runtime/npy.h"
#include "runtime/numerics.h"
#include "runtime/op_registry.h"
#include "sdsc_builder.h"

namespace spyre::test {
namespace {

constexpr int kRows = 64, kCols = 128;

// A (64, 128) fp16 tensor split by rows over 2 cores, in HBM.
TensorSpec matrix(std::vector<int> scale = {1, 1}) {
  return TensorSpec{"OUTPUT", {"r", "c"}, "c", std::move(scale), "hbm", {}, {}, 0};
}

SdscSpec pointwise(const std::string& op, int inputs,
                   const std::vector<std::map<std::string, int>>& split = {{{"r", 0}, {"c", 0}},
                                                                           {{"r", 1}, {"c", 0}}}) {
  SdscSpec s{"0_" + op, op, "sfp", {{"r", kRows}, {"c", kCols}}, {{"r", 2}}, split, {}, {}, {}, {}};
  for (int i = 0; i <= inputs; ++i) s.tensors.push_back(matrix());
  for (int i = 0; i < inputs; ++i) s.inputs.push_back(i);
  s.outputs = {inputs};
  return s;
}

sim::RunOutcome run_specs(const std::vector<SdscSpec>& specs, const Arrays& inputs) {
  TempDir dir;
  for (size_t i = 0; i < specs.size(); ++i)
    write_json(dir.file("sdsc_" + std::to_string(i) + ".json"), build_sdsc(specs[i]));
  return run_functional(dir.path(), inputs);
}

double softplus(double x) { return x > 20 ? x : std::log1p(std::exp(x)); }

struct UnaryCase {
  std::string op;
  float lo, hi;
  std::function<double(double)> f;
  std::vector<std::pair<std::string, float>> constants;
};

TEST(Ops, UnaryOpsMatchTheirDefinitions) {
  const std::vector<UnaryCase> cases = {
      {"abs", -3, 3, [](double x) { return std::fabs(x); }, {}},
      {"neg", -3, 3, [](double x) { return -x; }, {}},
      {"relufwd", -3, 3, [](double x) { return std::max(x, 0.0); }, {}},
      {"relu6fwd", -3, 9, [](double x) { return std::min(std::max(x, 0.0), 6.0); }, {}},
      {"exp", -4, 4, [](double x) { return std::exp(x); }, {}},
      {"log", 0.05f, 8, [](double x) { return std::log(x); }, {}},
      {"sqrt", 0.05f, 8, [](double x) { return std::sqrt(x); }, {}},
      {"rsqrt", 0.05f, 8, [](double x) { return 1 / std::sqrt(x); }, {}},
      {"reciprocal", 0.1f, 8, [](double x) { return 1 / x; }, {}},
      {"sigmoid", -6, 6, sigmoid, {}},
      {"tanh", -3, 3, [](double x) { return std::tanh(x); }, {}},
      {"gelufwd", -3, 3, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, {}},
      {"silu", -4, 4, [](double x) { return x * sigmoid(x); }, {}},
      {"mish", -3, 3, [](double x) { return x * std::tanh(softplus(x)); }, {}},
      {"softplus", -4, 4, softplus, {{"softplusBeta", 1.0f}, {"softplusThresh", 20.0f}}},
      {"clip",
       -2,
       2,
       [](double x) { return std::min(std::max(x, -0.5), 0.75); },
       {{"clipMin", -0.5f}, {"clipMax", 0.75f}}},
      {"identity", -3, 3, [](double x) { return x; }, {}},
  };
  uint32_t seed = 100;
  for (const auto& c : cases) {
    SdscSpec s = pointwise(c.op, 1);
    s.constants = c.constants;
    const std::vector<float> x = random_values(kRows * kCols, ++seed, c.lo, c.hi);
    const auto r = run_specs({s}, {{"arg0", x}});
    std::vector<double> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = c.f(x[i]);
    // Input rounding (2^-10 relative) propagates by |x f'(x) / f(x)|, at most ~4 here.
    EXPECT_LE(worst_excess(r.outputs.at("arg1"), want, 6e-3), 1e-3) << c.op;
  }
}

TEST(Ops, BinaryOpsComparisonsAndWhere) {
  // Inputs on a 0.25 grid, exact in DLFloat16, so comparisons see ties.
  auto grid = [](uint32_t seed) {
    auto v = random_values(kRows * kCols, seed, -2, 2);
    for (auto& x : v) x = std::round(x * 4) / 4;
    return v;
  };
  const auto a = grid(1), b = grid(2);
  const std::vector<std::pair<std::string, std::function<double(double, double)>>> cases = {
      {"add", [](double x, double y) { return x + y; }},
      {"sub", [](double x, double y) { return x - y; }},
      {"revsub", [](double x, double y) { return y - x; }},
      {"mul", [](double x, double y) { return x * y; }},
      {"maximum", [](double x, double y) { return std::max(x, y); }},
      {"minimum", [](double x, double y) { return std::min(x, y); }},
      {"equal", [](double x, double y) { return double(x == y); }},
      {"notequal", [](double x, double y) { return double(x != y); }},
      {"greaterequal", [](double x, double y) { return double(x >= y); }},
      {"lesserequal", [](double x, double y) { return double(x <= y); }},
      {"greater", [](double x, double y) { return double(x > y); }},
      {"greaterthan", [](double x, double y) { return double(x > y); }},
      {"lesser", [](double x, double y) { return double(x < y); }},
      {"lesserthan", [](double x, double y) { return double(x < y); }},
      {"logicaland", [](double x, double y) { return double(x != 0 && y != 0); }},
  };
  for (const auto& [op, f] : cases) {
    const auto r = run_specs({pointwise(op, 2)}, {{"arg0", a}, {"arg1", b}});
    std::vector<double> want(a.size());
    for (size_t i = 0; i < a.size(); ++i) want[i] = f(a[i], b[i]);
    EXPECT_LE(worst_excess(r.outputs.at("arg2"), want, 0), 0) << op;  // exact on this grid
  }
  const auto den = random_values(kRows * kCols, 3, 0.5f, 2);
  const auto div = run_specs({pointwise("realdiv", 2)}, {{"arg0", a}, {"arg1", den}});
  std::vector<double> quotient(a.size());
  for (size_t i = 0; i < a.size(); ++i) quotient[i] = a[i] / den[i];
  EXPECT_LE(worst_excess(div.outputs.at("arg2"), quotient, 4e-3), 1e-4);
  std::vector<float> cond(a.size());
  for (size_t i = 0; i < a.size(); ++i) cond[i] = a[i] > 0 ? 1.0f : 0.0f;
  const auto where = run_specs({pointwise("where3", 3)}, {{"arg0", cond}, {"arg1", a}, {"arg2", b}});
  std::vector<double> picked(a.size());
  for (size_t i = 0; i < a.size(); ++i) picked[i] = cond[i] != 0 ? a[i] : b[i];
  EXPECT_LE(worst_excess(where.outputs.at("arg3"), picked, 0), 0);
}

// A reduction of X into Y; `over_rows` reduces the non-stick dim r (split over
// the two cores, so the partials meet on the reduce-sum ring), else the stick dim c.
SdscSpec reduction(const std::string& op, bool over_rows) {
  SdscSpec s = pointwise(op, 1);
  s.tensors[1] = matrix(over_rows ? std::vector<int>{-1, 1} : std::vector<int>{1, -2});
  s.inputs = {0, 1};
  return s;
}

TEST(Ops, ReductionsOverTheStickAndOverRows) {
  const auto x = random_values(kRows * kCols, 21, -2, 2);
  struct Case {
    std::string op;
    bool over_rows;
    std::function<double(double, double)> combine;
    double init;
    std::vector<std::pair<std::string, float>> constants;
    double scale;
  };
  const std::vector<Case> cases = {
      {"sum", false, [](double acc, double v) { return acc + v; }, 0, {}, 1},
      {"max", false, [](double acc, double v) { return std::max(acc, v); }, -INFINITY, {}, 1},
      {"min", false, [](double acc, double v) { return std::min(acc, v); }, INFINITY, {}, 1},
      {"absmax", false, [](double acc, double v) { return std::max(acc, std::fabs(v)); }, 0, {}, 1},
      {"mean", false, [](double acc, double v) { return acc + v; }, 0, {{"scaling_factor", 1.0f / kCols}}, 1.0 / kCols},
      {"sumnonstick", true, [](double acc, double v) { return acc + v; }, 0, {}, 1},
      {"maxnonstick", true, [](double acc, double v) { return std::max(acc, v); }, -INFINITY, {}, 1},
      {"minnonstick", true, [](double acc, double v) { return std::min(acc, v); }, INFINITY, {}, 1},
      {"meannonstick",
       true,
       [](double acc, double v) { return acc + v; },
       0,
       {{"scaling_factor", 1.0f / kRows}},
       1.0 / kRows},
  };
  for (const auto& c : cases) {
    SdscSpec s = reduction(c.op, c.over_rows);
    s.constants = c.constants;
    const auto r = run_specs({s}, {{"arg0", x}});
    std::vector<double> want(c.over_rows ? kCols : kRows, c.init);
    for (int row = 0; row < kRows; ++row) {
      for (int col = 0; col < kCols; ++col) {
        double& w = want[c.over_rows ? col : row];
        w = c.combine(w, x[row * kCols + col]);
      }
    }
    for (auto& w : want) w *= c.scale;
    // Sums of 64-128 values rounded to DLFloat16 inputs: a few units of 2^-10.
    EXPECT_LE(worst_excess(r.outputs.at("arg1"), want, 4e-3), 0.02) << c.op;
    EXPECT_EQ(r.report.reduce_ring_bytes > 0, c.over_rows) << c.op;
  }
}

// prod within sticks (the name torch-spyre's SPYRE_FP32_OPS lists) and over
// rows (prodnonstick, split over the two cores: partial products combined on
// the reduce-sum ring), on values near 1 so 64-128 of them stay in range.
TEST(Ops, ProductsWithinSticksAndOverRows) {
  const auto x = random_values(kRows * kCols, 22, 0.97f, 1.03f);
  for (const bool over_rows : {false, true}) {
    const std::string op = over_rows ? "prodnonstick" : "prod";
    const auto r = run_specs({reduction(op, over_rows)}, {{"arg0", x}});
    std::vector<double> want(over_rows ? kCols : kRows, 1.0);
    for (int row = 0; row < kRows; ++row) {
      for (int col = 0; col < kCols; ++col) want[over_rows ? col : row] *= round_dl16(x[row * kCols + col]);
    }
    EXPECT_LE(worst_excess(r.outputs.at("arg1"), want, 4e-3), 0.0) << op;
  }
}

// topk as torch-spyre emits it (no public kernel; written from its codegen,
// superdsc.py and work_division.py): x (64, 256) sticks along the searched
// dim s, the k = 8 results along k, which the output has in place of s and
// sticks along the rows; k is split over 2 cores (4 results each, the card's
// most) and the rows over 2.
SdscSpec topk_kernel(const std::string& op, int k_slices = 2, int s_slices = 1) {
  SdscSpec s{"0_" + op, op, "sfp", {{"r", kRows}, {"s", 256}, {"k", 8}}, {{"r", 2}, {"k", k_slices}}, {}, {},
             {},        {}, {}};
  if (s_slices > 1) s.slices["s"] = s_slices;
  for (int c = 0; c < 2 * k_slices * s_slices; ++c)
    s.core_slice.push_back({{"r", c % 2}, {"k", (c / 2) % k_slices}, {"s", c / (2 * k_slices)}});
  s.tensors = {TensorSpec{"INPUT", {"s", "r"}, "s", {1, 1}, "hbm", {}, {}, 0},
               TensorSpec{"OUTPUT", {"r", "k"}, "r", {1, 1}, "hbm", {}, {}, 0}};
  s.inputs = {0};
  s.outputs = {1};
  return s;
}

TEST(Ops, TopkValuesAndIndicesWithKSplitOverCores) {
  const auto x = random_values(kRows * 256, 31, -4, 4);
  const auto values = run_specs({topk_kernel("topkvalue")}, {{"arg0", x}});
  const auto indices = run_specs({topk_kernel("topkindex")}, {{"arg0", x}});
  const auto& v = values.outputs.at("arg1");
  const auto& i = indices.outputs.at("arg1");
  ASSERT_EQ(v.size(), size_t{8 * kRows});
  ASSERT_EQ(i.size(), size_t{8 * kRows});
  for (int row = 0; row < kRows; ++row) {
    std::vector<std::pair<float, int>> sorted;
    for (int j = 0; j < 256; ++j) sorted.emplace_back(round_dl16(x[row * 256 + j]), j);
    std::stable_sort(sorted.begin(), sorted.end(), [](auto a, auto b) { return a.first > b.first; });
    for (int r = 0; r < 8; ++r) {
      // The output sticks along rows: element (row, r) is at r * 64 + row.
      EXPECT_EQ(v[r * kRows + row], sorted[r].first) << row << " " << r;
      EXPECT_EQ(i[r * kRows + row], sorted[r].second) << row << " " << r;
    }
  }
  // Each core reads its 32 rows whole and ranks 4 of them: 64 x 256 fp16 read
  // by the two cores of each row half.
  EXPECT_EQ(values.report.hbm_read_bytes, 2 * kRows * 256 * 2);
}

TEST(Ops, TopkBeyondTheCardsResultsPerCoreOrSplitSearchIsRefused) {
  const auto x = random_values(kRows * 256, 31, -4, 4);
  EXPECT_NE(error_of([&] {
              run_specs({topk_kernel("topkvalue", 1)}, {{"arg0", x}});
            })
                .find("topkvalue asks 8 of its k results along k of each core; the card's topk produces at most 4 "
                      "(arch 'sfu.topk_k_per_core')"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              run_specs({topk_kernel("topkindex", 2, 2)}, {{"arg0", x}});
            }).find("topkindex searches dim s split over 2 work slices; each core must search all of it"),
            std::string::npos);
}

TEST(Ops, RestickifyMovesTheStickToAnotherDim) {
  // X sticks along c, Y along r: the same values in another layout.
  SdscSpec s = pointwise("ReStickifyOpHBM", 1, {{{"r", 0}, {"c", 0}}, {{"r", 0}, {"c", 1}}});
  s.slices = {{"c", 2}};
  s.tensors[1] = TensorSpec{"OUTPUT", {"c", "r"}, "r", {1, 1}, "hbm", {}, {}, 0};
  const auto x = random_values(kRows * kCols, 5, -3, 3);
  const auto r = run_specs({s}, {{"arg0", x}});
  const auto& y = r.outputs.at("arg1");
  ASSERT_EQ(y.size(), x.size());
  // Y's host shape is (c, r) (stick dim last): y[c][r] = x[r][c].
  for (int row = 0; row < kRows; ++row) {
    for (int col = 0; col < kCols; ++col)
      ASSERT_NEAR(y[col * kRows + row], x[row * kCols + col], std::fabs(x[row * kCols + col]) * 2e-3);
  }
}

TEST(Ops, LayerNormAsTorchSpyreLowersIt) {
  const float eps = 1e-5f;
  // exx2: X -> S, a stick per row holding E[x] (lane 0) and E[x^2] (lane 1), in LX.
  SdscSpec exx2 = pointwise("exx2", 1);
  exx2.tensors[0].symbol = 1;
  exx2.tensors[1] = TensorSpec{"OUTPUT", {"r", "c"}, "c", {1, -2}, "lx", {0, 0}, {}, 0};
  exx2.inputs = {0, 1};
  exx2.constants = {{"exx2scale", 1.0f / kCols}};
  // layernormscale: S -> R = 1/sqrt(var + eps), in LX.
  SdscSpec scale = pointwise("layernormscale", 1);
  scale.tensors[0] = exx2.tensors[1];
  scale.tensors[1] = TensorSpec{"OUTPUT", {"r", "c"}, "c", {1, -2}, "lx", {4096, 4096}, {}, 0};
  scale.constants = {{"eps", eps}};
  // layernormnorm(X, S, R, W, B) -> Y, W and B broadcast over rows.
  SdscSpec norm = pointwise("layernormnorm", 5);
  norm.tensors[0].symbol = 1;
  norm.tensors[1] = exx2.tensors[1];
  norm.tensors[2] = scale.tensors[1];
  norm.tensors[3] = matrix({-1, 1});
  norm.tensors[3].symbol = 7001;
  norm.tensors[4] = matrix({-1, 1});
  norm.tensors[4].symbol = 8001;
  const auto x = random_values(kRows * kCols, 8, -2, 2);
  const auto w = random_values(kCols, 9, 0.5f, 1.5f);
  const auto b = random_values(kCols, 10, -0.5f, 0.5f);
  const auto r = run_specs({exx2, scale, norm}, {{"arg0", x}, {"arg1", w}, {"arg2", b}});
  std::vector<double> want(x.size());
  for (int row = 0; row < kRows; ++row) {
    double mean = 0, sq = 0;
    for (int col = 0; col < kCols; ++col) mean += x[row * kCols + col] / double(kCols);
    for (int col = 0; col < kCols; ++col) sq += std::pow(x[row * kCols + col] - mean, 2) / kCols;
    for (int col = 0; col < kCols; ++col)
      want[row * kCols + col] = (x[row * kCols + col] - mean) / std::sqrt(sq + eps) * w[col] + b[col];
  }
  EXPECT_LE(worst_excess(r.outputs.at("arg3"), want, 1e-2), 2e-2);
  EXPECT_TRUE(r.report.hazards.empty());
}

// Every pointwise row of the op registry (runtime/op_registry.cpp) through the
// SDSC reader and the card model, on its oracle values: the op's name, arity
// and constants as the SDSC carries them, results rounded to DLFloat16.
TEST(Ops, EveryRegistryPointwiseOpMeetsItsOracleOnTheCard) {
  int checked = 0;
  for (const OpInfo* op : builtin_ops()) {
    if (op->kind != OpKind::Elementwise && op->kind != OpKind::Copy) continue;
    for (size_t i = 0; i < op->oracle.size(); ++i) {
      const OracleCase& c = op->oracle[i];
      const int n = static_cast<int>(c.inputs.size());
      if (n < op->min_inputs || n > op->max_inputs) continue;  // layernormscale's exx2 pair: LayerNorm below
      SdscSpec s = pointwise(op->name, n);
      for (size_t k = 0; k < op->constants.size(); ++k)
        s.constants.push_back({op->constants[k].sdsc_name, c.constants[k]});
      Arrays inputs;
      for (int j = 0; j < n; ++j)
        inputs["arg" + std::to_string(j)] = std::vector<float>(kRows * kCols, c.inputs[static_cast<size_t>(j)]);
      const auto r = run_specs({s}, inputs);
      const std::vector<double> want(kRows * kCols, c.expected[0]);
      // DLFloat16 keeps 9 fraction bits: the stored result is within 2^-10 of it, relative.
      EXPECT_LE(worst_excess(r.outputs.at("arg" + std::to_string(n)), want, std::ldexp(1.0, -9)), 1e-6)
          << op->name << " oracle case " << i;
      ++checked;
    }
  }
  EXPECT_GE(checked, 60);
}

float cube(const float* v, int, const OpConstants&) { return v[0] * v[0] * v[0]; }
void cube_rows(const float* const* in, int, float* out, size_t n, const OpConstants&) {
  for (size_t i = 0; i < n; ++i) out[i] = in[0][i] * in[0][i] * in[0][i];
}

// A new SFU op is one registry row and its element function: a graph uses it
// by its torch name, the compiler lowers and emits it, the reader, the timing
// model, the card's functional model and the host reference all take it from
// the row (docs/extending.md, "A new op").
TEST(Ops, ANewOpIsOneRegistryRowFromGraphToCard) {
  OpInfo toy;
  toy.name = "toycube";
  toy.torch_name = "toy_cube";
  toy.cost = SfuCost::Transcendental;
  toy.semantics = {cube, cube_rows};
  toy.oracle = {{{2.0f}, {8.0}}};
  register_op(toy);

  TempDir dir;
  write_text(dir.file("graph.json"), R"({"name": "toy", "tensors": [
      {"name": "x", "shape": [64, 256], "role": "input"}, {"name": "y", "role": "output"}],
      "ops": [{"op": "toy_cube", "inputs": ["x"], "outputs": ["y"]}]})");
  compiler::CompileJob job;
  job.graph_path = dir.file("graph.json");
  job.output_dir = dir.file("program");
  job.emit_io_dir = dir.file("io");
  job.seed = 3;
  job.options.cores = 4;
  compiler::run_compile_job(job);

  // The host reference is the row's function on the generated inputs.
  const NpyArray x = read_npy(dir.file("io/inputs/x.npy"));
  const NpyArray y = read_npy(dir.file("io/reference/y.npy"));
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.values.size(); ++i) ASSERT_EQ(y.values[i], x.values[i] * x.values[i] * x.values[i]);

  sim::RunOptions run;
  run.bundle = job.output_dir;
  run.inputs_dir = dir.file("io/inputs");
  run.expect_dir = dir.file("io/reference");
  const auto outcome = sim::run_bundle(run);
  ASSERT_EQ(outcome.report.comparisons.size(), 1u);
  EXPECT_TRUE(outcome.report.comparisons[0].passed) << outcome.report.comparisons[0].mismatches << " off";
  ASSERT_EQ(outcome.report.kernels.size(), 1u);
  EXPECT_EQ(outcome.report.kernels[0].op, "toycube");
  EXPECT_EQ(outcome.report.kernels[0].cores, 4);
  expect_invariants_hold(outcome.report, "toy_cube");
}

}  // namespace
}  // namespace spyre::test
