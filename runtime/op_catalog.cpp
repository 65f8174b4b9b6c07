#include "runtime/op_catalog.h"

#include <algorithm>
#include <cctype>

namespace spyre {
namespace {

const std::vector<OpInfo>& catalog() {
  using K = OpKind;
  using C = SfuCost;
  static const std::vector<OpInfo> ops = {
      // Binary broadcast ops.
      {"add", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"sub", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"revsub", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"mul", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"realdiv", K::Elementwise, 2, 2, 1, C::Divide, {}},
      {"maximum", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"minimum", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"biasadd", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"equal", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"notequal", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"greaterequal", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"lesserequal", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"greater", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"lesser", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"logicaland", K::Elementwise, 2, 2, 1, C::Simple, {}},
      {"where3", K::Elementwise, 3, 3, 1, C::Simple, {}},
      // layernormnorm(x, mean, rstd[, weight[, bias]]): see op_semantics.
      {"layernormnorm", K::Elementwise, 3, 5, 1, C::Simple, {}},
      // Unary ops.
      {"abs", K::Elementwise, 1, 1, 1, C::Simple, {}},
      {"neg", K::Elementwise, 1, 1, 1, C::Simple, {}},
      {"relufwd", K::Elementwise, 1, 1, 1, C::Simple, {}},
      {"relu6fwd", K::Elementwise, 1, 1, 1, C::Simple, {}},
      {"leakyrelufwd", K::Elementwise, 1, 1, 1, C::Simple, {}},
      {"clip", K::Elementwise, 1, 1, 1, C::Simple, {"clipMin", "clipMax"}},
      {"exp", K::Elementwise, 1, 1, 1, C::Transcendental, {}},
      {"fastexp", K::Elementwise, 1, 1, 1, C::Transcendental, {}},
      {"log", K::Elementwise, 1, 1, 1, C::Transcendental, {}},
      {"sqrt", K::Elementwise, 1, 1, 1, C::Divide, {}},
      {"rsqrt", K::Elementwise, 1, 1, 1, C::Divide, {}},
      {"reciprocal", K::Elementwise, 1, 1, 1, C::Divide, {}},
      {"sigmoid", K::Elementwise, 1, 1, 1, C::Transcendental, {}},
      {"fastsigmoid", K::Elementwise, 1, 1, 1, C::Transcendental, {}},
      {"tanh", K::Elementwise, 1, 1, 1, C::Transcendental, {}},
      {"gelufwd", K::Elementwise, 1, 1, 1, C::Transcendental, {}},
      {"silu", K::Elementwise, 1, 1, 1, C::Transcendental, {}},
      {"mish", K::Elementwise, 1, 1, 1, C::Transcendental, {}},
      {"softplus", K::Elementwise, 1, 1, 1, C::Transcendental, {"softplusBeta", "softplusThresh"}},
      {"layernormscale", K::Elementwise, 1, 1, 1, C::Divide, {"eps"}},
      // Copies: same values, possibly another layout or memory.
      {"identity", K::Copy, 1, 1, 1, C::Simple, {}},
      {"ReStickifyOpHBM", K::Copy, 1, 1, 1, C::Simple, {}},
      {"restickify", K::Copy, 1, 1, 1, C::Simple, {}},
      {"shuffle", K::Shuffle, 1, 1, 1, C::Simple, {}},
      // Reductions (the output is also listed among the inputs).
      {"sum", K::Reduction, 2, 2, 1, C::ReduceStick, {}},
      {"sumnonstick", K::Reduction, 2, 2, 1, C::Reduce, {}},
      {"max", K::Reduction, 2, 2, 1, C::ReduceStick, {}},
      {"maxnonstick", K::Reduction, 2, 2, 1, C::Reduce, {}},
      {"min", K::Reduction, 2, 2, 1, C::ReduceStick, {}},
      {"minnonstick", K::Reduction, 2, 2, 1, C::Reduce, {}},
      {"absmax", K::Reduction, 2, 2, 1, C::ReduceStick, {}},
      {"absmaxnonstick", K::Reduction, 2, 2, 1, C::Reduce, {}},
      {"mean", K::Reduction, 2, 2, 1, C::ReduceStick, {"scaling_factor"}},
      {"meannonstick", K::Reduction, 2, 2, 1, C::Reduce, {"scaling_factor"}},
      {"exx2", K::Reduction, 2, 2, 1, C::ReduceStick, {"exx2scale"}},
      {"exx2_zeromean", K::Reduction, 2, 2, 1, C::ReduceStick, {"exx2scale"}},
      // PT array.
      {"batchmatmul", K::Matmul, 2, 2, 1, C::Simple, {}},
  };
  return ops;
}

std::string lower(const std::string& s) {
  std::string out = s;
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

const OpInfo* find_op(const std::string& op_func_name) {
  const std::string wanted = lower(op_func_name);
  for (const auto& op : catalog()) {
    if (lower(op.name) == wanted) return &op;
  }
  return nullptr;
}

std::vector<std::string> known_op_names() {
  std::vector<std::string> names;
  for (const auto& op : catalog()) names.push_back(op.name);
  return names;
}

const char* op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::Elementwise:
      return "elementwise";
    case OpKind::Reduction:
      return "reduction";
    case OpKind::Matmul:
      return "matmul";
    case OpKind::Copy:
      return "copy";
    case OpKind::Shuffle:
      return "shuffle";
  }
  return "?";
}

}  // namespace spyre
