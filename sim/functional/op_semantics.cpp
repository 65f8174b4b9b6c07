#include "sim/functional/op_semantics.h"

#include <cmath>
#include <map>

#include "runtime/error.h"

namespace spyre::sim {

namespace {

const std::map<std::string, ElementOp>& element_ops() {
  static const std::map<std::string, ElementOp> ops = {
      {"add", ElementOp::Add},
      {"biasadd", ElementOp::Add},
      {"sub", ElementOp::Sub},
      {"revsub", ElementOp::RevSub},
      {"mul", ElementOp::Mul},
      {"realdiv", ElementOp::Div},
      {"maximum", ElementOp::Maximum},
      {"minimum", ElementOp::Minimum},
      {"equal", ElementOp::Equal},
      {"notequal", ElementOp::NotEqual},
      {"greaterequal", ElementOp::GreaterEqual},
      {"lesserequal", ElementOp::LesserEqual},
      {"greater", ElementOp::Greater},
      {"lesser", ElementOp::Lesser},
      {"logicaland", ElementOp::LogicalAnd},
      {"where3", ElementOp::Where},
      {"layernormnorm", ElementOp::LayerNormNorm},
      {"abs", ElementOp::Abs},
      {"neg", ElementOp::Neg},
      {"relufwd", ElementOp::Relu},
      {"relu6fwd", ElementOp::Relu6},
      {"leakyrelufwd", ElementOp::LeakyRelu},
      {"clip", ElementOp::Clip},
      {"exp", ElementOp::Exp},
      {"fastexp", ElementOp::Exp},
      {"log", ElementOp::Log},
      {"sqrt", ElementOp::Sqrt},
      {"rsqrt", ElementOp::Rsqrt},
      {"reciprocal", ElementOp::Reciprocal},
      {"sigmoid", ElementOp::Sigmoid},
      {"fastsigmoid", ElementOp::Sigmoid},
      {"tanh", ElementOp::Tanh},
      {"gelufwd", ElementOp::Gelu},
      {"silu", ElementOp::Silu},
      {"mish", ElementOp::Mish},
      {"softplus", ElementOp::Softplus},
      {"layernormscale", ElementOp::LayerNormScale},
      {"identity", ElementOp::Identity},
      {"ReStickifyOpHBM", ElementOp::Identity},
      {"restickify", ElementOp::Identity},
      {"shuffle", ElementOp::Identity},
  };
  return ops;
}

float constant_or(const Sdsc& sdsc, const char* name, float fallback) {
  const SdscConstant* c = sdsc.find_constant(name);
  return c ? c->value : fallback;
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

float softplus(float x, float beta, float threshold) {
  const float bx = beta * x;
  return bx > threshold ? x : std::log1p(std::exp(bx)) / beta;
}

}  // namespace

ElementOpParams element_op_params(const Sdsc& sdsc, const ComputeOp& op) {
  auto it = element_ops().find(op.info->name);
  if (it == element_ops().end()) fail(sdsc.file, op.path, op.info->name + " is not an elementwise op");
  ElementOpParams p;
  p.op = it->second;
  p.clip_min = constant_or(sdsc, "clipMin", -INFINITY);
  p.clip_max = constant_or(sdsc, "clipMax", INFINITY);
  p.softplus_beta = constant_or(sdsc, "softplusBeta", 1.0f);
  p.softplus_threshold = constant_or(sdsc, "softplusThresh", 20.0f);
  p.eps = constant_or(sdsc, "eps", 0.0f);
  p.alpha = constant_or(sdsc, "alpha", 0.01f);
  return p;
}

float apply_element_op(const ElementOpParams& p, const float* in, int count) {
  const float a = in[0];
  const float b = count > 1 ? in[1] : 0.0f;
  switch (p.op) {
    case ElementOp::Add:
      return a + b;
    case ElementOp::Sub:
      return a - b;
    case ElementOp::RevSub:
      return b - a;
    case ElementOp::Mul:
      return a * b;
    case ElementOp::Div:
      return a / b;
    case ElementOp::Maximum:
      return std::fmax(a, b);
    case ElementOp::Minimum:
      return std::fmin(a, b);
    case ElementOp::Equal:
      return a == b ? 1.0f : 0.0f;
    case ElementOp::NotEqual:
      return a != b ? 1.0f : 0.0f;
    case ElementOp::GreaterEqual:
      return a >= b ? 1.0f : 0.0f;
    case ElementOp::LesserEqual:
      return a <= b ? 1.0f : 0.0f;
    case ElementOp::Greater:
      return a > b ? 1.0f : 0.0f;
    case ElementOp::Lesser:
      return a < b ? 1.0f : 0.0f;
    case ElementOp::LogicalAnd:
      return (a != 0.0f && b != 0.0f) ? 1.0f : 0.0f;
    case ElementOp::Where:
      return a != 0.0f ? b : in[2];
    case ElementOp::LayerNormNorm: {
      float v = (a - b) * in[2];
      if (count > 3) v *= in[3];
      if (count > 4) v += in[4];
      return v;
    }
    case ElementOp::Abs:
      return std::fabs(a);
    case ElementOp::Neg:
      return -a;
    case ElementOp::Relu:
      return a > 0.0f ? a : 0.0f;
    case ElementOp::Relu6:
      return std::fmin(std::fmax(a, 0.0f), 6.0f);
    case ElementOp::LeakyRelu:
      return a > 0.0f ? a : p.alpha * a;
    case ElementOp::Clip:
      return std::fmin(std::fmax(a, p.clip_min), p.clip_max);
    case ElementOp::Exp:
      return std::exp(a);
    case ElementOp::Log:
      return std::log(a);
    case ElementOp::Sqrt:
      return std::sqrt(a);
    case ElementOp::Rsqrt:
      return 1.0f / std::sqrt(a);
    case ElementOp::Reciprocal:
      return 1.0f / a;
    case ElementOp::Sigmoid:
      return sigmoid(a);
    case ElementOp::Tanh:
      return std::tanh(a);
    case ElementOp::Gelu:
      return 0.5f * a * (1.0f + std::erf(a * 0.70710678118654752f));
    case ElementOp::Silu:
      return a * sigmoid(a);
    case ElementOp::Mish:
      return a * std::tanh(softplus(a, 1.0f, 20.0f));
    case ElementOp::Softplus:
      return softplus(a, p.softplus_beta, p.softplus_threshold);
    case ElementOp::LayerNormScale:
      return 1.0f / std::sqrt(a + p.eps);
    case ElementOp::Identity:
      return a;
  }
  return a;
}

void apply_element_op(const ElementOpParams& p, const float* const* in, int count, float* out, size_t n) {
  const float* a = in[0];
  const float* b = count > 1 ? in[1] : nullptr;
  switch (p.op) {
    case ElementOp::Add:
      for (size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
      return;
    case ElementOp::Sub:
      for (size_t i = 0; i < n; ++i) out[i] = a[i] - b[i];
      return;
    case ElementOp::Mul:
      for (size_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
      return;
    case ElementOp::Div:
      for (size_t i = 0; i < n; ++i) out[i] = a[i] / b[i];
      return;
    case ElementOp::Identity:
      for (size_t i = 0; i < n; ++i) out[i] = a[i];
      return;
    default:
      break;
  }
  float values[5];
  for (size_t i = 0; i < n; ++i) {
    for (int j = 0; j < count; ++j) values[j] = in[j][i];
    out[i] = apply_element_op(p, values, count);
  }
}

ReduceOp reduce_op_of(const OpInfo& info) {
  const std::string& n = info.name;
  if (n == "sum" || n == "sumnonstick") return ReduceOp::Sum;
  if (n == "max" || n == "maxnonstick") return ReduceOp::Max;
  if (n == "min" || n == "minnonstick") return ReduceOp::Min;
  if (n == "absmax" || n == "absmaxnonstick") return ReduceOp::AbsMax;
  if (n == "mean" || n == "meannonstick") return ReduceOp::Mean;
  if (n == "exx2") return ReduceOp::Exx2;
  return ReduceOp::Exx2ZeroMean;
}

}  // namespace spyre::sim
