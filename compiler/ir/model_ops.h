#pragma once
// The torch-level ops a model graph may use: their inputs, attributes and
// output shapes. Decomposition (decompose.cpp) turns them into device
// ops; the host evaluator (host_evaluator.cpp) computes them in fp32.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/layout.h"
#include "runtime/json_node.h"
#include "runtime/op_registry.h"

namespace spyre::compiler {

enum class ModelOpKind {
  Unary,
  Binary,
  Where,
  Reduction,
  Softmax,
  LayerNorm,
  RmsNorm,
  Matmul,
  Linear,
  SwigluMlp,
  Attention,
  Expand,
  PointwiseComposite,  // a unary torch op torch-spyre decomposes into pointwise device ops (ceil, sign, ...)
  Cast,                // a dtype conversion (to, float, half; type_as: the second input's dtype)
  View,
  Fill,        // a tensor of one value (full, zeros, ones, their _like / new_ forms, fill_)
  Norm,        // vector_norm / norm: ord 1, 2, inf or -inf over some dims
  Repeat,      // repeat: tiles of the input, materialized
  Addmm,       // addmm: beta * input + alpha * (mat1 @ mat2)
  Cat,         // cat / stack: each input copied into its slice of the output
  Collective,  // all_reduce: the sum over the cards of a tensor-parallel graph (Graph::cards)
  Gather,      // embedding / index_select: rows of a table named by an integer index tensor
  TopK,        // topk: the k largest along a dim, one op per output (piece 0 values, 1 indices)
  Pad,         // constant_pad_nd / pad: a value around the input (a negative amount crops)
  Scatter,     // index_put: the input with the rows an integer index names replaced by values
  Conv2d,      // conv2d: [N, C, H, W] input, [C_out, C / groups, kH, kW] weight (groups 1 or depthwise)
  AvgPool2d,   // avg_pool2d: the mean of each window of an [N, C, H, W] input
  ScaledMm,    // _scaled_mm: an FP8 matmul times scale_a and scale_b, plus a bias
  QuantizeFp8  // quantize_(weight_)fp8_with_scale: x / scale clamped to FP8's range, converted
};

// Unary, Binary, Where and Reduction ops come from the op registry's rows with
// a torch name (runtime/op_registry.h); the composite and view ops are listed
// in model_ops.cpp.
struct ModelOp {
  std::string name;
  ModelOpKind kind;
  int min_inputs, max_inputs;
  std::vector<std::string> attrs;   // attributes it accepts
  std::string device_op;            // Unary/Binary/Where/Reduction: the SuperDSC opFuncName
  const OpInfo* device = nullptr;   // its registry row
  float (*value)(float) = nullptr;  // PointwiseComposite: the torch op's value, for the host reference
};

// nullptr when the op is not supported.
const ModelOp* find_model_op(const std::string& name);
// pow's exponent: a whole number other than 0, or +-0.5 (what the decomposition compiles).
float pow_exponent(const Json& attrs, const std::string& where);
// select's dim and index (a negative index counts from the end).
std::pair<int, int64_t> select_index(const Shape& x, const Json& attrs, const std::string& where);
// narrow's [start, end) along its dim.
std::pair<int64_t, int64_t> narrow_range(const Shape& x, const Json& attrs, const std::string& where);
// The dtype a Cast op converts to (type_as: `inputs[1]`'s); `where` names the op in errors.
DType cast_dtype(const std::string& op, const Json& attrs, const std::vector<DType>& inputs, const std::string& where);
// The dtype of an op's output: a cast's target, a fill's `dtype` attribute
// (float16 when it has no input to take one from), else its first input's.
DType output_dtype(const ModelOp& op, const Json& attrs, const std::vector<DType>& inputs, const std::string& where);
// Ops whose inputs after the first give only a shape or a dtype (type_as,
// view_as): their dtypes may differ from the first's.
bool reads_first_input_only(const ModelOp& op);
// vector_norm's order (1, 2, +inf or -inf: what decomposition compiles).
double norm_order(const Json& attrs, const std::string& where);
// The value a Fill op writes.
float fill_value(const ModelOp& op, const Json& attrs);
// topk's dim (normalized) and k, checked as torch-spyre's decomposition checks them.
std::pair<int, int64_t> topk_dim_and_k(const Shape& x, const Json& attrs, const std::string& where);
// constant_pad_nd's amounts per dim of x, outermost first: (before, after), negative to crop.
std::vector<std::pair<int64_t, int64_t>> pad_amounts(const Shape& x, const Json& attrs, const std::string& where);
// The dim an index_put's or index_select's index runs along (attribute "dim",
// default 0, negative from the end); the last (stick) dim is refused.
int indexed_dim(const Shape& x, const Json& attrs, const std::string& op, const std::string& where);
// The window of conv2d and avg_pool2d over the last two dims (H, W) of an
// [N, C, H, W] input: per dim its size, stride, zero padding on each side and
// dilation; groups (conv2d: 1, or the channels for a depthwise conv) and the
// divisor of a pool's sum (its elements, or divisor_override).
struct Window2d {
  int64_t size[2] = {1, 1}, stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  int64_t groups = 1;
  int64_t divisor = 1;
  int64_t out(int d, int64_t in) const {
    return (in + 2 * padding[d] - dilation[d] * (size[d] - 1) - 1) / stride[d] + 1;
  }
};
// conv2d's window from its weight [C_out, C / groups, kH, kW] and attributes
// (stride, padding, dilation, groups: an int or one per dim), checked.
Window2d conv_window(const Shape& x, const Shape& w, const Json& attrs, const std::string& where);
// avg_pool2d's (kernel_size, stride: the kernel's by default, padding,
// ceil_mode, count_include_pad, divisor_override), checked.
Window2d pool_window(const Shape& x, const Json& attrs, const std::string& where);
// split, chunk and unbind return a tuple of views: one op per output.
bool returns_pieces(const std::string& op);
// Their dim (attribute `dim`, default 0), normalized; the [start, end) along
// it of the output `piece` (of `pieces`).
int piece_dim(const Shape& x, const Json& attrs, const std::string& where);
std::pair<int64_t, int64_t> piece_range(const std::string& op, const Shape& x, const Json& attrs,
                                        const std::string& where);
// cat's (stack's: the new) dim, normalized.
int cat_dim(const std::string& op, const Shape& first_input, const Json& attrs, const std::string& where);
// repeat's counts, one per output dim (as many as the input has dims, or more).
Shape repeat_counts(const Shape& x, const Json& attrs, const std::string& where);
std::vector<std::string> model_op_names();
std::vector<std::string> pointwise_op_names();  // unary ops (device ops and composites) usable as single-op workloads

// Output shape of an op; `where` names the op in errors.
Shape infer_shape(const ModelOp& op, const std::vector<Shape>& inputs, const Json& attrs, const std::string& where);

// Helpers shared with decomposition and the evaluator.
Shape broadcast_shapes(const std::vector<Shape>& shapes, const std::string& where);
int normalize_dim(int64_t dim, size_t rank, const std::string& where);
std::vector<int> reduction_dims(const Json& attrs, size_t rank,
                                const std::string& where);  // "dim": int or list; absent: all
Shape reshape_target(const Shape& from, const Json& attrs, const std::string& where);  // resolves one -1
std::vector<int> view_permutation(const Json& attrs, const std::string& op, size_t rank, const std::string& where);

}  // namespace spyre::compiler
