#pragma once
// What each SuperDSC op computes, element by element. Operands arrive already
// in the device format (DLFloat16 or fp32) and are widened to float; the
// caller rounds each result to the output tensor's format when storing it, as
// the hardware rounds its results.
//
// Where the public spec names an op without defining it, the semantics follow
// torch-spyre's lowering of the PyTorch op it implements:
//   where3(cond, a, b)      cond != 0 ? a : b
//   comparisons             1.0 when true, 0.0 when false
//   gelufwd                 exact (erf) GELU, torch.nn.functional.gelu's default
//   softplus                (1/beta) log(1 + exp(beta x)), x when beta x > threshold
//   clip                    min(max(x, clipMin), clipMax)
//   layernormnorm(x, mean, rstd[, w[, b]])   (x - mean) * rstd * w + b
//   layernormscale          on exx2's stick (lane 0 = E[x], lane 1 = E[x^2]):
//                           1/sqrt(E[x^2] - E[x]^2 + eps); on plain values 1/sqrt(x + eps)

#include <string>

#include "runtime/sdsc.h"

namespace spyre::sim {

enum class ElementOp {
  Add,
  Sub,
  RevSub,
  Mul,
  Div,
  Maximum,
  Minimum,
  Equal,
  NotEqual,
  GreaterEqual,
  LesserEqual,
  Greater,
  Lesser,
  LogicalAnd,
  Where,
  LayerNormNorm,
  Abs,
  Neg,
  Relu,
  Relu6,
  LeakyRelu,
  Clip,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Sigmoid,
  Tanh,
  Gelu,
  Silu,
  Mish,
  Softplus,
  LayerNormScale,
  Identity,
};

struct ElementOpParams {
  ElementOp op = ElementOp::Identity;
  float clip_min = 0, clip_max = 0;
  float softplus_beta = 1, softplus_threshold = 20;
  float eps = 0;
  float alpha = 0.01f;
};

// Resolves the op and its constants (constantInfo_) for a compute op.
ElementOpParams element_op_params(const Sdsc& sdsc, const ComputeOp& op);

// inputs: as many values as the op takes (layernormnorm: 3 to 5).
float apply_element_op(const ElementOpParams& p, const float* inputs, int count);
// The same over `n` elements: inputs[j][i] is input j of element i. One
// dispatch per call keeps the per-element loop tight.
void apply_element_op(const ElementOpParams& p, const float* const* inputs, int count, float* out, size_t n);

enum class ReduceOp { Sum, Max, Min, AbsMax, Mean, Exx2, Exx2ZeroMean };
ReduceOp reduce_op_of(const OpInfo& info);

}  // namespace spyre::sim
