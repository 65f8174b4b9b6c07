#include "sim/functional/functional_executor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>

#include "runtime/error.h"
#include "runtime/text.h"
#include "sim/functional/op_semantics.h"

namespace spyre::sim {

namespace {

// The part of the iteration space (N_) one core works on, per dim in N_ order.
struct IterBox {
  std::vector<int64_t> origin, extent;
};

IterBox iteration_box(const Sdsc& s, int core) {
  IterBox box;
  const DimMap& slice = s.core_slice.at(core);
  for (const auto& d : s.dims) {
    box.origin.push_back(slice.at(d) * s.per_core.at(d));
    box.extent.push_back(s.per_core.at(d));
  }
  return box;
}

// One tensor as one core sees it: a base pointer and, per iteration dim, the
// byte offset of each local index (zeros where the tensor broadcasts).
struct Operand {
  uint8_t* base = nullptr;
  DataFormat format = DataFormat::Dl16;
  int elem_bytes = 2;
  std::vector<std::vector<int64_t>> along;
  bool normal(size_t dim) const { return has_dim[dim]; }
  std::vector<bool> has_dim;
  float load(int64_t offset) const { return load_element(format, base + offset); }
  void store(int64_t offset, float value) const { store_element(format, base + offset, value); }
};

uint8_t* tensor_base(DeviceMemory& memory, const TensorBinding& b, int core) {
  if (b.component == MemComponent::Hbm) return memory.hbm(b.hbm_base, b.layout.span_bytes());
  if (b.relayout) return memory.relayout_buffer(core, &b, b.layout.size_bytes());
  return memory.lx(core, b.lx_address.at(core), b.layout.size_bytes());
}

Operand make_operand(DeviceMemory& memory, const Kernel& k, int lds, int core, const IterBox& box) {
  const Sdsc& s = *k.sdsc;
  const TensorBinding& b = k.tensors[lds];
  const LabeledDs& t = s.tensors[lds];
  Operand op;
  op.format = t.format;
  op.elem_bytes = word_bytes(t.format);
  op.base = tensor_base(memory, b, core);
  op.along.resize(s.dims.size());
  op.has_dim.assign(s.dims.size(), false);
  for (size_t i = 0; i < s.dims.size(); ++i) {
    auto& table = op.along[i];
    table.assign(static_cast<size_t>(box.extent[i]), 0);
    if (const WindowedDim* w = s.window_of(lds, s.dims[i])) {
      // Read through a window: an output coordinate steps `stride` input
      // elements, a window coordinate `dilation` (the reader checked that the
      // dim is not a stick dim, so offsets add).
      // An LX input holds only the core's span, from its first output's first element.
      const bool window = w->window_dim == s.dims[i];
      const LayoutDim* dim = b.layout.find(w->dim);
      const int64_t first = b.component == MemComponent::Hbm && !window ? box.origin[i] : 0;
      for (int64_t j = 0; j < box.extent[i]; ++j)
        table[static_cast<size_t>(j)] = b.layout.offset_along(*dim, (first + j) * (window ? w->dilation : w->stride));
      op.has_dim[i] = true;
      continue;
    }
    auto scale = t.scale.find(s.dims[i]);
    if (scale == t.scale.end() || scale->second != DimScale::Normal) continue;
    const LayoutDim* dim = b.layout.find(s.dims[i]);
    // HBM layouts hold the whole tensor (global coordinates); LX only this core's slice.
    const int64_t first = b.component == MemComponent::Hbm ? box.origin[i] : 0;
    if (!dim || first + box.extent[i] > dim->extent) {
      fail(s.file, s.allocations[lds].path,
           "core " + std::to_string(core) + " works on " + s.dims[i] + " [" + std::to_string(first) + ", " +
               std::to_string(first + box.extent[i]) + ") outside " + t.name + "'s extent");
    }
    for (int64_t j = 0; j < box.extent[i]; ++j) table[static_cast<size_t>(j)] = b.layout.offset_along(*dim, first + j);
    op.has_dim[i] = true;
  }
  return op;
}

// Calls visit(index) for every point of a box, innermost dim last.
template <typename Visit>
void for_each_point(const std::vector<int64_t>& extent, Visit&& visit) {
  const size_t rank = extent.size();
  for (int64_t e : extent) {
    if (e <= 0) return;
  }
  std::vector<int64_t> index(rank, 0);
  while (true) {
    visit(index);
    size_t d = rank;
    while (d-- > 0) {
      if (++index[d] < extent[d]) break;
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

// Byte offset of a point, summed over the dims selected by `mask` only (each
// dim's contribution must be counted exactly once when a point is split into
// an outer and an inner part).
int64_t offset_at(const Operand& op, const std::vector<int64_t>& index, const std::vector<bool>& mask) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) {
    if (mask[d]) offset += op.along[d][static_cast<size_t>(index[d])];
  }
  return offset;
}

// Reads one operand along a row of the innermost iteration dim.
void gather(const Operand& op, int64_t base, const std::vector<int64_t>& along, float* out, size_t n) {
  const uint8_t* p = op.base + base;
  if (op.format == DataFormat::Dl16) {
    for (size_t i = 0; i < n; ++i) {
      uint16_t bits;
      std::memcpy(&bits, p + along[i], 2);
      out[i] = dl16_to_float(bits);
    }
  } else if (op.format == DataFormat::Fp32) {
    for (size_t i = 0; i < n; ++i) std::memcpy(&out[i], p + along[i], 4);
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = load_element(op.format, p + along[i]);
  }
}

// Writes a row of results, rounding each to the operand's format.
void scatter(const Operand& op, int64_t base, const std::vector<int64_t>& along, const float* values, size_t n) {
  uint8_t* p = op.base + base;
  if (op.format == DataFormat::Dl16) {
    for (size_t i = 0; i < n; ++i) {
      const uint16_t bits = float_to_dl16(values[i]);
      std::memcpy(p + along[i], &bits, 2);
    }
  } else if (op.format == DataFormat::Fp32) {
    for (size_t i = 0; i < n; ++i) std::memcpy(p + along[i], &values[i], 4);
  } else {
    for (size_t i = 0; i < n; ++i) store_element(op.format, p + along[i], values[i]);
  }
}

void run_elementwise(DeviceMemory& memory, const Kernel& k, const ComputeOp& op) {
  const Sdsc& s = *k.sdsc;
  const ElementOpParams params = element_op_params(s, op);
  // An op reading exx2's stick (layernormscale) takes lane 1 (E[x^2]) as a second input next to lane 0 (E[x]).
  const LabeledDs& first_in = s.tensors[op.inputs[0]];
  const bool pair_lanes =
      op.info->moment_pair_input && first_in.scale.at(s.primary_of(op.inputs[0]).stick.dim) == DimScale::BroadcastStick;
  const int n_in = static_cast<int>(op.inputs.size());
  const int n_values = n_in + (pair_lanes ? 1 : 0);
  for (int core : s.core_ids) {
    const IterBox box = iteration_box(s, core);
    std::vector<Operand> in;
    for (int lds : op.inputs) in.push_back(make_operand(memory, k, lds, core, box));
    const Operand out = make_operand(memory, k, op.outputs[0], core, box);
    const size_t inner = s.dims.size() - 1;
    const size_t row = static_cast<size_t>(box.extent[inner]);
    std::vector<int64_t> outer_extent = box.extent;
    outer_extent[inner] = 1;
    std::vector<bool> outer(s.dims.size(), true);
    outer[inner] = false;
    std::vector<std::vector<float>> rows(static_cast<size_t>(n_values), std::vector<float>(row));
    std::vector<const float*> row_ptrs;
    for (auto& r : rows) row_ptrs.push_back(r.data());
    std::vector<float> result(row);
    for_each_point(outer_extent, [&](const std::vector<int64_t>& index) {
      for (int j = 0; j < n_in; ++j)
        gather(in[j], offset_at(in[j], index, outer), in[j].along[inner], rows[j].data(), row);
      if (pair_lanes)
        gather(in[0], offset_at(in[0], index, outer) + in[0].elem_bytes, in[0].along[inner], rows[1].data(), row);
      apply_element_op(params, row_ptrs.data(), n_values, result.data(), row);
      scatter(out, offset_at(out, index, outer), out.along[inner], result.data(), row);
    });
  }
}

// An elementwise op (a copy, or a unary op fused with the indirect access)
// whose value tensor is read (a gather: torch-spyre's embedding, x[idx]) or
// written (a scatter: out[idx] = src, its index_put), in place of its
// coordinate along the indexed dim, at the row the index tensor holds at the
// iteration point.
void run_gather(DeviceMemory& memory, const Kernel& k, const ComputeOp& op, const Gather& g) {
  const Sdsc& s = *k.sdsc;
  const ElementOpParams params = element_op_params(s, op);
  const TensorBinding& vb = k.tensors[static_cast<size_t>(g.value)];
  const LayoutDim* row_dim = vb.layout.find(g.dim);
  const size_t indexed = static_cast<size_t>(std::find(s.dims.begin(), s.dims.end(), g.dim) - s.dims.begin());
  const int64_t row_bytes = row_dim->stride;
  const int64_t rows = row_bytes > 0 ? vb.gather_span_bytes / row_bytes : 0;
  const int n_in = static_cast<int>(op.inputs.size());
  std::vector<bool> all(s.dims.size(), true);
  // The value tensor as a whole (the rows any index may name), at row 0.
  auto whole_value = [&](Operand& value) {
    value.base = memory.hbm(vb.hbm_base, vb.gather_span_bytes);
    std::fill(value.along[indexed].begin(), value.along[indexed].end(), 0);
  };
  for (int core : s.core_ids) {
    const IterBox box = iteration_box(s, core);
    std::vector<Operand> in;
    for (int lds : op.inputs) {
      in.push_back(make_operand(memory, k, lds, core, box));
      if (lds == g.value) whole_value(in.back());
    }
    const Operand index = make_operand(memory, k, g.index, core, box);
    Operand out = make_operand(memory, k, op.outputs[0], core, box);
    if (g.scatter) whole_value(out);
    std::vector<float> values(static_cast<size_t>(n_in));
    std::vector<const float*> value_ptrs;
    for (auto& v : values) value_ptrs.push_back(&v);
    float result = 0;
    for_each_point(box.extent, [&](const std::vector<int64_t>& point) {
      const float named = index.load(offset_at(index, point, all));
      const auto row = static_cast<int64_t>(named);
      if (row < 0 || row >= rows || static_cast<float>(row) != named) {
        fail(s.file, s.allocations[static_cast<size_t>(g.index)].path,
             "index " + format_number(named) + " at " + g.dim + " = " +
                 std::to_string(box.origin[indexed] + point[indexed]) + " names no row of " +
                 s.tensors[static_cast<size_t>(g.value)].name + " (rows 0.." + std::to_string(rows - 1) + ")");
      }
      for (int j = 0; j < n_in; ++j) {
        int64_t offset = offset_at(in[j], point, all);
        if (op.inputs[j] == g.value) offset += row * row_bytes;
        values[static_cast<size_t>(j)] = in[j].load(offset);
      }
      apply_element_op(params, value_ptrs.data(), n_in, &result, 1);
      out.store(offset_at(out, point, all) + (g.scatter ? row * row_bytes : 0), result);
    });
  }
}

// Writes combined results: once to HBM, or to the LX of every core of the group.
void store_results(DeviceMemory& memory, const Kernel& k, int lds, const std::vector<int>& group,
                   const std::function<void(const Operand&)>& write) {
  const Sdsc& s = *k.sdsc;
  const TensorBinding& b = k.tensors[lds];
  const std::vector<int> targets = b.component == MemComponent::Hbm ? std::vector<int>{group.front()} : group;
  for (int core : targets) {
    Operand out;
    out.format = s.tensors[lds].format;
    out.elem_bytes = word_bytes(out.format);
    out.base = tensor_base(memory, b, core);
    write(out);
  }
}

// Cores whose output slices coincide (they split the reduced dims) form a group.
std::map<std::vector<int64_t>, std::vector<int>> output_groups(const Sdsc& s, const std::vector<bool>& reduced) {
  std::map<std::vector<int64_t>, std::vector<int>> groups;
  for (int core : s.core_ids) {
    std::vector<int64_t> key;
    for (size_t i = 0; i < s.dims.size(); ++i) key.push_back(reduced[i] ? 0 : s.core_slice.at(core).at(s.dims[i]));
    groups[key].push_back(core);
  }
  return groups;
}

using Partials = std::map<int, std::vector<std::pair<int64_t, ReduceAccumulator>>>;

// Combines each group's partials in device format (they cross the reduce-sum
// ring as device sticks), then finalizes and stores.
void combine_and_store(DeviceMemory& memory, const Kernel& k, int out_lds, ReduceOp r, const Partials& partials,
                       const std::vector<bool>& reduced,
                       const std::function<void(const Operand&, int64_t, const ReduceAccumulator&)>& finalize) {
  const Sdsc& s = *k.sdsc;
  const DataFormat format = s.tensors[out_lds].format;
  for (const auto& [key, group] : output_groups(s, reduced)) {
    std::vector<std::pair<int64_t, ReduceAccumulator>> total = partials.at(group.front());
    if (group.size() > 1) {
      for (auto& [offset, acc] : total) {
        acc.a = round_to_format(format, acc.a);
        acc.b = round_to_format(format, acc.b);
      }
      for (size_t g = 1; g < group.size(); ++g) {
        const auto& next = partials.at(group[g]);
        for (size_t e = 0; e < total.size(); ++e) {
          ReduceAccumulator rounded = next[e].second;
          rounded.a = round_to_format(format, rounded.a);
          rounded.b = round_to_format(format, rounded.b);
          reduce_combine(r, total[e].second, rounded);
          total[e].second.a = round_to_format(format, total[e].second.a);
          total[e].second.b = round_to_format(format, total[e].second.b);
        }
      }
    }
    store_results(memory, k, out_lds, group, [&](const Operand& out) {
      for (const auto& [offset, acc] : total) finalize(out, offset, acc);
    });
  }
}

void run_reduction(DeviceMemory& memory, const Kernel& k, const ComputeOp& op) {
  const Sdsc& s = *k.sdsc;
  const int out_lds = op.outputs[0];
  // Two inputs besides the output (depthwise conv: activation and weight):
  // the reduction runs over their product.
  std::vector<int> in_lds;
  for (int lds : op.inputs) {
    if (lds != out_lds) in_lds.push_back(lds);
  }
  if (in_lds.empty()) fail(s.file, op.path, "reduction without an input besides its output");
  const ReduceOp r = reduce_op_of(s, op);
  // Reduced dims: an input has them, the output does not (scale -1/-2).
  std::vector<bool> reduced(s.dims.size()), skip(s.dims.size());
  for (size_t i = 0; i < s.dims.size(); ++i) {
    const bool in_normal =
        std::any_of(in_lds.begin(), in_lds.end(), [&](int lds) { return s.reads_dim(lds, s.dims[i]); });
    const bool out_normal = s.reads_dim(out_lds, s.dims[i]);
    reduced[i] = in_normal && !out_normal;
    skip[i] = !in_normal && !out_normal;  // broadcast in both: one element, not repeated
  }
  Partials partials;
  for (int core : s.core_ids) {
    const IterBox box = iteration_box(s, core);
    std::vector<Operand> in;
    for (int lds : in_lds) in.push_back(make_operand(memory, k, lds, core, box));
    const Operand out = make_operand(memory, k, out_lds, core, box);
    std::vector<int64_t> kept_extent = box.extent, reduced_extent = box.extent;
    std::vector<bool> kept_mask(s.dims.size()), reduced_mask(s.dims.size());
    for (size_t i = 0; i < s.dims.size(); ++i) {
      if (reduced[i] || skip[i]) kept_extent[i] = 1;
      if (!reduced[i]) reduced_extent[i] = 1;
      kept_mask[i] = !reduced[i];
      reduced_mask[i] = reduced[i];
    }
    auto& list = partials[core];
    std::vector<int64_t> in_base(in.size());
    for_each_point(kept_extent, [&](const std::vector<int64_t>& kept) {
      for (size_t j = 0; j < in.size(); ++j) in_base[j] = offset_at(in[j], kept, kept_mask);
      ReduceAccumulator acc;
      for_each_point(reduced_extent, [&](const std::vector<int64_t>& red) {
        float value = in[0].load(in_base[0] + offset_at(in[0], red, reduced_mask));
        for (size_t j = 1; j < in.size(); ++j) value *= in[j].load(in_base[j] + offset_at(in[j], red, reduced_mask));
        reduce_accumulate(r, acc, value);
      });
      list.emplace_back(offset_at(out, kept, kept_mask), acc);
    });
  }
  // mean's scaling_factor, exx2's exx2scale: the op's constant (the reader checked it is there).
  const float scale = op.info->constants.empty() ? 1.0f : s.find_constant(op.info->constants[0].sdsc_name)->value;
  const int lanes = reduce_lanes(r);
  combine_and_store(memory, k, out_lds, r, partials, reduced,
                    [&](const Operand& out, int64_t offset, const ReduceAccumulator& acc) {
                      const std::array<float, 2> result = reduce_finish(r, acc, scale);
                      out.store(offset, result[0]);
                      if (lanes == 2) out.store(offset + out.elem_bytes, result[1]);
                    });
}

// topkvalue / topkindex: at every point of its other dims a core searches all
// of the searched dim and writes its slice of the k ranks (values or positions).
void run_topk(DeviceMemory& memory, const Kernel& k, const ComputeOp& op) {
  const Sdsc& s = *k.sdsc;
  const auto position = [&](const std::string& d) {
    return static_cast<size_t>(std::find(s.dims.begin(), s.dims.end(), d) - s.dims.begin());
  };
  const size_t search = position(op.search_dim), ranks_dim = position(op.k_dim);
  for (int core : s.core_ids) {
    const IterBox box = iteration_box(s, core);
    const Operand in = make_operand(memory, k, op.inputs[0], core, box);
    const Operand out = make_operand(memory, k, op.outputs[0], core, box);
    std::vector<int64_t> kept_extent = box.extent;
    std::vector<bool> kept_mask(s.dims.size(), true);
    kept_extent[search] = kept_extent[ranks_dim] = 1;
    kept_mask[search] = kept_mask[ranks_dim] = false;
    const auto first_rank = static_cast<size_t>(box.origin[ranks_dim]);
    const auto ranks = static_cast<size_t>(box.extent[ranks_dim]);
    std::vector<float> values(static_cast<size_t>(box.extent[search]));
    for_each_point(kept_extent, [&](const std::vector<int64_t>& kept) {
      const int64_t in_base = offset_at(in, kept, kept_mask), out_base = offset_at(out, kept, kept_mask);
      for (size_t j = 0; j < values.size(); ++j) values[j] = in.load(in_base + in.along[search][j]);
      const std::vector<int64_t> order = topk_positions(values.data(), values.size(), first_rank + ranks);
      for (size_t r = 0; r < ranks && first_rank + r < order.size(); ++r) {
        const int64_t at = order[first_rank + r];
        out.store(out_base + out.along[ranks_dim][r],
                  op.info->topk_indices ? static_cast<float>(at) : values[static_cast<size_t>(at)]);
      }
    });
  }
}

// A flattened list over all iteration dims of one matmul role (batch, rows,
// columns or contraction), with the byte offset of each entry in A, B and C.
struct RoleIndex {
  std::vector<int64_t> a, b, c;
  size_t size() const { return a.size(); }
};

void run_matmul(DeviceMemory& memory, const Kernel& k, const ComputeOp& op) {
  const Sdsc& s = *k.sdsc;
  const int la = op.inputs[0], lb = op.inputs[1], lc = op.outputs[0];
  enum Role { X, M, N, K, None };
  std::vector<Role> roles(s.dims.size());
  std::vector<bool> reduced(s.dims.size());
  for (size_t i = 0; i < s.dims.size(); ++i) {
    auto has = [&](int lds) { return s.reads_dim(lds, s.dims[i]); };
    const bool in_a = has(la), in_b = has(lb), in_c = has(lc);
    Role role = None;
    if (in_a && in_b && in_c)
      role = X;
    else if (in_a && in_c && !in_b)
      role = M;
    else if (in_b && in_c && !in_a)
      role = N;
    else if (in_a && in_b && !in_c)
      role = K;
    else if (s.per_core.at(s.dims[i]) != 1) {
      fail(s.file, op.path,
           "batchmatmul dimension '" + s.dims[i] + "' is not shared the way a matmul needs (input/kernel/output)");
    }
    roles[i] = role;
    reduced[i] = role == K;
  }
  Partials partials;
  std::map<int, std::vector<float>> results;
  for (int core : s.core_ids) {
    const IterBox box = iteration_box(s, core);
    const Operand A = make_operand(memory, k, la, core, box);
    const Operand B = make_operand(memory, k, lb, core, box);
    const Operand C = make_operand(memory, k, lc, core, box);
    RoleIndex index[4];
    for (int role = 0; role < 4; ++role) {
      std::vector<int64_t> extent = box.extent;
      std::vector<bool> mask(s.dims.size());
      for (size_t i = 0; i < s.dims.size(); ++i) {
        // Dims with no role have extent 1; the batch list carries their offset.
        mask[i] = roles[i] == role || (role == X && roles[i] == None);
        if (roles[i] != role) extent[i] = 1;
      }
      for_each_point(extent, [&](const std::vector<int64_t>& p) {
        index[role].a.push_back(offset_at(A, p, mask));
        index[role].b.push_back(offset_at(B, p, mask));
        index[role].c.push_back(offset_at(C, p, mask));
      });
    }
    const RoleIndex &xs = index[X], &ms = index[M], &ns = index[N], &ks = index[K];
    std::vector<float> bmat(ks.size() * ns.size()), arow(ks.size()), acc(ns.size());
    auto& list = partials[core];
    for (size_t x = 0; x < xs.size(); ++x) {
      for (size_t kk = 0; kk < ks.size(); ++kk) {
        for (size_t n = 0; n < ns.size(); ++n) bmat[kk * ns.size() + n] = B.load(xs.b[x] + ks.b[kk] + ns.b[n]);
      }
      for (size_t m = 0; m < ms.size(); ++m) {
        for (size_t kk = 0; kk < ks.size(); ++kk) arow[kk] = A.load(xs.a[x] + ms.a[m] + ks.a[kk]);
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (size_t kk = 0; kk < ks.size(); ++kk) {
          const float av = arow[kk];
          if (av == 0.0f) continue;
          const float* brow = &bmat[kk * ns.size()];
          for (size_t n = 0; n < ns.size(); ++n) acc[n] += av * brow[n];
        }
        for (size_t n = 0; n < ns.size(); ++n)
          list.emplace_back(xs.c[x] + ms.c[m] + ns.c[n], ReduceAccumulator{acc[n], 0, false});
      }
    }
  }
  combine_and_store(memory, k, lc, ReduceOp::Sum, partials, reduced,
                    [](const Operand& out, int64_t offset, const ReduceAccumulator& acc) { out.store(offset, acc.a); });
}

// Moves a tensor between cores' LX: every element of each destination box
// comes from the source core whose box holds it (a SHUFFLE, and the
// backend's relayout of an LX input).
struct LxParts {
  std::map<int, Box> boxes;  // core -> the part it holds (global coordinates)
  TensorLayout layout;       // one core's part, local coordinates
  std::function<uint8_t*(int core)> base;
};

void move_parts(const LxParts& from, const LxParts& to, DataFormat format, const std::string& file,
                const std::string& path) {
  const size_t elem = static_cast<size_t>(word_bytes(format));
  for (const auto& [core, dbox] : to.boxes) {
    uint8_t* dbase = to.base(core);
    int64_t moved = 0;
    for (const auto& [score, sbox] : from.boxes) {
      // The intersection of the two boxes, dim by dim, as offset tables.
      std::vector<std::vector<int64_t>> src_off, dst_off;
      std::vector<int64_t> extent;
      bool empty = false;
      for (const auto& [d, e] : dbox.extent) {
        const int64_t so = sbox.origin.count(d) ? sbox.origin.at(d) : 0;
        const int64_t se = sbox.extent.count(d) ? sbox.extent.at(d) : 1;
        const int64_t lo = std::max(dbox.origin.at(d), so), hi = std::min(dbox.origin.at(d) + e, so + se);
        if (hi <= lo) {
          empty = true;
          break;
        }
        extent.push_back(hi - lo);
        src_off.push_back(offsets_along(from.layout, d, lo - so, hi - lo));
        dst_off.push_back(offsets_along(to.layout, d, lo - dbox.origin.at(d), hi - lo));
      }
      if (empty) continue;
      const uint8_t* sbase = from.base(score);
      for_each_point(extent, [&](const std::vector<int64_t>& p) {
        int64_t so = 0, dof = 0;
        for (size_t i = 0; i < p.size(); ++i) {
          so += src_off[i][static_cast<size_t>(p[i])];
          dof += dst_off[i][static_cast<size_t>(p[i])];
        }
        std::memcpy(dbase + dof, sbase + so, elem);
      });
      moved += product(extent);
    }
    int64_t needed = 1;
    for (const auto& [d, n] : dbox.extent) needed *= n;
    if (moved < needed) {
      fail(file, path, "no core holds some elements of the part core " + std::to_string(core) + " needs");
    }
  }
}

// SHUFFLE (LX relayout, interface-specs LX-Relayout-SHUFFLE): every element of
// the destination state on a core comes from the core whose source state holds it.
void run_shuffle(DeviceMemory& memory, const Kernel& k, const ComputeOp& op) {
  const Sdsc& s = *k.sdsc;
  const int src = op.inputs[0], dst = op.outputs[0];
  const TensorBinding& sb = k.tensors[src];
  const TensorBinding& db = k.tensors[dst];
  if (sb.component != MemComponent::Lx || db.component != MemComponent::Lx)
    fail(s.file, op.path, "shuffle moves LX to LX; both tensors must be in LX");
  move_parts({sb.core_box, sb.layout, [&](int core) { return tensor_base(memory, sb, core); }},
             {db.core_box, db.layout, [&](int core) { return tensor_base(memory, db, core); }}, s.tensors[dst].format,
             s.file, op.path);
}

// The backend's relayout of LX inputs held elsewhere (TensorBinding::held):
// the holders' parts gathered into the whole tensor, each core's part then
// copied into a buffer of its own laid out as the SDSC computes on it. The
// whole tensor is the frame in which holder and SDSC name dims alike.
void relayout_inputs(DeviceMemory& memory, const Kernel& k) {
  const Sdsc& s = *k.sdsc;
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    const TensorBinding& b = k.tensors[t];
    if (!b.relayout || !b.read) continue;
    const size_t elem = static_cast<size_t>(word_bytes(s.tensors[t].format));
    std::vector<uint8_t> whole(static_cast<size_t>(b.held.whole.size_bytes()));
    std::vector<bool> held(whole.size() / elem, false);
    for (const auto& [core, box] : b.held.box) {
      const uint8_t* part = memory.lx(core, b.held.address.at(core), b.held.layout.size_bytes());
      for_each_element(b.held.whole, b.held.layout, box, [&](int64_t w, int64_t o) {
        std::memcpy(whole.data() + w, part + o, elem);
        held[static_cast<size_t>(w) / elem] = true;
      });
    }
    const TensorLayout frame = whole_tensor_layout(s, static_cast<int>(t));
    for (const auto& [core, box] : b.core_box) {
      uint8_t* part = tensor_base(memory, b, core);
      bool missing = false;
      for_each_element(frame, b.layout, box, [&](int64_t w, int64_t o) {
        missing = missing || !held[static_cast<size_t>(w) / elem];
        std::memcpy(part + o, whole.data() + w, elem);
      });
      if (missing) {
        fail(s.file, s.allocations[t].path,
             "no core holds some elements of the part core " + std::to_string(core) + " computes on");
      }
    }
  }
}

// coordinateMasking_: the inputs' elements at a masked dim's padding read as
// the masking constant, so reductions over a dim torch-spyre padded to whole
// sticks see the constant there, not whatever the padding bytes hold.
void mask_padding(DeviceMemory& memory, const Kernel& k) {
  const Sdsc& s = *k.sdsc;
  for (const auto& [dim, range] : s.masking) {
    const auto [valid, padding] = range;
    for (size_t t = 0; t < k.tensors.size(); ++t) {
      const TensorBinding& b = k.tensors[t];
      const auto scale = s.tensors[t].scale.find(dim);
      if (!b.read || scale == s.tensors[t].scale.end() || scale->second != DimScale::Normal) continue;
      for (const auto& [core, box] : b.core_box) {
        const int64_t lo = std::max(box.origin.at(dim), valid);
        const int64_t hi = std::min(box.origin.at(dim) + box.extent.at(dim), valid + padding);
        if (lo >= hi) continue;
        // The padded part, in the coordinates the buffer is laid out in
        // (HBM: the whole tensor's; LX: the core's own part).
        Box padded = box;
        padded.origin[dim] = lo;
        padded.extent[dim] = hi - lo;
        if (b.component == MemComponent::Lx) {
          for (auto& [d, o] : padded.origin) o -= box.origin.at(d);
        }
        uint8_t* base = tensor_base(memory, b, core);
        const DataFormat format = s.tensors[t].format;
        for_each_element(b.layout, b.layout, padded,
                         [&](int64_t offset, int64_t) { store_element(format, base + offset, s.mask_value); });
      }
    }
  }
}

}  // namespace

void FunctionalExecutor::run(const Kernel& kernel) {
  relayout_inputs(memory_, kernel);
  mask_padding(memory_, kernel);
  for (const auto& op : kernel.sdsc->ops) {
    switch (op.info->kind) {
      case OpKind::Elementwise:
      case OpKind::Copy:
        if (!op.index_inputs.empty()) {
          run_gather(memory_, kernel, op, kernel.sdsc->gathers.front());
        } else {
          run_elementwise(memory_, kernel, op);
        }
        break;
      case OpKind::Reduction:
        run_reduction(memory_, kernel, op);
        break;
      case OpKind::Matmul:
        run_matmul(memory_, kernel, op);
        break;
      case OpKind::Shuffle:
        run_shuffle(memory_, kernel, op);
        break;
      case OpKind::TopK:
        run_topk(memory_, kernel, op);
        break;
    }
  }
}

}  // namespace spyre::sim
