#include "runtime/op_registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>

#include "runtime/enum_names.h"
#include "runtime/error.h"

namespace spyre {
namespace {

// ---- Element semantics: one function per op, fixed arity where it has one. ----

using C = OpConstants;

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
float softplus(float x, float beta, float threshold) {
  const float bx = beta * x;
  return bx > threshold ? x : std::log1p(std::exp(bx)) / beta;
}
float truth(bool b) { return b ? 1.0f : 0.0f; }

float add(const float* v, int, const C&) { return v[0] + v[1]; }
float sub(const float* v, int, const C&) { return v[0] - v[1]; }
float revsub(const float* v, int, const C&) { return v[1] - v[0]; }
float mul(const float* v, int, const C&) { return v[0] * v[1]; }
float div(const float* v, int, const C&) { return v[0] / v[1]; }
float maximum(const float* v, int, const C&) { return std::fmax(v[0], v[1]); }
float minimum(const float* v, int, const C&) { return std::fmin(v[0], v[1]); }
float equal(const float* v, int, const C&) { return truth(v[0] == v[1]); }
float notequal(const float* v, int, const C&) { return truth(v[0] != v[1]); }
float greaterequal(const float* v, int, const C&) { return truth(v[0] >= v[1]); }
float lesserequal(const float* v, int, const C&) { return truth(v[0] <= v[1]); }
float greater(const float* v, int, const C&) { return truth(v[0] > v[1]); }
float lesser(const float* v, int, const C&) { return truth(v[0] < v[1]); }
float logicaland(const float* v, int, const C&) { return truth(v[0] != 0.0f && v[1] != 0.0f); }
float where3(const float* v, int, const C&) { return v[0] != 0.0f ? v[1] : v[2]; }
// (x - mean) * rstd [* weight [+ bias]]
float layernormnorm(const float* v, int count, const C&) {
  float r = (v[0] - v[1]) * v[2];
  if (count > 3) r *= v[3];
  if (count > 4) r += v[4];
  return r;
}
float abs(const float* v, int, const C&) { return std::fabs(v[0]); }
float floor(const float* v, int, const C&) { return std::floor(v[0]); }
float neg(const float* v, int, const C&) { return -v[0]; }
float relu(const float* v, int, const C&) { return v[0] > 0.0f ? v[0] : 0.0f; }
float relu6(const float* v, int, const C&) { return std::fmin(std::fmax(v[0], 0.0f), 6.0f); }
float leakyrelu(const float* v, int, const C& c) { return v[0] > 0.0f ? v[0] : c[0] * v[0]; }
float clip(const float* v, int, const C& c) { return std::fmin(std::fmax(v[0], c[0]), c[1]); }
float exp(const float* v, int, const C&) { return std::exp(v[0]); }
float log(const float* v, int, const C&) { return std::log(v[0]); }
float sqrt(const float* v, int, const C&) { return std::sqrt(v[0]); }
float rsqrt(const float* v, int, const C&) { return 1.0f / std::sqrt(v[0]); }
float reciprocal(const float* v, int, const C&) { return 1.0f / v[0]; }
float sigmoid_op(const float* v, int, const C&) { return sigmoid(v[0]); }
float tanh(const float* v, int, const C&) { return std::tanh(v[0]); }
// Exact (erf) GELU, torch.nn.functional.gelu's default.
float gelu(const float* v, int, const C&) { return 0.5f * v[0] * (1.0f + std::erf(v[0] * 0.70710678118654752f)); }
float silu(const float* v, int, const C&) { return v[0] * sigmoid(v[0]); }
float mish(const float* v, int, const C&) { return v[0] * std::tanh(softplus(v[0], 1.0f, 20.0f)); }
float softplus_op(const float* v, int, const C& c) { return softplus(v[0], c[0], c[1]); }
// On exx2's stick (two inputs: E[x], E[x^2]): 1/sqrt(E[x^2] - E[x]^2 + eps);
// on plain values: 1/sqrt(x + eps).
float layernormscale(const float* v, int count, const C& c) {
  return count == 2 ? 1.0f / std::sqrt(v[1] - v[0] * v[0] + c[0]) : 1.0f / std::sqrt(v[0] + c[0]);
}
float identity(const float* v, int, const C&) { return v[0]; }

// The row form of F; with a fixed arity the gather unrolls and F inlines.
template <ElementFn F, int Arity>
void rows_of(const float* const* in, int count, float* out, size_t n, const C& c) {
  if constexpr (Arity > 0) {
    for (size_t i = 0; i < n; ++i) {
      float v[Arity];
      for (int j = 0; j < Arity; ++j) v[j] = in[j][i];
      out[i] = F(v, Arity, c);
    }
  } else {
    float v[kMaxOpInputs];
    for (size_t i = 0; i < n; ++i) {
      for (int j = 0; j < count; ++j) v[j] = in[j][i];
      out[i] = F(v, count, c);
    }
  }
}

// Arity 0: as many inputs as the op was given.
template <ElementFn F, int Arity>
ElementSemantics semantics() {
  return {F, &rows_of<F, Arity>};
}

// ---- The rows. ----

using K = OpKind;
using U = ExecUnit;
using S = SfuCost;
using D = InputDomain;
using R = ReduceOp;

OpInfo base(std::string name, std::string torch, K kind, int min_in, int max_in, U unit, S cost,
            std::vector<OpConstant> constants = {}) {
  OpInfo op;
  op.name = std::move(name);
  op.torch_name = std::move(torch);
  op.kind = kind;
  op.min_inputs = min_in;
  op.max_inputs = max_in;
  op.outputs = 1;
  op.unit = unit;
  op.cost = cost;
  op.constants = std::move(constants);
  return op;
}

OpInfo elementwise(std::string name, std::string torch, int min_in, int max_in, S cost, ElementSemantics sem,
                   std::vector<OracleCase> oracle, std::vector<OpConstant> constants = {}, D domain = D::Any) {
  OpInfo op =
      base(std::move(name), std::move(torch), K::Elementwise, min_in, max_in, U::SFU, cost, std::move(constants));
  op.domain = domain;
  op.semantics = sem;
  op.oracle = std::move(oracle);
  return op;
}

OpInfo binary(std::string name, std::string torch, ElementSemantics sem, std::vector<OracleCase> oracle,
              S cost = S::Simple, D domain = D::Any) {
  return elementwise(std::move(name), std::move(torch), 2, 2, cost, sem, std::move(oracle), {}, domain);
}

OpInfo unary(std::string name, std::string torch, S cost, ElementSemantics sem, std::vector<OracleCase> oracle,
             std::vector<OpConstant> constants = {}, D domain = D::Any) {
  return elementwise(std::move(name), std::move(torch), 1, 1, cost, sem, std::move(oracle), std::move(constants),
                     domain);
}

OpInfo copy(std::string name, std::string torch, K kind = K::Copy) {
  OpInfo op = base(std::move(name), std::move(torch), kind, 1, 1, U::SFU, S::Simple);
  op.semantics = semantics<identity, 1>();
  op.oracle = {{{1.5f}, {1.5}}, {{-3.25f}, {-3.25}}};
  return op;
}

// A reduction; the output is also listed among its inputs, hence 2 inputs.
OpInfo reduction(std::string name, std::string torch, S cost, R reduce, std::vector<OracleCase> oracle,
                 std::string nonstick_form = "", std::vector<OpConstant> constants = {}) {
  OpInfo op = base(std::move(name), std::move(torch), K::Reduction, 2, 2, U::SFU, cost, std::move(constants));
  op.reduce = reduce;
  op.nonstick_form = std::move(nonstick_form);
  op.oracle = std::move(oracle);
  return op;
}

// The oracle values: exact where the inputs make them exact, else the double
// value of the mathematical function (Python's math module), which the float
// semantics must meet within a few float ulps.
std::vector<OpInfo> builtin_rows() {
  const OracleCase sum_case{{1.0f, 2.5f, -0.5f}, {3.0}};
  const OracleCase max_case{{1.0f, 2.5f, -0.5f}, {2.5}};
  const OracleCase min_case{{1.0f, 2.5f, -0.5f}, {-0.5}};
  const OracleCase absmax_case{{1.0f, -3.0f, 2.0f}, {3.0}};
  const OracleCase prod_case{{2.0f, 3.0f, -0.5f}, {-3.0}};
  const OracleCase mean_case{{1.0f, 2.0f, 3.0f, 6.0f}, {3.0}, {}, 0.25f};
  const OpConstant scaling{"scaling_factor", "", 1.0f, true};
  std::vector<OpInfo> rows = {
      // Binary broadcast ops.
      binary("add", "add", semantics<add, 2>(), {{{1.5f, 2.25f}, {3.75}}, {{-3.0f, 0.5f}, {-2.5}}}),
      binary("sub", "sub", semantics<sub, 2>(), {{{1.5f, 2.25f}, {-0.75}}}),
      binary("revsub", "", semantics<revsub, 2>(), {{{1.5f, 2.25f}, {0.75}}}),
      binary("mul", "mul", semantics<mul, 2>(), {{{1.5f, -2.0f}, {-3.0}}}),
      binary("realdiv", "div", semantics<div, 2>(), {{{3.0f, 4.0f}, {0.75}}, {{1.0f, 3.0f}, {1.0 / 3.0}}}, S::Divide,
             D::NonzeroSecond),
      binary("maximum", "maximum", semantics<maximum, 2>(), {{{1.0f, -2.0f}, {1.0}}}),
      binary("minimum", "minimum", semantics<minimum, 2>(), {{{1.0f, -2.0f}, {-2.0}}}),
      binary("biasadd", "", semantics<add, 2>(), {{{1.5f, 2.25f}, {3.75}}}),
      binary("equal", "eq", semantics<equal, 2>(), {{{2.0f, 2.0f}, {1.0}}, {{2.0f, 3.0f}, {0.0}}}),
      binary("notequal", "ne", semantics<notequal, 2>(), {{{2.0f, 2.0f}, {0.0}}, {{2.0f, 3.0f}, {1.0}}}),
      binary("greaterequal", "ge", semantics<greaterequal, 2>(), {{{2.0f, 2.0f}, {1.0}}, {{1.0f, 2.0f}, {0.0}}}),
      binary("lesserequal", "le", semantics<lesserequal, 2>(), {{{2.0f, 2.0f}, {1.0}}, {{3.0f, 2.0f}, {0.0}}}),
      // torch-spyre's codegen spells gt and lt greaterthan and lesserthan (constants.py, 2026-08); the
      // interface spec's greater and lesser stay readable.
      binary("greaterthan", "gt", semantics<greater, 2>(), {{{3.0f, 2.0f}, {1.0}}, {{2.0f, 2.0f}, {0.0}}}),
      binary("lesserthan", "lt", semantics<lesser, 2>(), {{{1.0f, 2.0f}, {1.0}}, {{2.0f, 2.0f}, {0.0}}}),
      binary("greater", "", semantics<greater, 2>(), {{{3.0f, 2.0f}, {1.0}}, {{2.0f, 2.0f}, {0.0}}}),
      binary("lesser", "", semantics<lesser, 2>(), {{{1.0f, 2.0f}, {1.0}}, {{2.0f, 2.0f}, {0.0}}}),
      binary("logicaland", "logical_and", semantics<logicaland, 2>(), {{{1.0f, 2.0f}, {1.0}}, {{0.0f, 2.0f}, {0.0}}}),
      elementwise("where3", "where", 3, 3, S::Simple, semantics<where3, 3>(),
                  {{{1.0f, 5.0f, 7.0f}, {5.0}}, {{0.0f, 5.0f, 7.0f}, {7.0}}}),
      // layernormnorm(x, mean, rstd[, weight[, bias]])
      elementwise("layernormnorm", "", 3, 5, S::Simple, semantics<layernormnorm, 0>(),
                  {{{3.0f, 1.0f, 0.5f}, {1.0}}, {{3.0f, 1.0f, 0.5f, 2.0f, 0.25f}, {2.25}}}),
      // Unary ops.
      unary("abs", "abs", S::Simple, semantics<abs, 1>(), {{{-2.5f}, {2.5}}, {{3.0f}, {3.0}}}),
      unary("neg", "neg", S::Simple, semantics<neg, 1>(), {{{2.0f}, {-2.0}}}),
      unary("floor", "floor", S::Simple, semantics<floor, 1>(), {{{2.5f}, {2.0}}, {{-1.5f}, {-2.0}}, {{3.0f}, {3.0}}}),
      unary("relufwd", "relu", S::Simple, semantics<relu, 1>(), {{{-1.0f}, {0.0}}, {{2.0f}, {2.0}}}),
      unary("relu6fwd", "relu6", S::Simple, semantics<relu6, 1>(),
            {{{7.0f}, {6.0}}, {{3.0f}, {3.0}}, {{-1.0f}, {0.0}}}),
      unary("leakyrelufwd", "", S::Simple, semantics<leakyrelu, 1>(),
            {{{-2.0f}, {-0.02}, {0.01f}}, {{2.0f}, {2.0}, {0.01f}}}, {{"alpha", "", 0.01f, false}}),
      unary("clip", "clamp", S::Simple, semantics<clip, 1>(),
            {{{5.0f}, {2.0}, {-1.0f, 2.0f}}, {{-3.0f}, {-1.0}, {-1.0f, 2.0f}}, {{0.5f}, {0.5}, {-1.0f, 2.0f}}},
            {{"clipMin", "min", -INFINITY, true}, {"clipMax", "max", INFINITY, true}}),
      unary("exp", "exp", S::Transcendental, semantics<exp, 1>(),
            {{{1.0f}, {2.718281828459045}}, {{-0.5f}, {0.6065306597126334}}}),
      unary("fastexp", "", S::Transcendental, semantics<exp, 1>(), {{{1.0f}, {2.718281828459045}}}),
      unary("log", "log", S::Transcendental, semantics<log, 1>(),
            {{{2.0f}, {0.6931471805599453}}, {{0.5f}, {-0.6931471805599453}}}, {}, D::PositiveFirst),
      unary("sqrt", "sqrt", S::Divide, semantics<sqrt, 1>(), {{{2.0f}, {1.4142135623730951}}, {{9.0f}, {3.0}}}, {},
            D::PositiveFirst),
      unary("rsqrt", "rsqrt", S::Divide, semantics<rsqrt, 1>(), {{{4.0f}, {0.5}}}, {}, D::PositiveFirst),
      unary("reciprocal", "reciprocal", S::Divide, semantics<reciprocal, 1>(),
            {{{4.0f}, {0.25}}, {{3.0f}, {1.0 / 3.0}}}, {}, D::PositiveFirst),
      unary("sigmoid", "sigmoid", S::Transcendental, semantics<sigmoid_op, 1>(),
            {{{1.0f}, {0.7310585786300049}}, {{-2.0f}, {0.11920292202211755}}}),
      unary("fastsigmoid", "", S::Transcendental, semantics<sigmoid_op, 1>(), {{{1.0f}, {0.7310585786300049}}}),
      unary("tanh", "tanh", S::Transcendental, semantics<tanh, 1>(), {{{0.5f}, {0.46211715726000974}}}),
      unary("gelufwd", "gelu", S::Transcendental, semantics<gelu, 1>(),
            {{{1.0f}, {0.8413447460685429}}, {{-1.0f}, {-0.15865525393145707}}, {{2.5f}, {2.4844758366855597}}}),
      unary("silu", "silu", S::Transcendental, semantics<silu, 1>(),
            {{{1.0f}, {0.7310585786300049}}, {{-2.0f}, {-0.2384058440442351}}}),
      unary("mish", "mish", S::Transcendental, semantics<mish, 1>(),
            {{{1.0f}, {0.8650983882673103}}, {{-2.0f}, {-0.2525014826957089}}}),
      unary("softplus", "softplus", S::Transcendental, semantics<softplus_op, 1>(),
            {{{1.0f}, {1.3132616875182228}, {1.0f, 20.0f}},
             {{1.0f}, {1.0634640055214863}, {2.0f, 20.0f}},
             {{30.0f}, {30.0}, {1.0f, 20.0f}}},
            {{"softplusBeta", "beta", 1.0f, true}, {"softplusThresh", "threshold", 20.0f, true}}),
      [] {
        OpInfo op = elementwise("layernormscale", "", 1, 1, S::Divide, semantics<layernormscale, 0>(),
                                {{{3.0f}, {0.5}, {1.0f}}, {{1.0f, 5.0f}, {0.5}, {0.0f}}}, {{"eps", "", 0.0f, true}});
        op.moment_pair_input = true;
        return op;
      }(),
      // Copies: same values, possibly another layout or memory.
      copy("identity", "clone"),
      copy("ReStickifyOpHBM", ""),
      copy("restickify", ""),
      copy("shuffle", "", K::Shuffle),
      // dtype conversions torch-spyre emits (constants.py, dtype_ops.py): fp16/bf16 <-> fp32,
      // int32 (int64 narrowed) <-> fp32; the output's format rounds (fp32toint32 truncates).
      copy("dl16tofp32", ""),
      copy("fp32todl16", ""),
      copy("int32tofp32", ""),
      copy("fp32toint32", ""),
      // FP8 (SEN143_FP8, E4M3): torch-spyre's quantize_fp8_with_scale scales
      // and clamps (mul, clip) and converts with qfp8ch; .to(float16) of an
      // FP8 tensor is fp8todl16 (dtype_ops.py). Both convert values only.
      copy("qfp8ch", ""),
      copy("fp8todl16", ""),
      // A weight's FP8 conversion (quantize_weight_fp8_with_scale): its output in
      // QFP8WT sticks (two rows of 64), which batchmatmulfp8 reads as its weight.
      copy("qfp8wt", ""),
      // Reductions (the output is also listed among the inputs).
      reduction("sum", "sum", S::ReduceStick, R::Sum, {sum_case}, "sumnonstick"),
      reduction("sumnonstick", "", S::Reduce, R::Sum, {sum_case}),
      reduction("max", "amax", S::ReduceStick, R::Max, {max_case}, "maxnonstick"),
      reduction("maxnonstick", "", S::Reduce, R::Max, {max_case}),
      reduction("min", "amin", S::ReduceStick, R::Min, {min_case}, "minnonstick"),
      reduction("minnonstick", "", S::Reduce, R::Min, {min_case}),
      reduction("absmax", "", S::ReduceStick, R::AbsMax, {absmax_case}, "absmaxnonstick"),
      reduction("absmaxnonstick", "", S::Reduce, R::AbsMax, {absmax_case}),
      // prod: torch-spyre emits only the non-stick form (constants.py, REDUCTIONS_NON_STICK_DIM_ONLY:
      // "native prod reduction is not currently available in the backend" within sticks).
      // Its form within sticks: SPYRE_FP32_OPS names it and the reader runs it,
      // but the compiler never emits it while torch-spyre does not.
      reduction("prod", "", S::ReduceStick, R::Prod, {prod_case}, "prodnonstick"),
      [&] {
        OpInfo op = reduction("prodnonstick", "prod", S::Reduce, R::Prod, {prod_case});
        op.nonstick_only = true;
        op.domain = D::NearOne;
        return op;
      }(),
      reduction("mean", "mean", S::ReduceStick, R::Mean, {mean_case}, "meannonstick", {scaling}),
      reduction("meannonstick", "", S::Reduce, R::Mean, {mean_case}, "", {scaling}),
      // exx2 writes E[x] and E[x^2] into lanes 0 and 1 of its stick.
      reduction("exx2", "", S::ReduceStick, R::Exx2, {{{1.0f, 3.0f}, {2.0, 5.0}, {}, 0.5f}}, "",
                {{"exx2scale", "", 1.0f, true}}),
      reduction("exx2_zeromean", "", S::ReduceStick, R::Exx2ZeroMean, {{{1.0f, 3.0f}, {0.0, 5.0}, {}, 0.5f}}, "",
                {{"exx2scale", "", 1.0f, true}}),
      // topk (torch-spyre decomposes torch.topk into both, lowering.py: reductions
      // that keep k elements along the searched dim): values and positions of
      // the k largest, largest first.
      [&] {
        OpInfo op = base("topkvalue", "", K::TopK, 1, 1, U::SFU, S::Reduce);
        op.oracle = {{{3.0f, 9.0f, -1.0f, 7.0f}, {9.0, 7.0}}};
        return op;
      }(),
      [&] {
        OpInfo op = base("topkindex", "", K::TopK, 1, 1, U::SFU, S::Reduce);
        op.topk_indices = true;
        op.oracle = {{{3.0f, 9.0f, -1.0f, 7.0f}, {1.0, 3.0}}};
        return op;
      }(),
      // PT array. Its values come from the executor's matmul (tests/e2e: mm, bmm).
      base("batchmatmul", "", K::Matmul, 2, 2, U::PT, S::Simple),
      // torch-spyre's FP8 matmul (spyre.scaled_mm: _scaled_mm without its scales):
      // SEN143_FP8 operands, products summed in fp32, a 16-bit result. The card
      // reads its A in QFP8CH's and its B in QFP8WT's element order; here both
      // are standard sticks (docs/model.md).
      base("batchmatmulfp8", "", K::Matmul, 2, 2, U::PT, S::Simple),
      // Windowed ops (torch-spyre's aten.convolution direct lowering, spyre.conv2d
      // for depthwise, avg_pool2d): their activation is read through the
      // windows of N_.paddingSizes_. conv2d is a matmul contracting the input
      // channels and the window (its values: the executor's matmul);
      // depthwise conv reduces the product of activation and weight over the
      // window into its output (listed among its inputs, as torch-spyre feeds
      // it back); avgpool the window's mean, its scale the constant nmap
      // (1 / window elements).
      [] {
        OpInfo op = base("conv2d", "", K::Matmul, 2, 2, U::PT, S::Simple);
        op.windowed = true;
        return op;
      }(),
      [&] {
        OpInfo op = base("depthwiseconv2dnative", "", K::Reduction, 3, 3, U::SFU, S::Reduce);
        op.reduce = R::Sum;
        op.windowed = true;
        op.oracle = {sum_case};  // of the products the executor forms
        return op;
      }(),
      [&] {
        OpInfo op = reduction("avgpoolfwd", "", S::Reduce, R::Mean, {mean_case}, "", {{"nmap", "", 1.0f, true}});
        op.windowed = true;
        return op;
      }(),
  };
  // abs runs on the PT array in torch-spyre's codegen (exUnit "pt").
  for (auto& op : rows) {
    if (op.name == "abs") op.unit = U::PT;
  }
  return rows;
}

std::string lower(const std::string& s) {
  std::string out = s;
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// A deque: rows registered later never move the earlier ones (ComputeOp keeps pointers).
std::deque<OpInfo>& registry() {
  static std::deque<OpInfo> rows = [] {
    std::deque<OpInfo> d;
    for (auto& op : builtin_rows()) d.push_back(std::move(op));
    return d;
  }();
  return rows;
}

}  // namespace

const OpInfo* find_op(const std::string& op_func_name) {
  const std::string wanted = lower(op_func_name);
  for (const auto& op : registry()) {
    if (lower(op.name) == wanted) return &op;
  }
  return nullptr;
}

const OpInfo* find_torch_op(const std::string& torch_name) {
  if (torch_name.empty()) return nullptr;
  for (const auto& op : registry()) {
    if (op.torch_name == torch_name) return &op;
  }
  return nullptr;
}

std::vector<const OpInfo*> all_ops() {
  std::vector<const OpInfo*> out;
  for (const auto& op : registry()) out.push_back(&op);
  return out;
}

std::vector<const OpInfo*> builtin_ops() {
  static const size_t builtin = builtin_rows().size();
  auto ops = all_ops();
  ops.resize(builtin);
  return ops;
}

std::vector<std::string> known_op_names() {
  std::vector<std::string> names;
  for (const auto& op : registry()) names.push_back(op.name);
  return names;
}

std::vector<std::string> registry_gaps(const OpInfo& op) {
  std::vector<std::string> gaps;
  const bool pointwise = op.kind == OpKind::Elementwise || op.kind == OpKind::Copy || op.kind == OpKind::Shuffle;
  if (pointwise && !op.semantics) gaps.push_back("no element semantics");
  if (op.kind == OpKind::Reduction && op.reduce == ReduceOp::None) gaps.push_back("no reduce rule");
  if (op.kind != OpKind::Matmul && op.oracle.empty()) gaps.push_back("no oracle values");
  if (op.min_inputs < 1 || op.max_inputs < op.min_inputs || op.max_inputs > kMaxOpInputs)
    gaps.push_back("arity outside 1.." + std::to_string(kMaxOpInputs));
  if (op.constants.size() > static_cast<size_t>(kMaxOpConstants))
    gaps.push_back("more than " + std::to_string(kMaxOpConstants) + " constants");
  for (const auto& c : op.oracle) {
    const int n = static_cast<int>(c.inputs.size());
    const bool fits = op.kind == OpKind::Reduction || op.kind == OpKind::TopK
                          ? n >= 1
                          : (n >= op.min_inputs && n <= op.max_inputs) || (op.moment_pair_input && n == 2);
    if (!fits) gaps.push_back("an oracle case with " + std::to_string(n) + " inputs");
    if (c.expected.empty()) gaps.push_back("an oracle case without an expected value");
  }
  return gaps;
}

const OpInfo& register_op(OpInfo op) {
  if (find_op(op.name)) fail("", "op registry", "op '" + op.name + "' is already registered");
  if (find_torch_op(op.torch_name))
    fail("", "op registry", "torch op '" + op.torch_name + "' already lowers to " + find_torch_op(op.torch_name)->name);
  if (const auto gaps = registry_gaps(op); !gaps.empty())
    fail("", "op registry", "op '" + op.name + "' is incomplete: " + gaps.front());
  registry().push_back(std::move(op));
  return registry().back();
}

namespace {
constexpr EnumName<OpKind> kOpKinds[] = {{OpKind::Elementwise, "elementwise"}, {OpKind::Reduction, "reduction"},
                                         {OpKind::Matmul, "matmul"},           {OpKind::Copy, "copy"},
                                         {OpKind::Shuffle, "shuffle"},         {OpKind::TopK, "topk"}};
}  // namespace

const char* op_kind_name(OpKind kind) { return enum_name(kOpKinds, kind); }

const char* exec_unit_name(ExecUnit unit) { return unit == ExecUnit::PT ? "pt" : "sfp"; }

namespace {

// How a reduction folds values in: sums (of values and of their squares: sum,
// mean, exx2), products, or one extreme. The one exhaustive list of the reduce rules.
enum class Fold { Add, Mul, Max, Min, AbsMax };
Fold fold_of(ReduceOp r) {
  switch (r) {
    case ReduceOp::Prod:
      return Fold::Mul;
    case ReduceOp::Max:
      return Fold::Max;
    case ReduceOp::Min:
      return Fold::Min;
    case ReduceOp::AbsMax:
      return Fold::AbsMax;
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Exx2:
    case ReduceOp::Exx2ZeroMean:
    case ReduceOp::None:
      break;
  }
  return Fold::Add;
}

}  // namespace

void reduce_accumulate(ReduceOp r, ReduceAccumulator& acc, float x) {
  switch (fold_of(r)) {
    case Fold::Max:
      acc.a = acc.empty ? x : std::fmax(acc.a, x);
      break;
    case Fold::Min:
      acc.a = acc.empty ? x : std::fmin(acc.a, x);
      break;
    case Fold::AbsMax:
      acc.a = acc.empty ? std::fabs(x) : std::fmax(acc.a, std::fabs(x));
      break;
    case Fold::Mul:
      acc.a = acc.empty ? x : acc.a * x;
      break;
    case Fold::Add:
      acc.a += x;
      acc.b += x * x;
      break;
  }
  acc.empty = false;
}

void reduce_combine(ReduceOp r, ReduceAccumulator& into, const ReduceAccumulator& from) {
  if (from.empty) return;
  if (into.empty) {
    into = from;
    return;
  }
  switch (fold_of(r)) {
    case Fold::Max:
    case Fold::AbsMax:  // partials are already absolute
      into.a = std::fmax(into.a, from.a);
      break;
    case Fold::Min:
      into.a = std::fmin(into.a, from.a);
      break;
    case Fold::Mul:
      into.a *= from.a;
      break;
    case Fold::Add:
      into.a += from.a;
      into.b += from.b;
      break;
  }
}

std::array<float, 2> reduce_finish(ReduceOp r, const ReduceAccumulator& acc, float scale) {
  switch (r) {
    case ReduceOp::Mean:
      return {acc.a * scale, 0.0f};
    case ReduceOp::Exx2:
      return {acc.a * scale, acc.b * scale};
    case ReduceOp::Exx2ZeroMean:
      return {0.0f, acc.b * scale};
    case ReduceOp::Sum:
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::AbsMax:
    case ReduceOp::Prod:
    case ReduceOp::None:
      break;
  }
  return {acc.a, 0.0f};
}

std::vector<int64_t> topk_positions(const float* values, size_t n, size_t count) {
  std::vector<int64_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int64_t>(i);
  count = std::min(count, n);
  auto above = [&](int64_t a, int64_t b) {
    const float x = values[a], y = values[b];
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && !std::isnan(y);
    return x > y;
  };
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](int64_t a, int64_t b) { return above(a, b) || (!above(b, a) && a < b); });
  order.resize(count);
  return order;
}

int reduce_lanes(ReduceOp r) { return r == ReduceOp::Exx2 || r == ReduceOp::Exx2ZeroMean ? 2 : 1; }

}  // namespace spyre
