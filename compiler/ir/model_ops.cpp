#include "compiler/ir/model_ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "runtime/error.h"
#include "runtime/op_registry.h"
#include "runtime/text.h"

namespace spyre::compiler {

namespace {

using K = ModelOpKind;

// The torch values of the pointwise composites (the host reference's, not the device's).
float ceil_value(float x) { return std::ceil(x); }
float sign_value(float x) { return static_cast<float>((x > 0) - (x < 0)); }
float logical_not_value(float x) { return x == 0 ? 1.0f : 0.0f; }
float same_value(float x) { return x; }

// Graph-level ops with no single device op: decomposition lowers them.
const std::vector<ModelOp>& composite_table() {
  static const std::vector<ModelOp> ops = {
      // Composite ops, decomposed as torch-spyre does.
      {"softmax", K::Softmax, 1, 1, {"dim"}, ""},
      {"layer_norm", K::LayerNorm, 1, 3, {"eps"}, ""},
      {"rms_norm", K::RmsNorm, 1, 2, {"eps"}, ""},
      {"matmul", K::Matmul, 2, 2, {}, ""},
      {"bmm", K::Matmul, 2, 2, {}, ""},
      {"mm", K::Matmul, 2, 2, {}, ""},
      // addmm(input, mat1, mat2): beta * input + alpha * (mat1 @ mat2), as
      // torch-spyre decomposes it (mm, then add).
      {"addmm", K::Addmm, 3, 3, {"beta", "alpha"}, ""},
      {"linear", K::Linear, 2, 3, {}, ""},
      {"swiglu_mlp", K::SwigluMlp, 4, 4, {}, ""},
      {"attention", K::Attention, 3, 3, {"scale"}, ""},
      // torch.nn.functional.scaled_dot_product_attention: attention with an
      // optional additive mask (its fourth input, attn_mask) added to the scaled scores.
      {"scaled_dot_product_attention", K::Attention, 3, 4, {"scale", "dropout_p", "is_causal", "enable_gqa"}, ""},
      // torch's expand, materialized: an identity reading its input broadcast
      // (torch-spyre's clone of an expanded view, e.g. cat of one tensor repeated).
      {"expand", K::Expand, 1, 1, {"shape"}, ""},
      // Unary ops torch-spyre decomposes into pointwise device ops (decompositions.py).
      {"ceil", K::PointwiseComposite, 1, 1, {}, "", nullptr, ceil_value},
      {"sign", K::PointwiseComposite, 1, 1, {}, "", nullptr, sign_value},
      {"logical_not", K::PointwiseComposite, 1, 1, {}, "", nullptr, logical_not_value},
      // Copies (an identity): contiguous materializes its input, dropout at
      // inference passes it through.
      {"contiguous", K::PointwiseComposite, 1, 1, {}, "", nullptr, same_value},
      {"dropout", K::PointwiseComposite, 1, 1, {"p", "training"}, "", nullptr, same_value},
      // pow by a scalar exponent, as Inductor lowers it (the host reference: std::pow).
      {"pow", K::PointwiseComposite, 1, 1, {"exponent"}, ""},
      // dtype conversions (torch's Tensor.to(dtype), .float(), .half()).
      {"to", K::Cast, 1, 1, {"dtype"}, ""},
      {"float", K::Cast, 1, 1, {}, ""},
      {"half", K::Cast, 1, 1, {}, ""},
      {"type_as", K::Cast, 2, 2, {}, ""},  // the second input's dtype; its values are not read
      // Tensors of one value (torch-spyre lowers full as a pointwise kernel
      // reading a constant; ones, new_ones decompose to full). The _like, new_
      // and fill_ forms take the shape (and dtype) of their input.
      {"full", K::Fill, 0, 0, {"size", "fill_value", "dtype"}, ""},
      {"zeros", K::Fill, 0, 0, {"size", "dtype"}, ""},
      {"ones", K::Fill, 0, 0, {"size", "dtype"}, ""},
      {"full_like", K::Fill, 1, 1, {"fill_value", "dtype"}, ""},
      {"zeros_like", K::Fill, 1, 1, {"dtype"}, ""},
      {"ones_like", K::Fill, 1, 1, {"dtype"}, ""},
      {"new_full", K::Fill, 1, 1, {"size", "fill_value", "dtype"}, ""},
      {"new_zeros", K::Fill, 1, 1, {"size", "dtype"}, ""},
      {"new_ones", K::Fill, 1, 1, {"size", "dtype"}, ""},
      {"fill_", K::Fill, 1, 1, {"value"}, ""},
      // torch.linalg.vector_norm and torch.norm (p): |x| or x * x reduced
      // one dim at a time, then sqrt for ord 2.
      {"vector_norm", K::Norm, 1, 1, {"ord", "dim", "keepdim"}, ""},
      {"norm", K::Norm, 1, 1, {"p", "dim", "keepdim"}, ""},
      // Other names of registry ops: Python's operator names in traced graphs
      // (truediv) and the in-place forms (a graph op writes a new tensor).
      {"truediv", K::Binary, 1, 2, {"scalar"}, "realdiv", find_op("realdiv")},
      {"true_divide", K::Binary, 1, 2, {"scalar"}, "realdiv", find_op("realdiv")},
      {"add_", K::Binary, 1, 2, {"scalar"}, "add", find_op("add")},
      {"sub_", K::Binary, 1, 2, {"scalar"}, "sub", find_op("sub")},
      {"mul_", K::Binary, 1, 2, {"scalar"}, "mul", find_op("mul")},
      {"div_", K::Binary, 1, 2, {"scalar"}, "realdiv", find_op("realdiv")},
      {"clamp_", K::Unary, 1, 1, {"min", "max"}, "clip", find_op("clip")},
      // torch.max / torch.min of a whole tensor: amax / amin over every dim.
      {"max", K::Reduction, 1, 1, {"dim", "keepdim"}, "max", find_op("max")},
      {"min", K::Reduction, 1, 1, {"dim", "keepdim"}, "min", find_op("min")},
      // Tensor.repeat: the input expanded over a new dim beside each repeated
      // one, then those merged (Inductor's decomposition).
      {"repeat", K::Repeat, 1, 1, {"repeats"}, ""},
      // torch.cat as torch-spyre lowers it (lower_cat): each input copied
      // into a slice view of the output; stack: each input unsqueezed first.
      {"cat", K::Cat, 1, 64, {"dim"}, ""},
      {"stack", K::Cat, 1, 64, {"dim"}, ""},
      // Gathers (torch-spyre's indirect access): rows of the table (weight,
      // x) the index names; embedding(weight, indices) as aten orders it,
      // index_select(x, index) along dim 0. The result has the index's shape
      // followed by a row's.
      {"embedding", K::Gather, 2, 2, {"padding_idx", "scale_grad_by_freq", "sparse"}, ""},
      {"index_select", K::Gather, 2, 2, {"dim"}, ""},
      // index_put(self, index, values): self with row index[i] replaced by
      // values[i] (x[idx] = v; along `dim`, 0 by default: y[:, idx] = v is
      // dim 1), as torch-spyre's indirect scatter writes it; one index, no
      // accumulation.
      {"index_put", K::Scatter, 3, 3, {"accumulate", "dim"}, ""},
      // torch.topk's (values, indices), one op each (the graph reader fans it
      // out): torch-spyre's topkvalue and topkindex over the same input.
      {"topk", K::TopK, 1, 1, {"k", "dim", "largest", "sorted", "piece"}, ""},
      // Windowed ops (torch-spyre's aten.convolution direct lowering and
      // spyre.conv2d for depthwise; its avg_pool2d lowering): conv2d(input,
      // weight[, bias]) and avg_pool2d(input) on [N, C, H, W].
      {"conv2d", K::Conv2d, 2, 3, {"stride", "padding", "dilation", "groups"}, ""},
      {"avg_pool2d",
       K::AvgPool2d,
       1,
       1,
       {"kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"},
       ""},
      // torch._scaled_mm(mat1, mat2, scale_a, scale_b[, bias]) as torch-spyre
      // decomposes it (scaled_mm_decomp): the FP8 matmul, then * scale_a,
      // * scale_b, + bias; mat1 [M, K] or [B, M, K], mat2 [K, N] or [B, K, N].
      {"_scaled_mm", K::ScaledMm, 4, 5, {"out_dtype"}, ""},
      {"scaled_mm", K::ScaledMm, 4, 5, {"out_dtype"}, ""},
      // torch-spyre's custom ops spyre.quantize_fp8_with_scale(x, scale) and
      // spyre.quantize_weight_fp8_with_scale(w, scale) (decompositions.py):
      // x * (1 / scale) clamped to +-448, then qfp8ch, or for a 2-D weight
      // qfp8wt (its QFP8WT two-row sticks, which batchmatmulfp8 reads).
      {"quantize_fp8_with_scale", K::QuantizeFp8, 2, 2, {}, ""},
      {"quantize_weight_fp8_with_scale", K::QuantizeFp8, 2, 2, {}, ""},
      // torch.nn.functional.pad (constant mode): torch-spyre's lower_constant_pad_nd.
      {"constant_pad_nd", K::Pad, 1, 1, {"pad", "value"}, ""},
      {"pad", K::Pad, 1, 1, {"pad", "value"}, ""},
      // Views.
      {"reshape", K::View, 1, 1, {"shape"}, ""},
      {"view", K::View, 1, 1, {"shape"}, ""},
      {"transpose", K::View, 1, 1, {"dim0", "dim1"}, ""},
      {"permute", K::View, 1, 1, {"dims"}, ""},
      {"slice", K::View, 1, 1, {"dim", "start", "end"}, ""},
      {"narrow", K::View, 1, 1, {"dim", "start", "length"}, ""},
      {"select", K::View, 1, 1, {"dim", "index"}, ""},
      {"flatten", K::View, 1, 1, {"start_dim", "end_dim"}, ""},
      {"unsqueeze", K::View, 1, 1, {"dim"}, ""},
      {"squeeze", K::View, 1, 1, {"dim"}, ""},
      {"t", K::View, 1, 1, {}, ""},
      // Ops returning a tuple of views: one op per output (`piece` of
      // `pieces`; the graph reader fans a multi-output op out), each a slice.
      {"split", K::View, 1, 1, {"split_size", "dim", "piece", "pieces"}, ""},
      {"chunk", K::View, 1, 1, {"chunks", "dim", "piece", "pieces"}, ""},
      {"unbind", K::View, 1, 1, {"dim", "piece", "pieces"}, ""},
      {"view_as", K::View, 2, 2, {}, ""},  // the second input's shape; its values are not read
      // torch.distributed's all_reduce (c10d functional all_reduce, reduce op
      // sum) in a tensor-parallel graph: every card's tensor becomes the sum of
      // all cards'. torch-spyre runs it through its spyreccl backend between
      // kernels; the compiler ends a bundle there.
      {"all_reduce", K::Collective, 1, 1, {}, ""},
  };
  return ops;
}

// The torch op of a registry row that lowers to that device op alone.
std::optional<ModelOp> from_registry(const OpInfo& d) {
  if (d.torch_name.empty()) return std::nullopt;
  ModelOp m{d.torch_name, K::Unary, 1, 1, {}, d.name, &d};
  switch (d.kind) {
    case OpKind::Elementwise:
    case OpKind::Copy:
      if (d.max_inputs == 1) {
        for (const auto& c : d.constants) {
          if (!c.torch_attr.empty()) m.attrs.push_back(c.torch_attr);
        }
      } else if (d.max_inputs == 2) {
        m.kind = K::Binary;  // numpy broadcasting; "scalar" replaces the second input
        m.max_inputs = 2;
        m.attrs = {"scalar"};
      } else {
        m.kind = K::Where;
        m.min_inputs = m.max_inputs = d.max_inputs;
      }
      return m;
    case OpKind::Reduction:  // over one dim
      m.kind = K::Reduction;
      m.attrs = {"dim", "keepdim"};
      return m;
    case OpKind::Matmul:
    case OpKind::Shuffle:
    case OpKind::TopK:  // torch.topk names both: a composite op (decompose.cpp)
      break;
  }
  return std::nullopt;
}

// Registry-derived ops, in registry order. Rows registered later (a test's toy
// op) are appended; a deque keeps earlier entries where they are.
const std::deque<ModelOp>& registry_table() {
  static std::mutex mutex;
  static std::deque<ModelOp> ops;
  static size_t rows_seen = 0;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto rows = all_ops();
  for (; rows_seen < rows.size(); ++rows_seen) {
    if (auto m = from_registry(*rows[rows_seen])) ops.push_back(std::move(*m));
  }
  return ops;
}

std::string shape_str(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + ")";
}

int64_t int_attr(const Json& attrs, const std::string& key, const std::string& where) {
  if (!attrs.contains(key)) fail("", where, "missing attribute '" + key + "'");
  if (!attrs[key].is_number_integer()) fail("", where, "attribute '" + key + "' must be an integer");
  return attrs[key].get<int64_t>();
}

}  // namespace

const ModelOp* find_model_op(const std::string& name) {
  for (const auto& op : registry_table()) {
    if (op.name == name) return &op;
  }
  for (const auto& op : composite_table()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

std::vector<std::string> model_op_names() {
  std::vector<std::string> names;
  for (const auto& op : registry_table()) names.push_back(op.name);
  for (const auto& op : composite_table()) names.push_back(op.name);
  return names;
}

std::vector<std::string> pointwise_op_names() {
  std::vector<std::string> names;
  for (const auto& op : registry_table()) {
    if (op.kind == K::Unary) names.push_back(op.name);
  }
  // pow needs its exponent: not a single-op workload (its value is the host's std::pow, not a value function).
  for (const auto& op : composite_table()) {
    if (op.kind == K::PointwiseComposite && op.value) names.push_back(op.name);
  }
  return names;
}

float pow_exponent(const Json& attrs, const std::string& where) {
  if (!attrs.contains("exponent")) fail("", where, "missing attribute 'exponent'");
  const double e = attrs.at("exponent").get<double>();
  const bool whole = std::nearbyint(e) == e && std::fabs(e) <= 64;
  if (!(whole && e != 0) && e != 0.5 && e != -0.5)
    fail("", where,
         "pow with exponent " + format_number(e) +
             " is not compiled: torch-spyre has no pow op; whole exponents other than 0 (multiplications, "
             "reciprocal), 0.5 (sqrt) and -0.5 (rsqrt) are");
  return static_cast<float>(e);
}

std::pair<int, int64_t> select_index(const Shape& x, const Json& attrs, const std::string& where) {
  if (x.size() < 2) fail("", where, "select from a rank-1 tensor gives a scalar, which the device has no layout for");
  const int d = normalize_dim(int_attr(attrs, "dim", where), x.size(), where);
  const int64_t n = x[static_cast<size_t>(d)];
  int64_t index = int_attr(attrs, "index", where);
  if (index < -n || index >= n)
    fail("", where, "index " + std::to_string(index) + " is out of range for a dimension of size " + std::to_string(n));
  return {d, index < 0 ? index + n : index};
}

std::pair<int64_t, int64_t> narrow_range(const Shape& x, const Json& attrs, const std::string& where) {
  const int d = normalize_dim(int_attr(attrs, "dim", where), x.size(), where);
  const int64_t n = x[static_cast<size_t>(d)];
  int64_t start = int_attr(attrs, "start", where);
  const int64_t length = int_attr(attrs, "length", where);
  if (start < 0) start += n;
  if (start < 0 || length < 1 || start + length > n)
    fail("", where,
         "narrow [" + std::to_string(start) + ", " + std::to_string(start + length) + ") of a dimension of size " +
             std::to_string(n));
  return {start, start + length};
}

namespace {

DType dtype_attr(const Json& attrs, const std::string& key, const std::string& where) {
  DType dtype;
  if (!parse_dtype(attrs.at(key).get<std::string>(), dtype))
    fail("", where,
         "attribute '" + key + "' '" + attrs.at(key).get<std::string>() +
             "' is not a device dtype (float16, bfloat16, float32, int32, int64)");
  return dtype;
}
DType dtype_attr(const Json& attrs, const std::string& where) { return dtype_attr(attrs, "dtype", where); }

}  // namespace

DType cast_dtype(const std::string& op, const Json& attrs, const std::vector<DType>& inputs, const std::string& where) {
  if (op == "type_as") return inputs.at(1);
  if (op == "float") return DType::F32;
  if (op == "half") return DType::F16;
  if (!attrs.contains("dtype")) fail("", where, "missing attribute 'dtype'");
  return dtype_attr(attrs, where);
}

DType output_dtype(const ModelOp& op, const Json& attrs, const std::vector<DType>& inputs, const std::string& where) {
  if (op.kind == K::Cast) return cast_dtype(op.name, attrs, inputs, where);
  if (op.kind == K::Fill && attrs.contains("dtype")) return dtype_attr(attrs, where);
  if (op.kind == K::TopK && attrs.value("piece", 0) == 1) return DType::I32;  // int64 indices, narrowed
  if (op.kind == K::ScaledMm) return attrs.contains("out_dtype") ? dtype_attr(attrs, "out_dtype", where) : DType::F16;
  if (op.kind == K::QuantizeFp8) return DType::F8;
  return inputs.empty() ? DType::F16 : inputs[0];
}

int indexed_dim(const Shape& x, const Json& attrs, const std::string& op, const std::string& where) {
  const auto rank = static_cast<int64_t>(x.size());
  int64_t d = attrs.value("dim", int64_t{0});
  if (d < 0) d += rank;
  if (d < 0 || d >= rank) fail("", where, "dim " + std::to_string(attrs.value("dim", 0)) + " is out of range");
  if (rank > 1 && d == rank - 1)
    fail("", where,
         "unsupported: " + op +
             " along the last dim (torch-spyre's indirect access moves whole rows of sticks, never along the stick "
             "dim)");
  return static_cast<int>(d);
}

std::vector<std::pair<int64_t, int64_t>> pad_amounts(const Shape& x, const Json& attrs, const std::string& where) {
  if (!attrs.contains("pad") || !attrs["pad"].is_array())
    fail("", where, "needs attribute 'pad' (amounts before and after, last dim first)");
  const auto pad = attrs["pad"].get<std::vector<int64_t>>();
  if (pad.size() % 2 != 0 || pad.size() > 2 * x.size())
    fail("", where,
         "'pad' has " + std::to_string(pad.size()) + " amounts; it takes pairs for at most the " +
             std::to_string(x.size()) + " dims");
  std::vector<std::pair<int64_t, int64_t>> amounts(x.size(), {0, 0});
  for (size_t p = 0; p < pad.size(); p += 2) {
    const size_t d = x.size() - 1 - p / 2;
    amounts[d] = {pad[p], pad[p + 1]};
    if (x[d] + pad[p] + pad[p + 1] < 1)
      fail("", where,
           "padding dim " + std::to_string(d) + " of size " + std::to_string(x[d]) + " by " + std::to_string(pad[p]) +
               " and " + std::to_string(pad[p + 1]) + " leaves no element");
  }
  return amounts;
}

namespace {

// An attribute of two ints (H, W): absent (the fallback), an int for both, or a list of one or two.
std::array<int64_t, 2> pair_attr(const Json& attrs, const std::string& key, std::array<int64_t, 2> fallback,
                                 const std::string& where) {
  if (!attrs.contains(key) || attrs[key].is_null() || (attrs[key].is_array() && attrs[key].empty())) return fallback;
  const Json& v = attrs[key];
  if (v.is_number_integer()) return {v.get<int64_t>(), v.get<int64_t>()};
  if (v.is_array() && v.size() <= 2 &&
      std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_number_integer(); }))
    return {v[0].get<int64_t>(), v[v.size() - 1].get<int64_t>()};
  fail("", where, "attribute '" + key + "' is an int or a list of two ints, got " + v.dump());
}

void check_window(const Shape& x, const Window2d& w, const std::string& op, const std::string& where) {
  if (x.size() != 4) fail("", where, op + " takes an [N, C, H, W] input, got " + shape_str(x));
  constexpr int64_t kMax = int64_t{1} << 20;  // keeps every window's arithmetic within 64 bits
  for (int d = 0; d < 2; ++d) {
    if (w.size[d] < 1 || w.stride[d] < 1 || w.dilation[d] < 1 || w.padding[d] < 0 || w.size[d] > kMax ||
        w.stride[d] > kMax || w.dilation[d] > kMax || w.padding[d] > kMax)
      fail("", where, op + ": kernel, stride and dilation are 1 to 2^20 and padding 0 to 2^20");
    if (w.out(d, x[2 + static_cast<size_t>(d)]) < 1)
      fail("", where,
           op + ": the window (" + std::to_string(w.size[0]) + "x" + std::to_string(w.size[1]) +
               ") is larger than the padded input " + shape_str(x));
  }
}

}  // namespace

Window2d conv_window(const Shape& x, const Shape& w, const Json& attrs, const std::string& where) {
  if (w.size() != 4) fail("", where, "conv2d takes a [C_out, C_in / groups, kH, kW] weight, got " + shape_str(w));
  Window2d win;
  win.size[0] = w[2];
  win.size[1] = w[3];
  const auto stride = pair_attr(attrs, "stride", {1, 1}, where), padding = pair_attr(attrs, "padding", {0, 0}, where),
             dilation = pair_attr(attrs, "dilation", {1, 1}, where);
  for (int d = 0; d < 2; ++d) {
    win.stride[d] = stride[static_cast<size_t>(d)];
    win.padding[d] = padding[static_cast<size_t>(d)];
    win.dilation[d] = dilation[static_cast<size_t>(d)];
  }
  win.groups = attrs.value("groups", int64_t{1});
  check_window(x, win, "conv2d", where);
  const int64_t channels = x[1];
  if (win.groups == 1) {
    if (w[1] != channels)
      fail("", where,
           "conv2d weight " + shape_str(w) + " takes " + std::to_string(w[1]) + " input channels, the input has " +
               std::to_string(channels));
  } else if (win.groups != channels || w[0] != channels || w[1] != 1) {
    fail("", where,
         "unsupported: conv2d with groups " + std::to_string(win.groups) + " and weight " + shape_str(w) +
             " (torch-spyre runs groups 1 and depthwise: groups = input channels = output channels)");
  }
  return win;
}

Window2d pool_window(const Shape& x, const Json& attrs, const std::string& where) {
  Window2d win;
  if (!attrs.contains("kernel_size")) fail("", where, "avg_pool2d needs attribute 'kernel_size'");
  const auto size = pair_attr(attrs, "kernel_size", {0, 0}, where);
  const auto stride = pair_attr(attrs, "stride", size, where), padding = pair_attr(attrs, "padding", {0, 0}, where);
  for (int d = 0; d < 2; ++d) {
    win.size[d] = size[static_cast<size_t>(d)];
    win.stride[d] = stride[static_cast<size_t>(d)];
    win.padding[d] = padding[static_cast<size_t>(d)];
  }
  check_window(x, win, "avg_pool2d", where);
  // Zero padding counted in the divisor is a pad before the pool (torch-spyre's
  // lowering refuses padding > 0 and count_include_pad false alike).
  if ((win.padding[0] > 0 || win.padding[1] > 0) && !attrs.value("count_include_pad", true))
    fail("", where, "unsupported: avg_pool2d with padding left out of the divisor (count_include_pad false)");
  for (int d = 0; d < 2; ++d) {
    if (2 * win.padding[d] > win.size[d])
      fail("", where, "avg_pool2d's padding is at most half its kernel (torch's rule)");
  }
  for (int d = 0; d < 2; ++d) {
    if (attrs.value("ceil_mode", false) && (x[2 + static_cast<size_t>(d)] - win.size[d]) % win.stride[d] != 0)
      fail("", where,
           "unsupported: avg_pool2d with ceil_mode where a last window would be partial (torch-spyre refuses "
           "ceil_mode)");
  }
  win.divisor = win.size[0] * win.size[1];
  if (attrs.contains("divisor_override") && !attrs["divisor_override"].is_null()) {
    win.divisor = attrs["divisor_override"].get<int64_t>();
    if (win.divisor < 1) fail("", where, "avg_pool2d's divisor_override must be positive");
  }
  return win;
}

std::pair<int, int64_t> topk_dim_and_k(const Shape& x, const Json& attrs, const std::string& where) {
  const int d = normalize_dim(attrs.value("dim", int64_t{-1}), x.size(), where);
  const int64_t k = int_attr(attrs, "k", where);
  const int64_t n = x[static_cast<size_t>(d)];
  if (k < 1 || k > n)
    fail("", where,
         "topk of k=" + std::to_string(k) + " along a dim of " + std::to_string(n) +
             " (1 <= k <= " + std::to_string(n) + ")");
  // torch-spyre's spyre_topk (decompositions.py) refuses the same.
  if (k > 128) fail("", where, "topk with k=" + std::to_string(k) + " is not supported (torch-spyre's most is 128)");
  if (!attrs.value("largest", true))
    fail("", where,
         "topk with largest=False is not supported (topkvalue/topkindex give the largest, as in torch-spyre)");
  return {d, k};
}

bool reads_first_input_only(const ModelOp& op) { return op.name == "type_as" || op.name == "view_as"; }

double norm_order(const Json& attrs, const std::string& where) {
  const char* key = attrs.contains("p") ? "p" : "ord";
  if (!attrs.contains(key)) return 2.0;
  const Json& v = attrs.at(key);
  double order = 0;
  if (v.is_string()) {
    const std::string text = v.get<std::string>();
    if (text == "fro") return 2.0;  // over the dims given: the 2-norm of their elements
    if (text == "inf") return INFINITY;
    if (text == "-inf") return -INFINITY;
    fail("", where,
         "attribute '" + std::string(key) + "' '" + text + "' is not a norm order (1, 2, \"inf\", \"-inf\", \"fro\")");
  }
  order = v.get<double>();
  if (order != 1 && order != 2 && !std::isinf(order))
    fail("", where,
         "a norm of order " + format_number(order) +
             " is not compiled; orders 1, 2, inf and -inf are (abs or square, sum, amax or amin, sqrt)");
  return order;
}

float fill_value(const ModelOp& op, const Json& attrs) {
  if (op.name == "zeros" || op.name == "zeros_like" || op.name == "new_zeros") return 0.0f;
  if (op.name == "ones" || op.name == "ones_like" || op.name == "new_ones") return 1.0f;
  return attrs.value(op.name == "fill_" ? "value" : "fill_value", 0.0f);
}

bool returns_pieces(const std::string& op) { return op == "split" || op == "chunk" || op == "unbind"; }

int piece_dim(const Shape& x, const Json& attrs, const std::string& where) {
  return normalize_dim(attrs.contains("dim") ? int_attr(attrs, "dim", where) : 0, x.size(), where);
}

std::pair<int64_t, int64_t> piece_range(const std::string& op, const Shape& x, const Json& attrs,
                                        const std::string& where) {
  const int d = piece_dim(x, attrs, where);
  const int64_t n = x[static_cast<size_t>(d)];
  // The pieces' sizes along the dim, as torch makes them.
  std::vector<int64_t> sizes;
  if (op == "unbind") {
    sizes.assign(static_cast<size_t>(n), 1);
  } else if (op == "chunk") {
    const int64_t chunks = int_attr(attrs, "chunks", where);
    if (chunks < 1) fail("", where, "chunk count " + std::to_string(chunks) + " (it must be positive)");
    const int64_t size = (n + chunks - 1) / chunks;
    for (int64_t at = 0; at < n; at += size) sizes.push_back(std::min(size, n - at));
  } else {
    if (!attrs.contains("split_size")) fail("", where, "split needs attribute 'split_size' (a size or a list)");
    const Json& s = attrs["split_size"];
    if (s.is_array()) {
      sizes = s.get<std::vector<int64_t>>();
      int64_t total = 0;
      for (int64_t v : sizes) total += v;
      if (total != n || std::any_of(sizes.begin(), sizes.end(), [](int64_t v) { return v < 1; }))
        fail(
            "", where,
            "split sizes " + s.dump() + " do not add up to dim " + std::to_string(d) + " of size " + std::to_string(n));
    } else {
      const int64_t size = s.get<int64_t>();
      if (size < 1) fail("", where, "split size " + std::to_string(size) + " (it must be positive)");
      for (int64_t at = 0; at < n; at += size) sizes.push_back(std::min(size, n - at));
    }
  }
  const int64_t piece = int_attr(attrs, "piece", where);
  const int64_t pieces = attrs.value("pieces", static_cast<int64_t>(sizes.size()));
  if (pieces != static_cast<int64_t>(sizes.size()))
    fail("", where,
         op + " of dim " + std::to_string(d) + " (size " + std::to_string(n) + ") gives " +
             std::to_string(sizes.size()) + (sizes.size() == 1 ? " piece" : " pieces") + ", the op names " +
             std::to_string(pieces) + " outputs");
  if (piece < 0 || piece >= static_cast<int64_t>(sizes.size()))
    fail("", where, "piece " + std::to_string(piece) + " of " + std::to_string(sizes.size()));
  int64_t start = 0;
  for (int64_t i = 0; i < piece; ++i) start += sizes[static_cast<size_t>(i)];
  return {start, start + sizes[static_cast<size_t>(piece)]};
}

int cat_dim(const std::string& op, const Shape& first_input, const Json& attrs, const std::string& where) {
  const int64_t d = attrs.value("dim", int64_t{0});
  return normalize_dim(d, first_input.size() + (op == "stack" ? 1 : 0), where);
}

Shape repeat_counts(const Shape& x, const Json& attrs, const std::string& where) {
  if (!attrs.contains("repeats") || !attrs["repeats"].is_array())
    fail("", where, "repeat needs attribute 'repeats' (a list)");
  const Shape counts = attrs["repeats"].get<Shape>();
  if (counts.size() < x.size())
    fail("", where,
         "repeat takes at least as many counts as the input has dims (" + std::to_string(x.size()) + "), got " +
             std::to_string(counts.size()));
  for (int64_t c : counts) {
    if (c < 1) fail("", where, "repeat count " + std::to_string(c) + " (counts must be positive)");
  }
  return counts;
}

int normalize_dim(int64_t dim, size_t rank, const std::string& where) {
  const int64_t r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r)
    fail("", where, "dim " + std::to_string(dim) + " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(dim < 0 ? dim + r : dim);
}

Shape broadcast_shapes(const std::vector<Shape>& shapes, const std::string& where) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const auto& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o != 1) {
        std::string all;
        for (const auto& x : shapes) all += (all.empty() ? "" : " and ") + shape_str(x);
        fail("", where, "shapes " + all + " do not broadcast");
      }
      o = s[i];
    }
  }
  return out;
}

std::vector<int> reduction_dims(const Json& attrs, size_t rank, const std::string& where) {
  std::vector<int> dims;
  if (!attrs.contains("dim")) {
    for (size_t i = 0; i < rank; ++i) dims.push_back(static_cast<int>(i));
    return dims;
  }
  const Json& d = attrs["dim"];
  if (d.is_number_integer()) {
    dims.push_back(normalize_dim(d.get<int64_t>(), rank, where));
  } else if (d.is_array()) {
    for (const auto& x : d) {
      if (!x.is_number_integer()) fail("", where, "attribute 'dim' must hold integers");
      dims.push_back(normalize_dim(x.get<int64_t>(), rank, where));
    }
  } else {
    fail("", where, "attribute 'dim' must be an integer or a list of integers");
  }
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end())
    fail("", where, "attribute 'dim' repeats a dimension");
  return dims;
}

Shape reshape_target(const Shape& from, const Json& attrs, const std::string& where) {
  if (!attrs.contains("shape") || !attrs["shape"].is_array())
    fail("", where, "reshape needs attribute 'shape' (a list)");
  Shape to;
  int infer = -1;
  int64_t known = 1;
  for (const auto& x : attrs["shape"]) {
    if (!x.is_number_integer()) fail("", where, "attribute 'shape' must hold integers");
    const int64_t v = x.get<int64_t>();
    if (v == -1) {
      if (infer >= 0) fail("", where, "attribute 'shape' has more than one -1");
      infer = static_cast<int>(to.size());
    } else if (v < 1) {
      fail("", where, "attribute 'shape' has size " + std::to_string(v));
    } else {
      known *= v;
    }
    to.push_back(v);
  }
  const int64_t total = std::accumulate(from.begin(), from.end(), int64_t{1}, std::multiplies<>());
  if (infer >= 0) {
    if (total % known != 0) fail("", where, "cannot reshape " + shape_str(from) + " to " + attrs["shape"].dump());
    to[static_cast<size_t>(infer)] = total / known;
  }
  if (std::accumulate(to.begin(), to.end(), int64_t{1}, std::multiplies<>()) != total) {
    fail("", where,
         "cannot reshape " + shape_str(from) + " (" + std::to_string(total) + " elements) to " + shape_str(to));
  }
  return to;
}

std::vector<int> view_permutation(const Json& attrs, const std::string& op, size_t rank, const std::string& where) {
  std::vector<int> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  if (op == "transpose") {
    std::swap(perm[static_cast<size_t>(normalize_dim(int_attr(attrs, "dim0", where), rank, where))],
              perm[static_cast<size_t>(normalize_dim(int_attr(attrs, "dim1", where), rank, where))]);
    return perm;
  }
  if (!attrs.contains("dims") || !attrs["dims"].is_array() || attrs["dims"].size() != rank) {
    fail("", where, "permute needs attribute 'dims' listing all " + std::to_string(rank) + " dimensions");
  }
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    if (!attrs["dims"][i].is_number_integer()) fail("", where, "attribute 'dims' must hold integers");
    perm[i] = normalize_dim(attrs["dims"][i].get<int64_t>(), rank, where);
    if (seen[static_cast<size_t>(perm[i])]) fail("", where, "attribute 'dims' repeats a dimension");
    seen[static_cast<size_t>(perm[i])] = true;
  }
  return perm;
}

Shape infer_shape(const ModelOp& op, const std::vector<Shape>& in, const Json& attrs, const std::string& where) {
  for (const auto& s : in) {
    if (s.empty()) fail("", where, "inputs must have at least one dimension");
  }
  switch (op.kind) {
    case K::Unary:
    case K::PointwiseComposite:
      if (op.name == "pow") pow_exponent(attrs, where);
      if (op.name == "dropout" && attrs.value("training", false))
        fail("", where, "dropout in training draws a random mask; only inference (training false) is compiled");
      return in[0];
    case K::Cast:
      if (op.name != "type_as") cast_dtype(op.name, attrs, {}, where);
      return in[0];
    case K::Fill: {
      if (attrs.contains("dtype")) dtype_attr(attrs, where);
      if (!in.empty() && !attrs.contains("size")) return in[0];
      if (!attrs.contains("size") || !attrs["size"].is_array() || attrs["size"].empty())
        fail("", where, op.name + " needs attribute 'size' (a list of dims)");
      const Shape size = attrs["size"].get<Shape>();
      for (int64_t d : size) {
        if (d < 1) fail("", where, "attribute 'size' has size " + std::to_string(d));
      }
      return size;
    }
    case K::Norm: {
      norm_order(attrs, where);
      const auto dims = reduction_dims(attrs, in[0].size(), where);
      const bool keep = attrs.value("keepdim", false);
      Shape out;
      for (size_t i = 0; i < in[0].size(); ++i) {
        const bool reduced = std::find(dims.begin(), dims.end(), static_cast<int>(i)) != dims.end();
        if (!reduced)
          out.push_back(in[0][i]);
        else if (keep)
          out.push_back(1);
      }
      if (out.empty()) out.push_back(1);
      return out;
    }
    case K::Gather: {
      if (op.name == "index_select" && in[1].size() != 1)
        fail("", where, "index_select takes a one-dim index, got " + shape_str(in[1]));
      if (op.name == "index_select") {
        // torch-spyre's spyre_flip gathers along any dim but the stick one.
        Shape out = in[0];
        out[static_cast<size_t>(indexed_dim(in[0], attrs, "index_select", where))] = in[1][0];
        return out;
      }
      Shape out = in[1];
      out.insert(out.end(), in[0].begin() + 1, in[0].end());
      return out;
    }
    case K::Scatter: {
      if (attrs.value("accumulate", 0.0) != 0.0)
        fail("", where, "unsupported: index_put with accumulate (torch-spyre's scatter replaces rows)");
      if (in[1].size() != 1) fail("", where, "index_put takes a one-dim index, got " + shape_str(in[1]));
      const int d = indexed_dim(in[0], attrs, "index_put", where);
      Shape rows = in[0];
      rows[static_cast<size_t>(d)] = in[1][0];
      if (in[2] != rows)
        fail("", where,
             "index_put's values are " + shape_str(in[2]) + ", not the " + shape_str(rows) +
                 " its index names (one row of the input per index)");
      return in[0];
    }
    case K::Conv2d: {
      const Window2d w = conv_window(in[0], in[1], attrs, where);
      if (in.size() == 3 && in[2] != Shape{in[1][0]})
        fail("", where, "conv2d bias must be (" + std::to_string(in[1][0]) + ",), got " + shape_str(in[2]));
      return {in[0][0], in[1][0], w.out(0, in[0][2]), w.out(1, in[0][3])};
    }
    case K::AvgPool2d: {
      const Window2d w = pool_window(in[0], attrs, where);
      return {in[0][0], in[0][1], w.out(0, in[0][2]), w.out(1, in[0][3])};
    }
    case K::Pad: {
      const auto amounts = pad_amounts(in[0], attrs, where);
      Shape out = in[0];
      for (size_t i = 0; i < out.size(); ++i) out[i] += amounts[i].first + amounts[i].second;
      return out;
    }
    case K::TopK: {
      const auto [d, k] = topk_dim_and_k(in[0], attrs, where);
      Shape out = in[0];
      out[static_cast<size_t>(d)] = k;
      return out;
    }
    case K::Repeat: {
      const Shape counts = repeat_counts(in[0], attrs, where);
      Shape out = counts;
      const size_t lead = counts.size() - in[0].size();
      for (size_t i = 0; i < in[0].size(); ++i) out[lead + i] *= in[0][i];
      return out;
    }
    case K::Cat: {
      const int d = cat_dim(op.name, in[0], attrs, where);
      Shape out = in[0];
      if (op.name == "stack") out.insert(out.begin() + d, 0);
      for (const Shape& s : in) {
        Shape other = s;
        if (op.name == "stack") other.insert(other.begin() + d, 0);
        other[static_cast<size_t>(d)] = out[static_cast<size_t>(d)];
        if (other != out)
          fail("", where,
               op.name + " inputs must match " +
                   (op.name == "stack" ? "in every dim" : "except in dim " + std::to_string(d)) + ": " +
                   shape_str(in[0]) + " and " + shape_str(s));
      }
      out[static_cast<size_t>(d)] = 0;
      for (const Shape& s : in) out[static_cast<size_t>(d)] += op.name == "stack" ? 1 : s[static_cast<size_t>(d)];
      return out;
    }
    case K::Addmm: {
      const Shape &a = in[1], &b = in[2];
      if (a.size() != 2 || b.size() != 2 || a[1] != b[0])
        fail("", where, "addmm multiplies two matrices (n, k) @ (k, m), got " + shape_str(a) + " and " + shape_str(b));
      const Shape out = {a[0], b[1]};
      if (broadcast_shapes({in[0], out}, where) != out)
        fail("", where, "addmm input " + shape_str(in[0]) + " does not broadcast to " + shape_str(out));
      return out;
    }
    case K::Binary:
      return in.size() == 1 ? in[0] : broadcast_shapes(in, where);
    case K::Where:
      return broadcast_shapes(in, where);
    case K::Reduction: {
      if ((op.name == "max" || op.name == "min") && attrs.contains("dim"))
        fail("", where,
             "torch." + op.name + " with dim returns values and indices; a" + op.name +
                 " gives the values (the indices are not compiled)");
      const auto dims = reduction_dims(attrs, in[0].size(), where);
      const bool keep = attrs.value("keepdim", false);
      Shape out;
      for (size_t i = 0; i < in[0].size(); ++i) {
        if (std::find(dims.begin(), dims.end(), static_cast<int>(i)) == dims.end())
          out.push_back(in[0][i]);
        else if (keep)
          out.push_back(1);
      }
      if (out.empty()) out.push_back(1);
      return out;
    }
    case K::Softmax:
      normalize_dim(attrs.value("dim", int64_t{-1}), in[0].size(), where);
      return in[0];
    case K::LayerNorm:
    case K::RmsNorm:
      for (size_t i = 1; i < in.size(); ++i) {
        if (in[i] != Shape{in[0].back()})
          fail("", where,
               "weight and bias must have shape (" + std::to_string(in[0].back()) + ",), got " + shape_str(in[i]));
      }
      return in[0];
    case K::QuantizeFp8:
      if (broadcast_shapes({in[1], in[0]}, where) != in[0])
        fail("", where, "scale " + shape_str(in[1]) + " does not broadcast to the input " + shape_str(in[0]));
      if (op.name == "quantize_weight_fp8_with_scale" && in[0].size() != 2)
        fail("", where,
             "quantize_weight_fp8_with_scale takes a 2-D weight [K, N] (its QFP8WT sticks pair rows of K), got " +
                 shape_str(in[0]));
      return in[0];
    case K::ScaledMm: {
      const Shape &a = in[0], &b = in[1];
      const bool two_d = a.size() == 2 && b.size() == 2, batched = a.size() == 3 && (b.size() == 2 || b.size() == 3);
      if (!(two_d || batched) || a.back() != b[b.size() - 2] || (b.size() == 3 && a[0] != b[0]))
        fail("", where,
             "_scaled_mm multiplies [M, K] @ [K, N], [B, M, K] @ [K, N] or [B, M, K] @ [B, K, N] (torch-spyre's "
             "lower_scaled_mm), got " +
                 shape_str(a) + " and " + shape_str(b));
      Shape out(a.begin(), a.end() - 1);
      out.push_back(b.back());
      for (size_t i = 2; i < in.size(); ++i) {
        if (broadcast_shapes({in[i], out}, where) != out)
          fail("", where,
               std::string(i == 4   ? "bias "
                           : i == 2 ? "scale_a "
                                    : "scale_b ") +
                   shape_str(in[i]) + " does not broadcast to the product " + shape_str(out));
      }
      if (attrs.contains("out_dtype")) {
        const DType d = dtype_attr(attrs, "out_dtype", where);
        if (d != DType::F16 && d != DType::BF16)
          fail("", where, "_scaled_mm's out_dtype is float16 or bfloat16 (the batchmatmulfp8 result's format)");
      }
      return out;
    }
    case K::Matmul: {
      const Shape &a = in[0], &b = in[1];
      if (op.name == "mm" && (a.size() != 2 || b.size() != 2)) fail("", where, "mm takes two 2-dimensional tensors");
      if (a.size() < 2 || b.size() < 2)
        fail("", where, "matmul operands need at least 2 dimensions, got " + shape_str(a) + " and " + shape_str(b));
      if (op.name == "bmm" && (a.size() != 3 || b.size() != 3)) fail("", where, "bmm takes two 3-dimensional tensors");
      if (a.back() != b[b.size() - 2])
        fail("", where, "matmul inner dimensions differ: " + shape_str(a) + " @ " + shape_str(b));
      Shape batch = broadcast_shapes({Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)}, where);
      batch.push_back(a[a.size() - 2]);
      batch.push_back(b.back());
      return batch;
    }
    case K::Linear: {
      const Shape &x = in[0], &w = in[1];
      if (w.size() != 2 || w[1] != x.back())
        fail("", where, "linear weight must be (out_features, " + std::to_string(x.back()) + "), got " + shape_str(w));
      if (in.size() == 3 && in[2] != Shape{w[0]})
        fail("", where, "linear bias must be (" + std::to_string(w[0]) + ",), got " + shape_str(in[2]));
      Shape out = x;
      out.back() = w[0];
      return out;
    }
    case K::SwigluMlp: {
      const Shape &x = in[0], &wg = in[1], &wu = in[2], &wd = in[3];
      const int64_t e = x.back();
      if (wg.size() != 2 || wg[1] != e || wu != wg)
        fail("", where, "gate and up weights must both be (hidden, " + std::to_string(e) + ")");
      if (wd != Shape{e, wg[0]})
        fail("", where, "down weight must be (" + std::to_string(e) + ", " + std::to_string(wg[0]) + ")");
      return x;
    }
    case K::Attention: {
      const Shape &q = in[0], &k = in[1], &v = in[2];
      if (q.size() < 3 || k.size() != q.size() || v.size() != q.size())
        fail("", where, "q, k, v must be (..., heads, seq, head_dim) of one rank");
      const size_t r = q.size();
      if (k[r - 1] != q[r - 1]) fail("", where, "q and k head dims differ");
      if (v[r - 2] != k[r - 2] || v[r - 3] != k[r - 3])
        fail("", where, "k and v must have the same heads and sequence length");
      if (q[r - 3] % k[r - 3] != 0)
        fail("", where,
             "query heads (" + std::to_string(q[r - 3]) + ") must be a multiple of key/value heads (" +
                 std::to_string(k[r - 3]) + ")");
      for (size_t i = 0; i + 3 < r; ++i) {
        if (q[i] != k[i] || q[i] != v[i]) fail("", where, "q, k, v batch dims differ");
      }
      if (attrs.value("dropout_p", 0.0) != 0.0)
        fail("", where, "dropout_p other than 0 draws a random mask; only inference (dropout_p 0) is compiled");
      if (attrs.value("is_causal", false))
        fail("", where, "is_causal is not compiled: give the causal mask as attn_mask (the fourth input)");
      if (in.size() == 4) {
        Shape scores = q;
        scores.back() = k[r - 2];
        const Shape& mask = in[3];
        bool broadcasts = mask.size() <= r;
        for (size_t i = 1; broadcasts && i <= mask.size(); ++i)
          broadcasts = mask[mask.size() - i] == 1 || mask[mask.size() - i] == scores[r - i];
        if (!broadcasts)
          fail("", where, "attn_mask " + shape_str(in[3]) + " does not broadcast to the scores " + shape_str(scores));
      }
      Shape out = q;
      out.back() = v.back();
      return out;
    }
    case K::Expand: {
      // torch.expand: new leading dims, size-1 dims grown, -1 keeps a dim.
      const Shape& x = in[0];
      if (!attrs.contains("shape") || !attrs["shape"].is_array()) fail("", where, "expand needs attribute 'shape'");
      Shape out = attrs["shape"].get<Shape>();
      if (out.size() < x.size())
        fail("", where,
             "expand to rank " + std::to_string(out.size()) + " of a rank-" + std::to_string(x.size()) + " tensor");
      for (size_t i = 0; i < out.size(); ++i) {
        const size_t lead = out.size() - x.size();
        const int64_t have = i < lead ? 1 : x[i - lead];
        if (out[i] == -1 && i >= lead) out[i] = have;
        if (out[i] < 1 || (have != 1 && out[i] != have))
          fail("", where,
               "cannot expand dim " + std::to_string(i) + " of size " + std::to_string(have) + " to " +
                   std::to_string(out[i]));
      }
      return out;
    }
    case K::Collective:
      return in[0];
    case K::View: {
      const Shape& x = in[0];
      if (op.name == "reshape" || op.name == "view") return reshape_target(x, attrs, where);
      if (op.name == "view_as") return reshape_target(x, Json{{"shape", in[1]}}, where);
      if (returns_pieces(op.name)) {
        const int d = piece_dim(x, attrs, where);
        const auto [start, end] = piece_range(op.name, x, attrs, where);
        Shape out = x;
        out[static_cast<size_t>(d)] = end - start;
        if (op.name == "unbind") {
          if (x.size() == 1)
            fail("", where, "unbind of a rank-1 tensor gives scalars, which the device has no layout for");
          out.erase(out.begin() + d);
        }
        return out;
      }
      if (op.name == "t") {
        if (x.size() > 2) fail("", where, "t transposes a tensor of at most 2 dims; use transpose");
        return x.size() == 2 ? Shape{x[1], x[0]} : x;
      }
      if (op.name == "transpose" || op.name == "permute") {
        const auto perm = view_permutation(attrs, op.name, x.size(), where);
        Shape out;
        for (int p : perm) out.push_back(x[static_cast<size_t>(p)]);
        return out;
      }
      if (op.name == "unsqueeze") {
        Shape out = x;
        const int d = normalize_dim(int_attr(attrs, "dim", where), x.size() + 1, where);
        out.insert(out.begin() + d, 1);
        return out;
      }
      if (op.name == "squeeze") {
        const int d = normalize_dim(int_attr(attrs, "dim", where), x.size(), where);
        if (x[static_cast<size_t>(d)] != 1)
          fail("", where,
               "squeeze of dim " + std::to_string(d) + " of size " + std::to_string(x[static_cast<size_t>(d)]));
        if (x.size() == 1) fail("", where, "cannot squeeze the only dimension");
        Shape out = x;
        out.erase(out.begin() + d);
        return out;
      }
      if (op.name == "flatten") {
        const int first = normalize_dim(attrs.value("start_dim", int64_t{0}), x.size(), where);
        const int last = normalize_dim(attrs.value("end_dim", int64_t{-1}), x.size(), where);
        if (first > last) fail("", where, "flatten's start_dim comes after its end_dim");
        Shape out(x.begin(), x.begin() + first);
        out.push_back(std::accumulate(x.begin() + first, x.begin() + last + 1, int64_t{1}, std::multiplies<>()));
        out.insert(out.end(), x.begin() + last + 1, x.end());
        return out;
      }
      if (op.name == "select") {
        const auto [d, index] = select_index(x, attrs, where);
        Shape out = x;
        out.erase(out.begin() + d);
        return out;
      }
      // slice, narrow
      const int d = normalize_dim(int_attr(attrs, "dim", where), x.size(), where);
      if (op.name == "narrow") {
        const auto [start, end] = narrow_range(x, attrs, where);
        Shape out = x;
        out[static_cast<size_t>(d)] = end - start;
        return out;
      }
      const int64_t start = int_attr(attrs, "start", where), end = int_attr(attrs, "end", where);
      if (start < 0 || end > x[static_cast<size_t>(d)] || start >= end) {
        fail("", where,
             "slice [" + std::to_string(start) + ", " + std::to_string(end) + ") of a dimension of size " +
                 std::to_string(x[static_cast<size_t>(d)]));
      }
      Shape out = x;
      out[static_cast<size_t>(d)] = end - start;
      return out;
    }
  }
  return in[0];
}

}  // namespace spyre::compiler
