#include "compiler/reference/host_evaluator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <tuple>

#include <cblas.h>

#include "compiler/ir/model_ops.h"
#include "runtime/error.h"
#include "runtime/numerics.h"
#include "runtime/text.h"

namespace spyre::compiler {

namespace {

struct Array {
  Shape shape;
  std::vector<float> data;
  int64_t size() const { return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>()); }
};

std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// Calls f(out_index, in_offsets) for every element of `out`, where each input
// is broadcast (right-aligned, NumPy rules) to the output shape.
void for_each_broadcast(const Shape& out, const std::vector<const Array*>& in,
                        const std::function<void(int64_t, const int64_t*)>& f) {
  const size_t rank = out.size();
  std::vector<std::vector<int64_t>> bstride(in.size(), std::vector<int64_t>(rank, 0));
  for (size_t a = 0; a < in.size(); ++a) {
    const auto st = strides_of(in[a]->shape);
    const size_t r = in[a]->shape.size();
    for (size_t i = 0; i < r; ++i) bstride[a][rank - r + i] = in[a]->shape[i] == 1 ? 0 : st[i];
  }
  std::vector<int64_t> index(rank, 0), offs(in.size(), 0);
  const int64_t total = std::accumulate(out.begin(), out.end(), int64_t{1}, std::multiplies<>());
  for (int64_t n = 0; n < total; ++n) {
    for (size_t a = 0; a < in.size(); ++a) {
      int64_t o = 0;
      for (size_t i = 0; i < rank; ++i) o += index[i] * bstride[a][i];
      offs[a] = o;
    }
    f(n, offs.data());
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < out[i]) break;
      index[i] = 0;
    }
  }
}

// A pointwise op through its registry row: the semantics the simulator uses,
// on the host's fp32 values, constants from the graph attributes.
std::function<float(const float*)> pointwise(const ModelOp& m, const Json& attrs, int count) {
  const OpInfo& d = *m.device;
  const OpConstants constants =
      op_constants(d, [&](const OpConstant& c) { return attrs.value(c.torch_attr, c.default_value); });
  return [fn = d.semantics.one, constants, count](const float* v) { return fn(v, count, constants); };
}

Array elementwise(const std::vector<const Array*>& in, const Shape& out_shape,
                  const std::function<float(const float*)>& f) {
  Array out{out_shape, std::vector<float>(static_cast<size_t>(
                           std::accumulate(out_shape.begin(), out_shape.end(), int64_t{1}, std::multiplies<>())))};
  float args[3];
  for_each_broadcast(out_shape, in, [&](int64_t n, const int64_t* offs) {
    for (size_t a = 0; a < in.size(); ++a) args[a] = in[a]->data[static_cast<size_t>(offs[a])];
    out.data[static_cast<size_t>(n)] = f(args);
  });
  return out;
}

// Applies `fold` along one dim; keepdim output shape.
Array reduce(const Array& x, int dim, const std::function<float(const float*, int64_t, int64_t)>& fold) {
  Shape out_shape = x.shape;
  const int64_t n = x.shape[static_cast<size_t>(dim)];
  out_shape[static_cast<size_t>(dim)] = 1;
  const int64_t inner = strides_of(x.shape)[static_cast<size_t>(dim)];
  const int64_t outer = x.size() / (n * inner);
  Array out{out_shape, std::vector<float>(static_cast<size_t>(outer * inner))};
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i)
      out.data[static_cast<size_t>(o * inner + i)] = fold(&x.data[static_cast<size_t>(o * n * inner + i)], n, inner);
  }
  return out;
}

float fold_sum(const float* p, int64_t n, int64_t stride) {
  double s = 0;
  for (int64_t k = 0; k < n; ++k) s += p[k * stride];
  return static_cast<float>(s);
}
float fold_prod(const float* p, int64_t n, int64_t stride) {
  double s = 1;
  for (int64_t k = 0; k < n; ++k) s *= p[k * stride];
  return static_cast<float>(s);
}
float fold_max(const float* p, int64_t n, int64_t stride) {
  float m = p[0];
  for (int64_t k = 1; k < n; ++k) m = std::fmax(m, p[k * stride]);
  return m;
}
float fold_min(const float* p, int64_t n, int64_t stride) {
  float m = p[0];
  for (int64_t k = 1; k < n; ++k) m = std::fmin(m, p[k * stride]);
  return m;
}

Array softmax(const Array& x, int dim) {
  const Array m = reduce(x, dim, fold_max);
  Array e = elementwise({&x, &m}, x.shape, [](const float* v) { return std::exp(v[0] - v[1]); });
  const Array s = reduce(e, dim, fold_sum);
  return elementwise({&e, &s}, x.shape, [](const float* v) { return v[0] / v[1]; });
}

// How a matmul multiplies: double precision (the fp32 reference) or single
// (the device-storage estimate).
enum class Gemm { Double, Single };

// C (m x n, ldc n) = A (m x k) @ B, B given as k x n or, transposed, as n x k.
// In double, B is converted in blocks of columns so a large weight costs its
// floats and no more.
void gemm(Gemm kind, const float* pa, const float* pb, bool b_transposed, int64_t m, int64_t k, int64_t n, float* pc) {
  if (m == 0 || n == 0) return;
  if (kind == Gemm::Single) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f, pa, static_cast<int>(k), pb,
                static_cast<int>(b_transposed ? k : n), 0.0f, pc, static_cast<int>(n));
    return;
  }
  constexpr int64_t kBlockElements = int64_t{1} << 21;  // 16 MB of double per block of B
  const int64_t block = std::clamp<int64_t>(kBlockElements / std::max<int64_t>(1, k), 1, n);
  // Kept between calls: fresh large buffers would cost page faults each time.
  static thread_local std::vector<double> a, bb, cc;
  a.assign(pa, pa + m * k);
  if (bb.size() < static_cast<size_t>(k * block)) bb.resize(static_cast<size_t>(k * block));
  if (cc.size() < static_cast<size_t>(m * block)) cc.resize(static_cast<size_t>(m * block));
  for (int64_t j0 = 0; j0 < n; j0 += block) {
    const int64_t bn = std::min(block, n - j0);
    if (b_transposed) {  // rows j0..j0+bn of the n x k B
      std::copy(pb + j0 * k, pb + (j0 + bn) * k, bb.begin());
    } else {  // columns j0..j0+bn of the k x n B
      for (int64_t p = 0; p < k; ++p) std::copy(pb + p * n + j0, pb + p * n + j0 + bn, bb.begin() + p * bn);
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(bn), static_cast<int>(k), 1.0, a.data(), static_cast<int>(k), bb.data(),
                static_cast<int>(b_transposed ? k : bn), 0.0, cc.data(), static_cast<int>(bn));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < bn; ++j) pc[i * n + j0 + j] = static_cast<float>(cc[static_cast<size_t>(i * bn + j)]);
    }
  }
}

// a (..., M, K) @ b (..., K, N) — or b (..., N, K) transposed — with broadcast batch dims.
Array matmul(const Array& a, const Array& b, Gemm kind, bool b_transposed = false) {
  const int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back();
  const int64_t n = b_transposed ? b.shape[b.shape.size() - 2] : b.shape.back();
  const Shape abatch(a.shape.begin(), a.shape.end() - 2), bbatch(b.shape.begin(), b.shape.end() - 2);
  const Shape batch = broadcast_shapes({abatch, bbatch}, "matmul");
  Shape out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  Array out{out_shape, std::vector<float>(static_cast<size_t>(std::accumulate(out_shape.begin(), out_shape.end(),
                                                                              int64_t{1}, std::multiplies<>())),
                                          0.0f)};
  Array ab{abatch.empty() ? Shape{1} : abatch, {}}, bb{bbatch.empty() ? Shape{1} : bbatch, {}};
  const Shape loop = batch.empty() ? Shape{1} : batch;
  for_each_broadcast(loop, {&ab, &bb}, [&](int64_t bi, const int64_t* offs) {
    gemm(kind, &a.data[static_cast<size_t>(offs[0] * m * k)], &b.data[static_cast<size_t>(offs[1] * k * n)],
         b_transposed, m, k, n, &out.data[static_cast<size_t>(bi * m * n)]);
  });
  return out;
}

Array permute(const Array& x, const std::vector<int>& perm) {
  Shape out_shape;
  for (int p : perm) out_shape.push_back(x.shape[static_cast<size_t>(p)]);
  Array out{out_shape, std::vector<float>(x.data.size())};
  const auto in_strides = strides_of(x.shape);
  std::vector<int64_t> index(out_shape.size(), 0);
  for (size_t n = 0; n < out.data.size(); ++n) {
    int64_t o = 0;
    for (size_t i = 0; i < index.size(); ++i) o += index[i] * in_strides[static_cast<size_t>(perm[i])];
    out.data[n] = x.data[static_cast<size_t>(o)];
    for (size_t i = index.size(); i-- > 0;) {
      if (++index[i] < out_shape[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

Array linear(const Array& x, const Array& w, const Array* b, Gemm kind) {
  Array y = matmul(x, w, kind, true);
  if (b) y = elementwise({&y, b}, y.shape, [](const float* v) { return v[0] + v[1]; });
  return y;
}

Array normalize(const Array& x, const Array* w, const Array* b, float eps, bool center) {
  Array out = x;
  const int64_t n = x.shape.back();
  for (int64_t r = 0; r < x.size() / n; ++r) {
    const float* p = &x.data[static_cast<size_t>(r * n)];
    double mean = 0, sq = 0;
    if (center) {
      for (int64_t i = 0; i < n; ++i) mean += p[i];
      mean /= static_cast<double>(n);
    }
    for (int64_t i = 0; i < n; ++i) sq += (p[i] - mean) * (p[i] - mean);
    const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(n) + eps);
    for (int64_t i = 0; i < n; ++i) {
      double v = (p[i] - mean) * rstd;
      if (w) v *= w->data[static_cast<size_t>(i)];
      if (b) v += b->data[static_cast<size_t>(i)];
      out.data[static_cast<size_t>(r * n + i)] = static_cast<float>(v);
    }
  }
  return out;
}

Array attention(const Array& q, const Array& k, const Array& v, const Array* mask, float scale, Gemm kind) {
  const size_t r = q.shape.size();
  const int64_t hq = q.shape[r - 3], hkv = k.shape[r - 3], group = hq / hkv;
  // Repeat each key/value head for its query heads (grouped-query attention).
  auto repeat = [&](const Array& t) {
    Shape s = t.shape;
    s[r - 3] = hq;
    Array out{s, std::vector<float>(static_cast<size_t>(t.size() * group))};
    const int64_t inner = t.shape[r - 2] * t.shape[r - 1];
    const int64_t batches = t.size() / (hkv * inner);
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t h = 0; h < hq; ++h) {
        std::copy_n(&t.data[static_cast<size_t>((b * hkv + h / group) * inner)], inner,
                    &out.data[static_cast<size_t>((b * hq + h) * inner)]);
      }
    }
    return out;
  };
  const Array kr = repeat(k), vr = repeat(v);
  Array scores = matmul(q, kr, kind, true);
  for (auto& s : scores.data) s *= scale;
  if (mask) scores = elementwise({&scores, mask}, scores.shape, [](const float* v) { return v[0] + v[1]; });
  return matmul(softmax(scores, static_cast<int>(r - 1)), vr, kind);
}

}  // namespace

HostValues evaluate_graph(const Graph& g, const HostValues& inputs, StoredPrecision precision) {
  const InputSource source = [&](const Tensor& tensor, std::vector<float>& values) {
    auto it = inputs.find(tensor.name);
    if (it == inputs.end()) fail("", "reference evaluation", "no value for input '" + tensor.name + "'");
    values = it->second;
  };
  return evaluate_graph(g, source, precision, {}, nullptr);
}

HostValues evaluate_graph(const Graph& g, const InputSource& inputs, StoredPrecision precision,
                          const std::vector<std::string>& keep, std::vector<float>* scratch) {
  const Gemm gemm_kind = precision == StoredPrecision::Fp32 ? Gemm::Double : Gemm::Single;
  std::vector<Array> values(g.tensors.size());
  std::vector<bool> kept(g.tensors.size(), keep.empty());
  for (const auto& name : keep) {
    const int t = g.find(name);
    if (t < 0) fail("", "reference evaluation", "no tensor '" + name + "' to keep");
    kept[static_cast<size_t>(t)] = true;
  }
  // Each tensor's last reader: its value is dropped after that op unless kept.
  std::vector<size_t> last_use(g.tensors.size(), 0);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (int t : g.ops[i].inputs) last_use[static_cast<size_t>(t)] = i;
  }
  std::vector<bool> loaded(g.tensors.size(), false);
  std::vector<float> own_spare;
  std::vector<float>& spare = scratch != nullptr ? *scratch : own_spare;
  auto value = [&](int index) -> const Array& {
    const auto t = static_cast<size_t>(index);
    const Tensor& tensor = g.tensors[t];
    if (loaded[t] || tensor.role == Role::Intermediate || tensor.role == Role::Output) return values[t];
    loaded[t] = true;
    if (tensor.role == Role::Constant) {
      values[t] = {tensor.shape, std::vector<float>(static_cast<size_t>(tensor.elements()), tensor.value)};
    } else {
      std::vector<float> v;
      if (static_cast<size_t>(tensor.elements()) * 2 >= spare.capacity()) {  // not wasted on a small input
        v = std::move(spare);  // a released weight's pages, already mapped
        spare = {};
      }
      inputs(tensor, v);
      if (static_cast<int64_t>(v.size()) != tensor.elements())
        fail("", "reference evaluation", "input '" + tensor.name + "' has the wrong size");
      values[t] = {tensor.shape, std::move(v)};
    }
    return values[t];
  };
  auto release = [&](int index, size_t op) {
    const auto t = static_cast<size_t>(index);
    if (kept[t] || last_use[t] != op) return;
    // Keep the largest released storage for the next input: on a VM a fresh
    // 200 MB allocation spends more time in page faults than in its matmul.
    if (values[t].data.capacity() > spare.capacity()) spare = std::move(values[t].data);
    values[t] = Array{};
  };
  for (size_t op_index = 0; op_index < g.ops.size(); ++op_index) {
    const Op& op = g.ops[op_index];
    const ModelOp* m = find_model_op(op.type);
    const std::string where = g.describe(op);
    std::vector<const Array*> in;
    if (m->kind != ModelOpKind::SwigluMlp) {
      for (int t : op.inputs) in.push_back(&value(t));
    }
    const Tensor& out_t = g.tensors[static_cast<size_t>(op.outputs[0])];
    Array out;
    // Values the device stores between the device ops of one model op.
    auto round_stored = [&](Array& a) {
      if (precision != StoredPrecision::Device) return;
      for (auto& x : a.data) x = round_to_format(device_format(out_t.dtype), x);
    };
    switch (m->kind) {
      case ModelOpKind::Unary:
      case ModelOpKind::Where:
        out = elementwise(in, out_t.shape, pointwise(*m, op.attrs, static_cast<int>(in.size())));
        break;
      case ModelOpKind::Binary: {
        Array scalar{{1}, {op.attrs.value("scalar", 0.0f)}};
        if (in.size() == 1) in.push_back(&scalar);
        out = elementwise(in, out_t.shape, pointwise(*m, op.attrs, 2));
        break;
      }
      case ModelOpKind::Reduction: {
        // Over each dim in turn; the reference accumulates in double (fold_sum):
        // more exact than the device, on purpose.
        out = *in[0];
        for (int dim : reduction_dims(op.attrs, in[0]->shape.size(), where)) {
          const int64_t n = out.shape[static_cast<size_t>(dim)];
          switch (m->device->reduce) {
            case ReduceOp::Sum:
              out = reduce(out, dim, fold_sum);
              break;
            case ReduceOp::Mean:
              out = reduce(out, dim, [n](const float* p, int64_t c, int64_t s) {
                return fold_sum(p, c, s) / static_cast<float>(n);
              });
              break;
            case ReduceOp::Max:
              out = reduce(out, dim, fold_max);
              break;
            case ReduceOp::Min:
              out = reduce(out, dim, fold_min);
              break;
            case ReduceOp::Prod:
              out = reduce(out, dim, fold_prod);
              break;
            default:
              fail("", where, "the host reference has no fold for " + m->device->name);
          }
          round_stored(out);  // each partial is a tensor the device stores
        }
        out.shape = out_t.shape;
        break;
      }
      case ModelOpKind::Norm: {
        const double order = norm_order(op.attrs, where);
        out = elementwise(in, in[0]->shape, [](const float* v) { return std::fabs(v[0]); });
        for (int dim : reduction_dims(op.attrs, in[0]->shape.size(), where)) {
          if (order == 1) out = reduce(out, dim, fold_sum);
          if (order == 2)
            out = reduce(out, dim, [](const float* p, int64_t n, int64_t stride) {
              double s = 0;
              for (int64_t k = 0; k < n; ++k) s += static_cast<double>(p[k * stride]) * p[k * stride];
              return static_cast<float>(s);
            });
          if (std::isinf(order)) out = reduce(out, dim, order > 0 ? fold_max : fold_min);
          round_stored(out);
        }
        if (order == 2) {
          for (auto& x : out.data) x = std::sqrt(x);
        }
        break;
      }
      case ModelOpKind::Fill:
        out.data.assign(static_cast<size_t>(out_t.elements()), fill_value(*m, op.attrs));
        break;
      case ModelOpKind::Repeat: {
        // Output element i takes the input element at i's index modulo each input dim.
        const Array& x = *in[0];
        const Shape& to = out_t.shape;
        const size_t lead = to.size() - x.shape.size();
        const auto in_strides = strides_of(x.shape);
        out.data.resize(static_cast<size_t>(out_t.elements()));
        for (int64_t i = 0; i < out_t.elements(); ++i) {
          int64_t rest = i, from = 0;
          for (size_t d = to.size(); d-- > 0;) {
            const int64_t index = rest % to[d];
            rest /= to[d];
            if (d >= lead) from += index % x.shape[d - lead] * in_strides[d - lead];
          }
          out.data[static_cast<size_t>(i)] = x.data[static_cast<size_t>(from)];
        }
        break;
      }
      case ModelOpKind::Gather: {
        if (op.type == "index_select" && in[0]->shape.size() > 1) {
          // Row index[i] along the dim at every index of the dims before it.
          const Array& x = *in[0];
          const auto d = static_cast<size_t>(indexed_dim(x.shape, op.attrs, "index_select", where));
          const int64_t rows = x.shape[d], n = static_cast<int64_t>(in[1]->data.size());
          const int64_t inner = strides_of(x.shape)[d], outer = rows > 0 ? x.size() / (rows * inner) : 0;
          out.data.resize(static_cast<size_t>(outer * n * inner));
          for (int64_t o = 0; o < outer; ++o) {
            for (int64_t i = 0; i < n; ++i) {
              const float named = in[1]->data[static_cast<size_t>(i)];
              const auto r = static_cast<int64_t>(named);
              if (r < 0 || r >= rows)
                fail("", where,
                     "index " + format_number(named) + " names no row of " + std::to_string(rows) + " along dim " +
                         std::to_string(d));
              std::copy_n(&x.data[static_cast<size_t>((o * rows + r) * inner)], inner,
                          &out.data[static_cast<size_t>((o * n + i) * inner)]);
            }
          }
          break;
        }
        // Row index[i] of the table for each index element i, in the index's order.
        const Array& table = *in[0];
        const int64_t row = table.size() / table.shape[0];
        out.data.reserve(static_cast<size_t>(out_t.elements()));
        for (float named : in[1]->data) {
          const auto r = static_cast<int64_t>(named);
          if (r < 0 || r >= table.shape[0])
            fail("", where,
                 "index " + format_number(named) + " names no row of a table of " + std::to_string(table.shape[0]) +
                     " rows");
          const float* p = &table.data[static_cast<size_t>(r * row)];
          out.data.insert(out.data.end(), p, p + row);
        }
        break;
      }
      case ModelOpKind::Scatter: {
        // The input with row index[i] along the dim replaced by row i of the
        // values, at every index of the dims before it, in the index's order
        // (a row named twice keeps the last).
        const Array& self = *in[0];
        const Array& values = *in[2];
        const auto d = static_cast<size_t>(indexed_dim(self.shape, op.attrs, "index_put", where));
        const int64_t rows = self.shape[d], n = static_cast<int64_t>(in[1]->data.size());
        const int64_t inner = strides_of(self.shape)[d], outer = rows > 0 ? self.size() / (rows * inner) : 0;
        out.data = self.data;
        for (int64_t i = 0; i < n; ++i) {
          const float named = in[1]->data[static_cast<size_t>(i)];
          const auto r = static_cast<int64_t>(named);
          if (r < 0 || r >= rows)
            fail("", where,
                 "index " + format_number(named) + " names no row of an input of " + std::to_string(rows) +
                     " rows along dim " + std::to_string(d));
          for (int64_t o = 0; o < outer; ++o)
            std::copy_n(&values.data[static_cast<size_t>((o * n + i) * inner)], inner,
                        &out.data[static_cast<size_t>((o * rows + r) * inner)]);
        }
        break;
      }
      case ModelOpKind::TopK: {
        // The k largest of each line along the dim (values or their positions).
        const Array& x = *in[0];
        const auto [d, k] = topk_dim_and_k(x.shape, op.attrs, where);
        const bool indices = op.attrs.value("piece", 0) == 1;
        const int64_t inner = strides_of(x.shape)[static_cast<size_t>(d)], n = x.shape[static_cast<size_t>(d)];
        const int64_t outer = x.size() / (n * inner);
        out.data.assign(static_cast<size_t>(out_t.elements()), 0.0f);
        std::vector<float> line(static_cast<size_t>(n));
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t i = 0; i < inner; ++i) {
            for (int64_t j = 0; j < n; ++j)
              line[static_cast<size_t>(j)] = x.data[static_cast<size_t>((o * n + j) * inner + i)];
            const auto order = topk_positions(line.data(), line.size(), static_cast<size_t>(k));
            for (int64_t r = 0; r < k; ++r) {
              const int64_t at = order[static_cast<size_t>(r)];
              out.data[static_cast<size_t>((o * k + r) * inner + i)] =
                  indices ? static_cast<float>(at) : line[static_cast<size_t>(at)];
            }
          }
        }
        break;
      }
      case ModelOpKind::Conv2d:
      case ModelOpKind::AvgPool2d: {
        // Each output element from its window of the zero-padded input: the
        // sum of products with the weight (per channel for a depthwise
        // conv), or the sum over the divisor.
        const Array& x = *in[0];
        const bool conv = m->kind == ModelOpKind::Conv2d;
        const Window2d w =
            conv ? conv_window(x.shape, in[1]->shape, op.attrs, where) : pool_window(x.shape, op.attrs, where);
        const Shape& y = out_t.shape;
        const int64_t channels = x.shape[1], height = x.shape[2], width = x.shape[3];
        out.data.assign(static_cast<size_t>(out_t.elements()), 0.0f);
        for (int64_t n = 0; n < y[0]; ++n)
          for (int64_t co = 0; co < y[1]; ++co)
            for (int64_t oh = 0; oh < y[2]; ++oh)
              for (int64_t ow = 0; ow < y[3]; ++ow) {
                double acc = 0;
                const bool own_channel = !conv || w.groups > 1;  // pool, depthwise: the output's channel only
                for (int64_t ci = own_channel ? co : 0; ci < (own_channel ? co + 1 : channels); ++ci)
                  for (int64_t kh = 0; kh < w.size[0]; ++kh)
                    for (int64_t kw = 0; kw < w.size[1]; ++kw) {
                      const int64_t ih = oh * w.stride[0] + kh * w.dilation[0] - w.padding[0];
                      const int64_t iw = ow * w.stride[1] + kw * w.dilation[1] - w.padding[1];
                      if (ih < 0 || ih >= height || iw < 0 || iw >= width) continue;
                      const double v = x.data[static_cast<size_t>(((n * channels + ci) * height + ih) * width + iw)];
                      const int64_t wc = own_channel ? 0 : ci;  // the weight's input channel
                      acc += conv ? v * in[1]->data[static_cast<size_t>(
                                            ((co * in[1]->shape[1] + wc) * w.size[0] + kh) * w.size[1] + kw)]
                                  : v;
                    }
                if (conv && in.size() == 3) acc += in[2]->data[static_cast<size_t>(co)];
                out.data[static_cast<size_t>(((n * y[1] + co) * y[2] + oh) * y[3] + ow)] =
                    static_cast<float>(conv ? acc : acc / static_cast<double>(w.divisor));
              }
        break;
      }
      case ModelOpKind::Pad: {
        // Each output element from the input where it lands inside it, else the value.
        const Array& x = *in[0];
        const auto amounts = pad_amounts(x.shape, op.attrs, where);
        const float value = op.attrs.value("value", 0.0f);
        const Shape& to = out_t.shape;
        const auto from_strides = strides_of(x.shape);
        out.data.assign(static_cast<size_t>(out_t.elements()), value);
        for (int64_t i = 0; i < out_t.elements(); ++i) {
          int64_t rest = i, from = 0;
          bool inside = true;
          for (size_t d = to.size(); d-- > 0;) {
            const int64_t at = rest % to[d] - amounts[d].first;
            rest /= to[d];
            inside = inside && at >= 0 && at < x.shape[d];
            from += at * from_strides[d];
          }
          if (inside) out.data[static_cast<size_t>(i)] = x.data[static_cast<size_t>(from)];
        }
        break;
      }
      case ModelOpKind::Cat: {
        // The inputs' blocks along the dim, in turn, for each index of the dims outside it.
        const int d = cat_dim(op.type, in[0]->shape, op.attrs, where);
        const Shape& to = out_t.shape;
        const int64_t inner = strides_of(to)[static_cast<size_t>(d)];
        const int64_t outer = out_t.elements() / (to[static_cast<size_t>(d)] * inner);
        out.data.reserve(static_cast<size_t>(out_t.elements()));
        for (int64_t o = 0; o < outer; ++o) {
          for (const Array* x : in) {
            const int64_t block = x->size() / outer;  // its extent along d x inner
            const float* p = &x->data[static_cast<size_t>(o * block)];
            out.data.insert(out.data.end(), p, p + block);
          }
        }
        break;
      }
      case ModelOpKind::Addmm: {
        const float beta = op.attrs.value("beta", 1.0f), alpha = op.attrs.value("alpha", 1.0f);
        const Array product = matmul(*in[1], *in[2], gemm_kind);
        out = elementwise({&product, in[0]}, out_t.shape,
                          [alpha, beta](const float* v) { return alpha * v[0] + (beta == 0.0f ? 0.0f : beta * v[1]); });
        break;
      }
      case ModelOpKind::Softmax:
        out = softmax(*in[0], normalize_dim(op.attrs.value("dim", int64_t{-1}), in[0]->shape.size(), where));
        break;
      case ModelOpKind::LayerNorm:
        out = normalize(*in[0], in.size() > 1 ? in[1] : nullptr, in.size() > 2 ? in[2] : nullptr,
                        op.attrs.value("eps", 1e-5f), true);
        break;
      case ModelOpKind::RmsNorm:
        out = normalize(*in[0], in.size() > 1 ? in[1] : nullptr, nullptr, op.attrs.value("eps", 1e-6f), false);
        break;
      case ModelOpKind::Matmul:
        out = matmul(*in[0], *in[1], gemm_kind);
        break;
      case ModelOpKind::ScaledMm: {
        // (mat1 @ mat2) * scale_a * scale_b + bias, the product stored in its 16-bit format first.
        out = matmul(*in[0], *in[1], gemm_kind);
        round_stored(out);
        for (size_t i = 2; i < in.size(); ++i) {
          out = elementwise({&out, in[i]}, out_t.shape,
                            [i](const float* v) { return i == 4 ? v[0] + v[1] : v[0] * v[1]; });
          if (i + 1 < in.size()) round_stored(out);
        }
        break;
      }
      case ModelOpKind::QuantizeFp8: {
        // x * (1 / scale) clamped to +-448 (the device stores 1 / scale and
        // the product in x's format); the output's format rounds it to FP8.
        const DataFormat f = device_format(g.tensors[static_cast<size_t>(op.inputs[0])].dtype);
        const bool device = precision == StoredPrecision::Device;
        auto stored = [f, device](float v) { return device ? round_to_format(f, v) : v; };
        out = elementwise(in, out_t.shape, [&stored](const float* v) {
          return std::clamp(stored(v[0] * stored(1.0f / v[1])), -kFp8E4m3Max, kFp8E4m3Max);
        });
        break;
      }
      case ModelOpKind::Linear:
        out = linear(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr, gemm_kind);
        break;
      case ModelOpKind::SwigluMlp: {
        // One weight in memory at a time: each is dropped once multiplied.
        const Array& x = value(op.inputs[0]);
        const Array gate = linear(x, value(op.inputs[1]), nullptr, gemm_kind);
        release(op.inputs[1], op_index);
        const Array up = linear(x, value(op.inputs[2]), nullptr, gemm_kind);
        release(op.inputs[2], op_index);
        const ElementFn silu = find_op("silu")->semantics.one;
        const Array h = elementwise({&gate, &up}, gate.shape, [silu](const float* v) { return silu(v, 1, {}) * v[1]; });
        out = linear(h, value(op.inputs[3]), nullptr, gemm_kind);
        break;
      }
      case ModelOpKind::Attention:
        out = attention(*in[0], *in[1], *in[2], in.size() > 3 ? in[3] : nullptr,
                        op.attrs.value("scale", 1.0f / std::sqrt(static_cast<float>(in[0]->shape.back()))), gemm_kind);
        break;
      case ModelOpKind::Cast:  // values in fp32 throughout: the output's format rounds them
        out = *in[0];
        break;
      case ModelOpKind::PointwiseComposite:
        if (op.type == "pow") {
          const double e = pow_exponent(op.attrs, where);
          out = elementwise(in, out_t.shape, [e](const float* v) { return static_cast<float>(std::pow(v[0], e)); });
        } else {
          out = elementwise(in, out_t.shape, [fn = m->value](const float* v) { return fn(v[0]); });
        }
        break;
      case ModelOpKind::Collective:
        // One card's graph cannot sum over the others: the reference of a
        // tensor-parallel program is its whole model's (compile --emit-io).
        fail("", where, "all_reduce sums over cards; evaluate the whole model instead of one card's part");
      case ModelOpKind::Expand:
        out = elementwise({in[0]}, out_t.shape, [](const float* v) { return v[0]; });
        break;
      case ModelOpKind::View: {
        const Array& x = *in[0];
        if (op.type == "transpose" || op.type == "permute") {
          out = permute(x, view_permutation(op.attrs, op.type, x.shape.size(), where));
        } else if (op.type == "t" && x.shape.size() == 2) {
          out = permute(x, {1, 0});
        } else if (op.type == "slice" || op.type == "narrow" || op.type == "select" || returns_pieces(op.type)) {
          // Elements [start, start + len) of dim d; select and unbind drop the dim afterwards.
          int d = 0;
          int64_t start = 0, len = 1;
          if (op.type == "select") {
            std::tie(d, start) = select_index(x.shape, op.attrs, where);
          } else if (returns_pieces(op.type)) {
            d = piece_dim(x.shape, op.attrs, where);
            const auto range = piece_range(op.type, x.shape, op.attrs, where);
            start = range.first;
            len = range.second - range.first;
          } else {
            d = normalize_dim(op.attrs["dim"].get<int64_t>(), x.shape.size(), where);
            start =
                op.type == "narrow" ? narrow_range(x.shape, op.attrs, where).first : op.attrs["start"].get<int64_t>();
            len = out_t.shape[static_cast<size_t>(d)];
          }
          const int64_t inner = strides_of(x.shape)[static_cast<size_t>(d)], n = x.shape[static_cast<size_t>(d)];
          out.shape = out_t.shape;
          for (int64_t o = 0; o < x.size() / (n * inner); ++o) {
            const float* p = &x.data[static_cast<size_t>((o * n + start) * inner)];
            out.data.insert(out.data.end(), p, p + len * inner);
          }
        } else {
          out = {out_t.shape, x.data};  // reshape, view, unsqueeze, squeeze keep the element order
        }
        break;
      }
    }
    out.shape = out_t.shape;
    if (precision == StoredPrecision::Device) {
      for (auto& x : out.data) x = round_to_format(device_format(out_t.dtype), x);
    }
    values[static_cast<size_t>(op.outputs[0])] = std::move(out);
    for (int t : op.inputs) release(t, op_index);
  }
  HostValues result;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (!kept[t]) continue;
    if (g.tensors[t].role == Role::Input || g.tensors[t].role == Role::Weight || g.tensors[t].role == Role::Constant)
      value(static_cast<int>(t));  // an input nothing read
    result[g.tensors[t].name] = std::move(values[t].data);
  }
  return result;
}

}  // namespace spyre::compiler
