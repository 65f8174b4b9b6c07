// Decompositions: every model op becomes SuperDSC ops and views, the way
// torch-spyre's decompositions and lowerings do (softmax -> max, sub, exp,
// sum, realdiv; layer_norm -> exx2, layernormscale, layernormnorm; linear ->
// batchmatmul on a transposed view of the weight (+ add for the bias); scalar
// operands -> size-1 constant tensors, as replace_scalar_with_tensor does).
// Reductions keep the reduced dim internally (size 1); a model tensor that
// drops it is a reshape view of the kept one, or just reports a host shape.

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "compiler/ir/model_ops.h"
#include "compiler/passes/passes.h"
#include "runtime/error.h"
#include "runtime/numerics.h"
#include "runtime/text.h"

namespace spyre::compiler {

namespace {

class Decomposer {
 public:
  explicit Decomposer(Graph& model) : model_(model) {
    out_.name = model.name;
    out_.cards = model.cards;
    out_.tensors = model.tensors;
  }

  Graph run() {
    count_uses();
    for (const Op& op : model_.ops) lower(op);
    return std::move(out_);
  }

 private:
  void count_uses() {
    uses_.assign(model_.tensors.size(), 0);
    for (const Op& op : model_.ops) {
      for (int t : op.inputs) ++uses_[static_cast<size_t>(t)];
    }
  }

  const Tensor& tensor(int t) const { return out_.tensors[static_cast<size_t>(t)]; }
  const Shape& shape(int t) const { return tensor(t).shape; }

  // A new intermediate named after the model op's output: "y.max", ...
  int temp(const std::string& suffix, const Shape& s, DType dtype) {
    Tensor t;
    t.name = out_.unique_name(base_name_ + "." + suffix);
    t.shape = s;
    t.dtype = dtype;
    t.role = Role::Intermediate;
    return out_.add_tensor(t);
  }

  // A size-1 constant tensor; equal constants are shared.
  int constant(float value, DType dtype) {
    for (size_t i = 0; i < out_.tensors.size(); ++i) {
      const Tensor& t = out_.tensors[i];
      if (t.role == Role::Constant && t.value == value && t.dtype == dtype && t.shape == Shape{1})
        return static_cast<int>(i);
    }
    Tensor t;
    t.name = out_.unique_name("const." + format_number(value));
    t.shape = {1};
    t.dtype = dtype;
    t.role = Role::Constant;
    t.value = value;
    return out_.add_tensor(t);
  }

  void emit(const std::string& type, std::vector<int> inputs, int output, Json attrs = Json::object()) {
    Op op;
    op.type = type;
    op.inputs = std::move(inputs);
    op.outputs = {output};
    op.attrs = std::move(attrs);
    op.origin = origin_;
    op.loop_trips = loop_trips_;
    op.loop_group = loop_group_;
    op.work_div = work_div_;
    out_.ops.push_back(std::move(op));
  }

  // A device op writing a new intermediate, or `into` (the model op's output).
  int device_op(const std::string& type, const std::vector<int>& inputs, const std::string& suffix, const Shape& s,
                Json attrs = Json::object(), int into = -1) {
    const int t = into >= 0 ? into : temp(suffix, s, tensor(inputs[0]).dtype);
    emit(type, inputs, t, std::move(attrs));
    return t;
  }

  // index_put as torch-spyre runs it: the input copied into the result, then
  // an indirect scatter (a copy whose output is written at row index[i] for
  // row i of the values, its index_put lowering) into the same bytes. The
  // copy's result is the scatter's storage (Tensor::accumulates_into) and the
  // scatter lists it as a last input, which orders the two and which its
  // kernel does not read (iteration_space leaves it out). A rank-1 input
  // scatters rows of one element ([M] as [M, 1]); along dim d the index is
  // viewed with its elements at d (one per row of the dims after it).
  void scatter(int self, int index, int values, int out, int d) {
    if (tensor(index).dtype != DType::I32)
      fail("", origin_,
           "the index of index_put is an integer tensor (int32 or int64), not " +
               std::string(dtype_name(tensor(index).dtype)));
    const bool rank1 = shape(self).size() == 1;
    const Shape table = rank1 ? Shape{shape(self)[0], 1} : shape(self);
    const int result = rank1 ? temp("rows", table, tensor(out).dtype) : out;
    const int source = rank1 ? reshape(values, {shape(values)[0], 1}, "values") : values;
    const int filled = temp("filled", table, tensor(out).dtype);
    out_.tensors[static_cast<size_t>(filled)].accumulates_into = result;
    emit("identity", {rank1 ? reshape(self, table, "table") : self}, filled);
    Shape index_shape(table.size(), 1);
    index_shape[static_cast<size_t>(d)] = shape(index)[0];
    const int index_view = reshape(index, index_shape, "index");
    emit("identity", {source, index_view, filled}, result,
         {{"scatter", true}, {"dim", d}, {"iteration_shape", shape(source)}});
    if (rank1) reshape(result, shape(out), "", out);
  }

  int reshape(int in, const Shape& to, const std::string& suffix, int into = -1) {
    if (shape(in) == to && into < 0) return in;
    const int t = into >= 0 ? into : temp(suffix, to, tensor(in).dtype);
    Json attrs = {{"shape", to}};
    emit("reshape", {in}, t, attrs);
    return t;
  }

  // `in` converted to `to` as torch-spyre's DtypeOpTable converts: fp16 and
  // bf16 share a device format (an identity), fp32 is the hub (dl16tofp32 /
  // fp32todl16), integers go through it (int32tofp32 / fp32toint32), FP8 is
  // reached from fp16 and left to it (qfp8ch / fp8todl16: torch-spyre's only
  // FP8 casts; others chain through fp16 here).
  int cast(int in, DType to, const std::string& suffix, int into = -1) {
    const DataFormat from_format = device_format(tensor(in).dtype), to_format = device_format(to);
    if (from_format == to_format) {
      const int t = into >= 0 ? into : temp(suffix, shape(in), to);
      emit("identity", {in}, t);
      return t;
    }
    std::vector<std::pair<std::string, DType>> steps;  // each op and the dtype of its result
    DataFormat at = from_format;
    if (at == DataFormat::Fp8E4m3) {
      steps.emplace_back("fp8todl16", DType::F16);
      at = DataFormat::Dl16;
    }
    const DataFormat target = to_format == DataFormat::Fp8E4m3 ? DataFormat::Dl16 : to_format;
    if (at != target) {
      if (at == DataFormat::Dl16) steps.emplace_back("dl16tofp32", DType::F32);
      if (at == DataFormat::Int32) steps.emplace_back("int32tofp32", DType::F32);
      if (target == DataFormat::Dl16) steps.emplace_back("fp32todl16", DType::F16);
      if (target == DataFormat::Int32) steps.emplace_back("fp32toint32", DType::I32);
    }
    if (to_format == DataFormat::Fp8E4m3) steps.emplace_back("qfp8ch", DType::F8);
    steps.back().second = to;
    int x = in;
    for (size_t i = 0; i < steps.size(); ++i) {
      const bool last = i + 1 == steps.size();
      const int t = last && into >= 0 ? into : temp(suffix, shape(in), steps[i].second);
      emit(steps[i].first, {x}, t);
      x = t;
    }
    return x;
  }

  // torch-spyre computes on integer tensors in fp32 (its lowering's
  // with_int64_fallback): the integer operands converted to the op's float
  // dtype (that of its float operands, else fp32), the op computed there and
  // its result converted to the dtype the graph declares for it (an integer
  // for arithmetic, a bool, kept as float16 0/1, for a comparison).
  static bool computes_on_values(const ModelOp& m) {
    switch (m.kind) {
      case ModelOpKind::Cast:
      case ModelOpKind::View:
      case ModelOpKind::Expand:
      case ModelOpKind::Repeat:
      case ModelOpKind::Cat:
      case ModelOpKind::Fill:
      case ModelOpKind::Collective:
      case ModelOpKind::Gather:
      case ModelOpKind::Scatter:
        return false;
      default:
        return m.device_op != "identity";  // clone, contiguous: a copy of the words
    }
  }

  // The dtype of an op's result with integer operands: what the graph
  // declares, else PyTorch's: a comparison's is a bool (float16 0/1 on the
  // card), true division's a float, with a float operand that operand's
  // dtype, else an integer.
  DType result_on_integers(const ModelOp& m, const Op& op, DType compute) const {
    const Tensor& out = tensor(op.outputs[0]);
    if (out.dtype_given) return out.dtype;
    static const std::set<std::string> kBoolResults = {
        "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not", "isnan", "isinf"};
    if (kBoolResults.count(m.name)) return DType::F16;
    const bool float_operand =
        std::any_of(op.inputs.begin(), op.inputs.end(), [&](int t) { return tensor(t).dtype != DType::I32; });
    if (float_operand) return compute;
    return m.name == "div" ? DType::F32 : DType::I32;
  }

  void lower_on_floats(const Op& op) {
    DType compute = DType::F32;
    for (int t : op.inputs) {
      if (tensor(t).dtype != DType::I32) {
        compute = tensor(t).dtype;
        break;
      }
    }
    const int out = op.outputs[0];
    const DType declared = result_on_integers(*find_model_op(op.type), op, compute);
    out_.tensors[static_cast<size_t>(out)].dtype = declared;
    base_name_ = tensor(out).name;
    origin_ = model_.describe(op);
    Op on_floats = op;
    std::map<int, int> converted;  // an operand used twice (x * x) is converted once
    for (int& t : on_floats.inputs) {
      if (tensor(t).dtype != DType::I32) continue;
      auto [it, fresh] = converted.try_emplace(t, -1);
      if (fresh) it->second = cast(t, compute, "as_" + std::string(dtype_name(compute)));
      t = it->second;
    }
    if (declared != compute) on_floats.outputs = {temp("on_" + std::string(dtype_name(compute)), shape(out), compute)};
    lower(on_floats);
    if (declared != compute) {
      base_name_ = tensor(out).name;
      origin_ = model_.describe(op);
      cast(on_floats.outputs[0], declared, "cast", out);
    }
  }

  int transpose_last(int in, const std::string& suffix) {
    std::vector<int> perm;
    const size_t r = shape(in).size();
    for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int>(i));
    std::swap(perm[r - 1], perm[r - 2]);
    Shape s = shape(in);
    std::swap(s[r - 1], s[r - 2]);
    const int t = temp(suffix, s, tensor(in).dtype);
    emit("permute", {in}, t, {{"dims", perm}});
    return t;
  }

  static Shape keep_dim(Shape s, int dim) {
    s[static_cast<size_t>(dim)] = 1;
    return s;
  }

  // A reduction over one dim, output kept at size 1.
  int reduce(const std::string& type, int in, int dim, const std::string& suffix,
             const Json& constants = Json::object(), int into = -1) {
    Json attrs = {{"dim", dim}};
    if (!constants.empty()) attrs["constants"] = constants;
    return device_op(type, {in}, suffix, keep_dim(shape(in), dim), attrs, into);
  }

  // A reduction over several dims, one after another (each kept at size 1;
  // a mean's scaling per dim makes the mean of the whole). The result is the
  // model op's output `into` (when >= 0): kept at size 1 with keepdim, else a
  // view of the kept result, or, when nothing on the device reads it, the
  // kept result with the host seeing the dims dropped.
  int reduce_dims(const std::string& type, bool mean, int in, const std::vector<int>& dims, bool keep, int into) {
    int v = in;
    for (size_t i = 0; i < dims.size(); ++i) {
      Json constants = Json::object();
      if (mean) constants["scaling_factor"] = 1.0f / static_cast<float>(shape(v)[static_cast<size_t>(dims[i])]);
      if (i + 1 < dims.size() || into < 0) {
        v = reduce(type, v, dims[i], "partial", constants);
        continue;
      }
      if (keep) return reduce(type, v, dims[i], "kept", constants, into);
      if (uses_[static_cast<size_t>(into)] == 0) {
        // Nothing on the device reads it: keep the dims on the device, drop them for the host.
        Tensor& t = out_.tensors[static_cast<size_t>(into)];
        t.host_shape = t.shape;
        t.shape = keep_dim(shape(v), dims[i]);
        return reduce(type, v, dims[i], "kept", constants, into);
      }
      const int kept = reduce(type, v, dims[i], "kept", constants);
      emit("reshape", {kept}, into, {{"shape", shape(into)}});
      return into;
    }
    return v;
  }

  // torch-spyre's insert_bmm_padding: a contraction that ends inside a stick
  // pads B's rows to whole sticks with zeros (a fill and a copy), and the
  // batchmatmul contracts over the padded length; A stays as it is (the card
  // reads its last stick whole, the padding B's zeros cancel).
  int matmul(int a, int b, const std::string& suffix, int into = -1) {
    const Shape sa = shape(a);
    const int64_t k = sa.back(), stick = stick_elems(tensor(a).dtype);
    if (k % stick != 0) {
      std::vector<std::pair<int64_t, int64_t>> amounts(shape(b).size(), {0, 0});
      amounts[amounts.size() - 2] = {0, (k + stick - 1) / stick * stick - k};
      b = pad(b, amounts, 0.0f, -1);
    }
    const Shape sb = shape(b);
    Shape batch = broadcast_shapes({Shape(sa.begin(), sa.end() - 2), Shape(sb.begin(), sb.end() - 2)}, origin_);
    batch.push_back(sa[sa.size() - 2]);
    batch.push_back(sb.back());
    return device_op("batchmatmul", {a, b}, suffix, batch, Json::object(), into);
  }

  // torch-spyre's lower_constant_pad_nd: x cropped where an amount is
  // negative (slice views), then one padded dim at a time the value's blocks
  // and x copied (identities) into the parts of one output (a concat view, as
  // a cat lowers). Amounts per dim: (before, after).
  int pad(int x, const std::vector<std::pair<int64_t, int64_t>>& amounts, float value, int into) {
    const DType dtype = tensor(x).dtype;
    for (size_t d = 0; d < amounts.size(); ++d) {
      const auto [before, after] = amounts[d];
      if (before >= 0 && after >= 0) continue;
      Shape cropped = shape(x);
      const int64_t start = std::max<int64_t>(0, -before), end = cropped[d] - std::max<int64_t>(0, -after);
      cropped[d] = end - start;
      const int view = temp("cropped", cropped, dtype);
      emit("slice", {x}, view, {{"dim", d}, {"start", start}, {"end", end}});
      x = view;
    }
    std::vector<size_t> padded;
    for (size_t d = 0; d < amounts.size(); ++d) {
      if (amounts[d].first > 0 || amounts[d].second > 0) padded.push_back(d);
    }
    if (padded.empty()) return into >= 0 ? device_op("identity", {x}, "", shape(x), Json::object(), into) : x;
    const int fill = constant(value, dtype);
    for (size_t p = 0; p < padded.size(); ++p) {
      const size_t d = padded[p];
      const int64_t before = std::max<int64_t>(0, amounts[d].first), after = std::max<int64_t>(0, amounts[d].second);
      Shape whole = shape(x);
      whole[d] += before + after;
      std::vector<int> parts;
      auto block = [&](int64_t n, const std::string& name) {
        Shape s = whole;
        s[d] = n;
        parts.push_back(device_op("identity", {reshape(fill, Shape(s.size(), 1), "pad_value")}, name, s));
      };
      if (before > 0) block(before, "pad_before");
      const Shape inner = shape(x);  // a copy: device_op adds tensors
      parts.push_back(device_op("identity", {x}, "padded_input", inner));
      if (after > 0) block(after, "pad_after");
      const int result = p + 1 == padded.size() && into >= 0 ? into : temp("padded", whole, dtype);
      emit("concat", parts, result, {{"dim", static_cast<int>(d)}});
      x = result;
    }
    return x;
  }

  // A windowed device op's attributes (iteration_space's windows).
  static Json window_attrs(const Window2d& w) {
    return {{"kernel", {w.size[0], w.size[1]}},
            {"stride", {w.stride[0], w.stride[1]}},
            {"dilation", {w.dilation[0], w.dilation[1]}}};
  }

  // torch-spyre's scaled_mm_decomp: its FP8 matmul (lower_scaled_mm:
  // batchmatmulfp8, FP8 operands, a 16-bit result), then * scale_a, *
  // scale_b and + bias, pointwise ops broadcasting them.
  void scaled_mm(const std::vector<int>& in, int out) {
    for (int i : {in[0], in[1]}) {
      if (tensor(i).dtype != DType::F8)
        fail("", origin_,
             "_scaled_mm multiplies float8_e4m3fn tensors (torch-spyre's lower_scaled_mm), not " +
                 std::string(dtype_name(tensor(i).dtype)) + " '" + tensor(i).name + "'");
    }
    const int64_t k = shape(in[0]).back(), stick = stick_elems(DType::F8);
    if (k % stick != 0)
      fail("", origin_,
           "_scaled_mm's contraction of " + std::to_string(k) + " is not whole FP8 sticks of " + std::to_string(stick) +
               " (an FP8 operand is not padded here)");
    int y = in.size() > 2 ? temp("fp8mm", shape(out), tensor(out).dtype) : out;
    emit("batchmatmulfp8", {in[0], in[1]}, y);
    for (size_t i = 2; i < in.size(); ++i) {
      const int next = i + 1 == in.size() ? out : temp(i == 2 ? "scaled_a" : "scaled_b", shape(out), tensor(out).dtype);
      emit(i == 4 ? "add" : "mul", {y, in[i]}, next);
      y = next;
    }
  }

  // An [N, C, H, W] input with a window's zero padding around H and W.
  // torch-spyre's windowed ops take no padding (its im2col path pads on the
  // host): here the input is padded on the card first, as its
  // constant_pad_nd lowering pads.
  int padded_spatially(int x, const Window2d& w) {
    if (w.padding[0] == 0 && w.padding[1] == 0) return x;
    return pad(x, {{0, 0}, {0, 0}, {w.padding[0], w.padding[0]}, {w.padding[1], w.padding[1]}}, 0.0f, -1);
  }

  // conv2d as torch-spyre lowers it: its direct conv2d on the PT array
  // (groups 1; lower_convolution) or depthwiseconv2dnative on the SFU (groups
  // = channels; lower_depthwise_conv2d, the weight [C, 1, kH, kW] viewed as
  // [C, kH, kW]); a bias added after it.
  void conv2d(const std::vector<int>& in, const Window2d& w, int out) {
    const int x = padded_spatially(in[0], w);
    const bool depthwise = w.groups > 1;
    const int weight = depthwise ? reshape(in[1], {shape(in[1])[0], w.size[0], w.size[1]}, "weight") : in[1];
    const bool bias = in.size() == 3;
    const int y = device_op(depthwise ? "depthwiseconv2dnative" : "conv2d", {x, weight}, "conv", shape(out),
                            window_attrs(w), bias ? -1 : out);
    if (bias)
      device_op("add", {y, reshape(in[2], {1, shape(in[2])[0], 1, 1}, "bias")}, "", shape(out), Json::object(), out);
  }

  int linear(int x, int w, int bias, const std::string& suffix, int into = -1) {
    const int wt = transpose_last(w, suffix + ".wT");
    const int y = matmul(x, wt, suffix, bias < 0 ? into : -1);
    if (bias < 0) return y;
    return device_op("add", {y, bias}, suffix + ".bias", shape(y), Json::object(), into);
  }

  int softmax(int x, int dim, int into = -1) {
    const int m = reduce("max", x, dim, "max");
    const int d = device_op("sub", {x, m}, "sub", shape(x));
    const int e = device_op("exp", {d}, "exp", shape(x));
    const int s = reduce("sum", e, dim, "sum");
    return device_op("realdiv", {e, s}, "div", shape(x), Json::object(), into);
  }

  // layer_norm / rms_norm over the last dim.
  int normalize(int x, int weight, int bias, float eps, bool center, int into) {
    const int last = static_cast<int>(shape(x).size()) - 1;
    const float n = static_cast<float>(shape(x).back());
    const int stats = reduce(center ? "exx2" : "exx2_zeromean", x, last, "stats", {{"exx2scale", 1.0f / n}});
    const int rstd = device_op("layernormscale", {stats}, "rstd", shape(stats),
                               {{"constants", {{"eps", eps}}}, {"iteration_shape", shape(x)}});
    std::vector<int> ins = {x, stats, rstd};
    if (weight >= 0 || bias >= 0) ins.push_back(weight >= 0 ? weight : constant(1.0f, tensor(x).dtype));
    if (bias >= 0) ins.push_back(bias);
    return device_op("layernormnorm", ins, "norm", shape(x), Json::object(), into);
  }

  // pow by a scalar as Inductor lowers it: x ** 0.5 is sqrt, x ** -0.5 rsqrt,
  // a whole exponent multiplications by squaring (its pow_recursive), a
  // negative one the reciprocal of that.
  void pow(int x, float exponent, int into) {
    const Shape s = shape(x);
    if (exponent == 0.5f || exponent == -0.5f) {
      device_op(exponent > 0 ? "sqrt" : "rsqrt", {x}, "", s, Json::object(), into);
      return;
    }
    const auto n = static_cast<int64_t>(std::fabs(exponent));
    std::function<int(int64_t, int)> power = [&](int64_t k, int target) -> int {
      if (k == 1) return target >= 0 ? device_op("identity", {x}, "", s, Json::object(), target) : x;
      const int half = power(k / 2, -1);
      if (k % 2 == 0) return device_op("mul", {half, half}, "pow", s, Json::object(), target);
      const int squared = device_op("mul", {half, half}, "pow", s);
      return device_op("mul", {squared, x}, "pow", s, Json::object(), target);
    };
    if (exponent > 0) {
      power(n, into);
    } else {
      device_op("reciprocal", {power(n, -1)}, "", s, Json::object(), into);
    }
  }

  // The unary ops torch-spyre decomposes into pointwise ops
  // (torch_spyre/_inductor/decompositions.py): ceil(x) = -floor(-x);
  // sign(x) = where(x > 0, 1, where(x < 0, -1, 0)); logical_not(x) = (x == 0);
  // contiguous and dropout at inference copy their input.
  void pointwise_composite(const std::string& type, int x, int into) {
    const DType dtype = tensor(x).dtype;
    const Shape s = shape(x);
    if (type == "ceil") {
      const int negated = device_op("neg", {x}, "neg", s);
      const int floored = device_op("floor", {negated}, "floor", s);
      device_op("neg", {floored}, "", s, Json::object(), into);
    } else if (type == "sign") {
      const int zero = constant(0.0f, dtype);
      const int positive = device_op("greaterthan", {x, zero}, "positive", s);
      const int negative = device_op("lesserthan", {x, zero}, "negative", s);
      const int minus = device_op("where3", {negative, constant(-1.0f, dtype), zero}, "minus", s);
      device_op("where3", {positive, constant(1.0f, dtype), minus}, "", s, Json::object(), into);
    } else if (type == "logical_not") {
      device_op("equal", {x, constant(0.0f, dtype)}, "", s, Json::object(), into);
    } else if (type == "contiguous" || type == "dropout") {
      device_op("identity", {x}, "", s, Json::object(), into);
    } else {
      fail("", origin_, "no decomposition of " + type);
    }
  }

  int attention(int q, int k, int v, int mask, float scale, int into) {
    const Shape sq = shape(q);
    const Shape sk = shape(k);
    const Shape sv = shape(v);
    const size_t r = sq.size();
    const int64_t hq = sq[r - 3], hkv = sk[r - 3], group = hq / hkv;
    const Shape batch(sq.begin(), sq.end() - 3);
    // Grouped-query attention without repeating K/V: the query heads of one
    // KV head become a group dim that K and V broadcast over.
    auto with = [&](std::initializer_list<int64_t> tail) {
      Shape s = batch;
      s.insert(s.end(), tail);
      return s;
    };
    int q5 = q, k5 = k, v5 = v;
    int kt = transpose_last(k, "kT");
    if (group > 1) {
      q5 = reshape(q, with({hkv, group, sq[r - 2], sq[r - 1]}), "q.grouped");
      k5 = reshape(kt, with({hkv, 1, sk[r - 1], sk[r - 2]}), "kT.grouped");
      v5 = reshape(v, with({hkv, 1, sv[r - 2], sv[r - 1]}), "v.grouped");
    } else {
      k5 = kt;
    }
    const int scores = matmul(q5, k5, "scores");
    const Shape ss = shape(scores);  // a copy: the ops below add tensors
    int scaled = device_op("mul", {scores, constant(scale, tensor(q).dtype)}, "scaled", ss);
    if (mask >= 0) {
      // The mask at the scores' rank; with grouped heads its head dim splits
      // as the query heads did (or stays 1 when it broadcasts over heads).
      Shape m = shape(mask);
      m.insert(m.begin(), r - m.size(), 1);
      if (group > 1) {
        const int64_t heads = m[r - 3];
        m.erase(m.begin() + static_cast<int64_t>(r) - 3);
        m.insert(m.begin() + static_cast<int64_t>(r) - 3, {heads == 1 ? 1 : hkv, heads == 1 ? 1 : group});
      }
      const int broadcast_mask = reshape(mask, m, "mask");
      scaled = device_op("add", {scaled, broadcast_mask}, "masked", ss);
    }
    const int probs = softmax(scaled, static_cast<int>(ss.size()) - 1);
    if (group == 1) return matmul(probs, v5, "pv", into);
    return reshape(matmul(probs, v5, "pv"), with({hq, sq[r - 2], sv[r - 1]}), "heads", into);
  }

  void lower(const Op& op) {
    const ModelOp* m = find_model_op(op.type);
    origin_ = model_.describe(op);
    loop_trips_ = op.loop_trips;
    loop_group_ = op.loop_group;
    work_div_ = op.work_div;
    const int out = op.outputs[0];
    base_name_ = tensor(out).name;
    if (computes_on_values(*m) &&
        std::any_of(op.inputs.begin(), op.inputs.end(), [&](int t) { return tensor(t).dtype == DType::I32; })) {
      lower_on_floats(op);
      return;
    }
    const DType dtype = op.inputs.empty() ? tensor(out).dtype : tensor(op.inputs[0]).dtype;
    std::vector<DType> dtypes;
    for (int t : op.inputs) {
      dtypes.push_back(tensor(t).dtype);
      if (tensor(t).dtype != dtype && !reads_first_input_only(*m) && m->kind != ModelOpKind::Gather &&
          !(m->kind == ModelOpKind::Scatter && t == op.inputs[1]) && m->kind != ModelOpKind::ScaledMm) {
        fail("", origin_,
             "mixes " + std::string(dtype_name(dtype)) + " and " + dtype_name(tensor(t).dtype) +
                 " operands; give every operand one dtype");
      }
    }
    // A fill with no input and no dtype attribute makes what its output declares.
    if (!op.inputs.empty() || op.attrs.contains("dtype"))
      out_.tensors[static_cast<size_t>(out)].dtype = output_dtype(*m, op.attrs, dtypes, origin_);
    const std::vector<int>& in = op.inputs;
    const Json& a = op.attrs;
    switch (m->kind) {
      case ModelOpKind::Unary: {
        // The device op's constants from the torch op's attributes (clamp's min -> clipMin, ...).
        Json attrs = Json::object();
        for (const auto& c : m->device->constants) {
          if (!c.torch_attr.empty()) attrs["constants"][c.sdsc_name] = a.value(c.torch_attr, c.default_value);
        }
        emit(m->device_op, {in[0]}, out, attrs);
        return;
      }
      case ModelOpKind::Binary: {
        const int rhs = in.size() == 2 ? in[1] : constant(a.at("scalar").get<float>(), dtype);
        emit(m->device_op, {in[0], rhs}, out);
        return;
      }
      case ModelOpKind::Where:
        emit(m->device_op, in, out);
        return;
      case ModelOpKind::Reduction:
        reduce_dims(m->device_op, m->device->reduce == ReduceOp::Mean, in[0],
                    reduction_dims(a, shape(in[0]).size(), origin_), a.value("keepdim", false), out);
        return;
      case ModelOpKind::Norm: {
        // |x| (x * x for ord 2), summed (ord 1, 2) or its amax / amin (ord
        // +-inf) over the dims one at a time, then sqrt for ord 2.
        const double order = norm_order(a, origin_);
        const auto dims = reduction_dims(a, shape(in[0]).size(), origin_);
        const Shape s = shape(in[0]);
        const int v = order == 2 ? device_op("mul", {in[0], in[0]}, "square", s) : device_op("abs", {in[0]}, "abs", s);
        const std::string fold = order == 1 || order == 2 ? "sum" : order > 0 ? "max" : "min";
        if (order != 2) {
          reduce_dims(fold, false, v, dims, a.value("keepdim", false), out);
          return;
        }
        const int sum = reduce_dims(fold, false, v, dims, true, -1);
        const Shape kept = shape(sum);  // a copy: the ops below add tensors
        if (kept == shape(out)) {
          device_op("sqrt", {sum}, "", kept, Json::object(), out);
        } else {
          emit("reshape", {device_op("sqrt", {sum}, "sqrt", kept)}, out, {{"shape", shape(out)}});
        }
        return;
      }
      case ModelOpKind::Fill: {
        // A pointwise kernel reading one constant broadcast (torch-spyre's lower_full).
        const int value = constant(fill_value(*m, a), tensor(out).dtype);
        emit("identity", {reshape(value, Shape(shape(out).size(), 1), "fill_value")}, out);
        return;
      }
      case ModelOpKind::Repeat: {
        // x [d0, d1] repeated [r0, r1]: x as [1, d0, 1, d1], expanded to
        // [r0, d0, r1, d1] (an identity reading it broadcast), merged to
        // [r0 * d0, r1 * d1] (a view, or a copy where the layout needs one).
        const Shape x = shape(in[0]);
        const Shape counts = repeat_counts(x, a, origin_);
        const size_t lead = counts.size() - x.size();
        Shape unit, expanded;
        for (size_t i = 0; i < counts.size(); ++i) {
          const int64_t d = i < lead ? 1 : x[i - lead];
          unit.insert(unit.end(), {1, d});
          expanded.insert(expanded.end(), {counts[i], d});
        }
        const int tiles = device_op("identity", {reshape(in[0], unit, "repeat_input")}, "tiles", expanded);
        emit("reshape", {tiles}, out, {{"shape", shape(out)}});
        return;
      }
      case ModelOpKind::Cat: {
        // torch-spyre's lower_cat: the output's bytes, each input copied
        // (an identity) into its slice; the parts are views of the output
        // (the device view op `concat`), so no kernel reads them again.
        const int d = cat_dim(op.type, shape(in[0]), a, origin_);
        std::vector<int> parts;
        for (size_t i = 0; i < in.size(); ++i) {
          int x = in[i];
          if (op.type == "stack") {
            Shape unsqueezed = shape(x);
            unsqueezed.insert(unsqueezed.begin() + d, 1);
            x = reshape(x, unsqueezed, "stacked" + std::to_string(i));
          }
          const Shape part = shape(x);  // a copy: temp adds a tensor
          parts.push_back(device_op("identity", {x}, "part" + std::to_string(i), part));
        }
        emit("concat", parts, out, {{"dim", d}});
        return;
      }
      case ModelOpKind::Addmm: {
        // beta * input + alpha * (mat1 @ mat2): the scalings only where they are not 1.
        const float beta = a.value("beta", 1.0f), alpha = a.value("alpha", 1.0f);
        const Shape s = shape(out);
        int product = matmul(in[1], in[2], "mm");
        if (alpha != 1.0f) product = device_op("mul", {product, constant(alpha, dtype)}, "alpha", s);
        if (beta == 0.0f) {
          device_op("identity", {product}, "", s, Json::object(), out);
          return;
        }
        int bias = in[0];
        if (beta != 1.0f) bias = device_op("mul", {bias, constant(beta, dtype)}, "beta", Shape(shape(in[0])));
        device_op("add", {product, bias}, "", s, Json::object(), out);
        return;
      }
      case ModelOpKind::Softmax:
        softmax(in[0], normalize_dim(a.value("dim", int64_t{-1}), shape(in[0]).size(), origin_), out);
        return;
      case ModelOpKind::LayerNorm:
        normalize(in[0], in.size() > 1 ? in[1] : -1, in.size() > 2 ? in[2] : -1, a.value("eps", 1e-5f), true, out);
        return;
      case ModelOpKind::RmsNorm:
        normalize(in[0], in.size() > 1 ? in[1] : -1, -1, a.value("eps", 1e-6f), false, out);
        return;
      case ModelOpKind::Matmul:
        matmul(in[0], in[1], "mm", out);
        return;
      case ModelOpKind::Linear:
        linear(in[0], in[1], in.size() > 2 ? in[2] : -1, "linear", out);
        return;
      case ModelOpKind::SwigluMlp: {
        const int gate = linear(in[0], in[1], -1, "gate");
        const int up = linear(in[0], in[2], -1, "up");
        const int act = device_op("silu", {gate}, "silu", shape(gate));
        const int prod = device_op("mul", {act, up}, "gated", shape(gate));
        linear(prod, in[3], -1, "down", out);
        return;
      }
      case ModelOpKind::Attention: {
        const float scale = a.value("scale", 1.0f / std::sqrt(static_cast<float>(shape(in[0]).back())));
        attention(in[0], in[1], in[2], in.size() > 3 ? in[3] : -1, scale, out);
        return;
      }
      case ModelOpKind::PointwiseComposite:
        if (op.type == "pow") {
          pow(in[0], pow_exponent(a, origin_), out);
        } else {
          pointwise_composite(op.type, in[0], out);
        }
        return;
      case ModelOpKind::Cast: {
        cast(in[0], tensor(out).dtype, "cast", out);
        return;
      }
      case ModelOpKind::Expand: {
        // The input at the output's rank (leading size-1 dims), read broadcast.
        int x = in[0];
        if (shape(x).size() < shape(out).size()) {
          Shape padded(shape(out).size() - shape(x).size(), 1);
          padded.insert(padded.end(), shape(x).begin(), shape(x).end());
          x = temp("expand_input", padded, dtype);
          emit("reshape", {in[0]}, x, {{"shape", padded}});
        }
        emit("identity", {x}, out);
        return;
      }
      case ModelOpKind::Pad:
        pad(in[0], pad_amounts(shape(in[0]), a, origin_), a.value("value", 0.0f), out);
        return;
      case ModelOpKind::ScaledMm:
        scaled_mm(in, out);
        return;
      case ModelOpKind::QuantizeFp8: {
        // torch-spyre's spyre_quantize_(weight_)fp8_with_scale: reciprocal,
        // mul, clamp to FP8 E4M3's range, then the conversion.
        const int inverse = temp("inv_scale", shape(in[1]), dtype);
        emit("reciprocal", {in[1]}, inverse);
        const int scaled = temp("scaled", shape(in[0]), dtype);
        emit("mul", {in[0], inverse}, scaled);
        const int clamped = temp("clamped", shape(in[0]), dtype);
        emit("clip", {scaled}, clamped, {{"constants", {{"clipMin", -kFp8E4m3Max}, {"clipMax", kFp8E4m3Max}}}});
        emit(op.type == "quantize_weight_fp8_with_scale" ? "qfp8wt" : "qfp8ch", {clamped}, out);
        return;
      }
      case ModelOpKind::Conv2d:
        conv2d(in, conv_window(shape(in[0]), shape(in[1]), a, origin_), out);
        return;
      case ModelOpKind::AvgPool2d: {
        // torch-spyre's avgpoolfwd: the window's sum times nmap (1 / its elements, or divisor_override).
        // Padding (counted in the divisor) is a zero pad first, as conv2d's.
        const Window2d w = pool_window(shape(in[0]), a, origin_);
        Json attrs = window_attrs(w);
        attrs["constants"]["nmap"] = 1.0 / static_cast<double>(w.divisor);
        emit("avgpoolfwd", {padded_spatially(in[0], w)}, out, attrs);
        return;
      }
      case ModelOpKind::TopK: {
        // torch-spyre's spyre_topk: topkvalue or topkindex over the input. A
        // rank-1 input searches as one row ([n] as [1, n]), so its results
        // have a dim to stick along (the cores split k, never a stick).
        auto [d, k] = topk_dim_and_k(shape(in[0]), a, origin_);
        const std::string type = a.value("piece", 0) == 1 ? "topkindex" : "topkvalue";
        if (shape(in[0]).size() > 1) {
          emit(type, {in[0]}, out, {{"dim", d}, {"k", k}});
          return;
        }
        const int row = reshape(in[0], {1, shape(in[0])[0]}, "row");
        const int ranked = temp(type == "topkindex" ? "indices" : "values", {1, k}, tensor(out).dtype);
        emit(type, {row}, ranked, {{"dim", 1}, {"k", k}});
        reshape(ranked, shape(out), "", out);
        return;
      }
      case ModelOpKind::Gather: {
        // torch-spyre's indirect access: a copy that reads row index[i] of the
        // table for output row i. The index as [n, 1, ...] (one index per
        // row, broadcast along the row), the rows as [n, ...], then the
        // index's shape.
        if (tensor(in[1]).dtype != DType::I32)
          fail("", origin_,
               "the index of a gather is an integer tensor (int32 or int64), not " +
                   std::string(dtype_name(tensor(in[1]).dtype)));
        if (op.type == "index_select" && shape(in[0]).size() > 1) {
          // Along another dim than 0 (torch-spyre's spyre_flip gathers each
          // reversed dim in place): the index viewed with its elements at
          // that dim, the table with it outermost.
          const int d = indexed_dim(shape(in[0]), a, "index_select", origin_);
          if (d != 0) {
            Shape index_shape(shape(in[0]).size(), 1);
            index_shape[static_cast<size_t>(d)] = tensor(in[1]).elements();
            emit("identity", {in[0], reshape(in[1], index_shape, "index")}, out, {{"gather", true}, {"dim", d}});
            return;
          }
        }
        // A rank-1 table gathers rows of one element: [M] as [M, 1].
        const int source = shape(in[0]).size() == 1 ? reshape(in[0], {shape(in[0])[0], 1}, "table") : in[0];
        const Shape table = shape(source);
        auto gather_rows = [&](int index_view, int64_t n, int into) {
          Shape index_shape(table.size(), 1);
          index_shape[0] = n;
          const int index = reshape(index_view, index_shape, "index");
          Shape rows_shape = table;
          rows_shape[0] = n;
          const int rows = into >= 0 ? into : temp("rows", rows_shape, dtype);
          emit("identity", {source, index}, rows, {{"gather", true}});
          return rows;
        };
        const int64_t n = tensor(in[1]).elements(), row_len = shape(in[1]).back(), index_rows = n / row_len;
        Shape rows_shape = table;
        rows_shape[0] = n;
        const bool direct = shape(out) == rows_shape;
        int rows = direct ? out : -1;
        if (index_rows == 1 || row_len % stick_elems(DType::I32) == 0) {
          rows = gather_rows(in[1], n, rows);
        } else {
          if (source != in[0])
            fail("", origin_,
                 "unsupported: a gather from a rank-1 table through an index whose rows (" + std::to_string(row_len) +
                     " elements) end inside a stick: flatten the index first");
          // Rows of the index that end inside a stick do not line up as one
          // index without a copy packing them: a gather per row of the index,
          // the results joined along dim 0 (a concat view, as lower_cat's).
          const int by_row = reshape(in[1], {index_rows, row_len}, "index_rows");
          std::vector<int> parts;
          for (int64_t r = 0; r < index_rows; ++r) {
            const int one = temp("index_row" + std::to_string(r), {1, row_len}, DType::I32);
            emit("slice", {by_row}, one, {{"dim", 0}, {"start", r}, {"end", r + 1}});
            parts.push_back(gather_rows(one, row_len, -1));
          }
          if (rows < 0) rows = temp("rows", rows_shape, dtype);
          emit("concat", parts, rows, {{"dim", 0}});
        }
        if (!direct) reshape(rows, shape(out), "", out);
        return;
      }
      case ModelOpKind::Scatter:
        scatter(in[0], in[1], in[2], out, indexed_dim(shape(in[0]), a, "index_put", origin_));
        return;
      case ModelOpKind::Collective:
        // The tensor stays where its producer wrote it: the collective
        // replaces its bytes between bundles (memory_planning cuts there; the
        // program lists it under `collectives`).
        emit("reshape", {in[0]}, out, {{"shape", shape(out)}, {"collective", op.type}});
        return;
      case ModelOpKind::View: {
        if (op.type == "transpose" || op.type == "permute") {
          emit("permute", {in[0]}, out, {{"dims", view_permutation(a, op.type, shape(in[0]).size(), origin_)}});
        } else if (op.type == "slice") {
          const int dim = normalize_dim(a.at("dim").get<int64_t>(), shape(in[0]).size(), origin_);
          emit("slice", {in[0]}, out, {{"dim", dim}, {"start", a.at("start")}, {"end", a.at("end")}});
        } else if (op.type == "narrow") {
          const int dim = normalize_dim(a.at("dim").get<int64_t>(), shape(in[0]).size(), origin_);
          const auto [start, end] = narrow_range(shape(in[0]), a, origin_);
          emit("slice", {in[0]}, out, {{"dim", dim}, {"start", start}, {"end", end}});
        } else if (returns_pieces(op.type)) {
          // A slice; unbind's drops the dim after.
          const int dim = piece_dim(shape(in[0]), a, origin_);
          const auto [start, end] = piece_range(op.type, shape(in[0]), a, origin_);
          if (op.type != "unbind") {
            emit("slice", {in[0]}, out, {{"dim", dim}, {"start", start}, {"end", end}});
          } else {
            const int one = temp("piece", keep_dim(shape(in[0]), dim), tensor(in[0]).dtype);
            emit("slice", {in[0]}, one, {{"dim", dim}, {"start", start}, {"end", end}});
            emit("reshape", {one}, out, {{"shape", shape(out)}});
          }
        } else if (op.type == "t" && shape(in[0]).size() == 2) {
          emit("permute", {in[0]}, out, {{"dims", {1, 0}}});
        } else if (op.type == "select") {
          // A slice of one element, then the dim dropped.
          const auto [dim, index] = select_index(shape(in[0]), a, origin_);
          const int one = temp("selected", keep_dim(shape(in[0]), dim), tensor(in[0]).dtype);
          emit("slice", {in[0]}, one, {{"dim", dim}, {"start", index}, {"end", index + 1}});
          emit("reshape", {one}, out, {{"shape", shape(out)}});
        } else {
          emit("reshape", {in[0]}, out, {{"shape", shape(out)}});
        }
        return;
      }
    }
  }

  Graph& model_;
  Graph out_;
  std::vector<int> uses_;
  std::string origin_, base_name_;
  int64_t loop_trips_ = 0;  // the model op's coarse-tiling loop, for every op it becomes
  int loop_group_ = -1;
  std::vector<std::pair<std::string, int64_t>> work_div_;  // the model op's hint, for every op it becomes
};

}  // namespace

void decompose(Graph& graph) { graph = Decomposer(graph).run(); }

}  // namespace spyre::compiler
