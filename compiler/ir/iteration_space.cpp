#include "compiler/ir/iteration_space.h"

#include <algorithm>

#include "runtime/error.h"

namespace spyre::compiler {

bool is_view_op(const std::string& type) {
  return type == "reshape" || type == "permute" || type == "slice" || type == "concat";
}

const OpInfo* device_op_info(const Op& op) { return is_view_op(op.type) ? nullptr : find_op(op.type); }

int IterationSpace::find(const std::string& label) const {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].label == label) return static_cast<int>(i);
  }
  return -1;
}

namespace {

// torch-spyre's INPUT_DIM_LABELS: all but the last dim, then "out".
std::vector<std::string> pointwise_labels(size_t rank, const std::string& where) {
  static const std::vector<std::string> leading = {"mb", "x", "y", "i", "j", "ki", "kj"};
  if (rank == 0 || rank > leading.size() + 1)
    fail("", where, "tensors of rank " + std::to_string(rank) + " are not supported (1 to 8 dims)");
  std::vector<std::string> labels(leading.begin(), leading.begin() + static_cast<long>(rank - 1));
  labels.push_back("out");
  return labels;
}

// torch-spyre's matmul labels: batch dims, then mb (M), out (N), in (K).
std::vector<std::string> matmul_labels(size_t out_rank, const std::string& where) {
  static const std::vector<std::string> all = {"ki", "kj", "y", "x", "mb", "out", "in"};
  if (out_rank < 2 || out_rank + 1 > all.size())
    fail("", where, "batchmatmul outputs of rank " + std::to_string(out_rank) + " are not supported (2 to 6 dims)");
  return std::vector<std::string>(all.end() - static_cast<long>(out_rank + 1), all.end());
}

// The size of window `w`'s window dim (its kernel along the dim).
int64_t window_size(const IterationSpace& space, int w) {
  return space.dims[static_cast<size_t>(space.windows[static_cast<size_t>(w)].window_dim)].size;
}

int64_t round_up(int64_t n, int64_t multiple) { return multiple > 1 ? (n + multiple - 1) / multiple * multiple : n; }

// IterDim::stick_elems for every dim, then N_ padded to whole sticks where the
// op's splits divide such a dim that ends in a partial stick.
void mark_stick_dims(const Graph& g, const Op& op, IterationSpace& s) {
  std::vector<bool> other_use(s.dims.size(), false);
  std::vector<int64_t> narrowest(s.dims.size(), 0);  // the fewest elements per stick among its operands
  for (const auto& o : s.operands) {
    const Tensor& t = g.tensors[static_cast<size_t>(o.tensor)];
    for (size_t j = 0; j < t.shape.size(); ++j) {
      if (operand_scale(g, s, o, static_cast<int>(j)) != DimScaleKind::Normal) continue;
      const size_t it = static_cast<size_t>(o.iter_of[j]);
      if (static_cast<int>(j) != t.layout.stick) {
        other_use[it] = true;
        continue;
      }
      const int64_t row = t.layout.per_unit(static_cast<int>(j), stick_elems(t.dtype));  // a stick's, or a row's
      s.dims[it].stick_elems = std::max(s.dims[it].stick_elems, row);
      narrowest[it] = narrowest[it] == 0 ? row : std::min(narrowest[it], row);
    }
  }
  for (size_t i = 0; i < s.dims.size(); ++i) {
    IterDim& d = s.dims[i];
    if (other_use[i] || d.reduction) d.stick_elems = 0;
    // Operands of two stick widths (a dtype conversion): padding the dim to
    // whole wide sticks would run past the narrow operand's last stick.
    if (d.stick_elems > 0 && narrowest[i] != d.stick_elems && d.size % d.stick_elems != 0) d.stick_elems = 0;
    const auto split = op.splits.find(d.label);
    if (d.stick_elems > 0 && split != op.splits.end() && split->second > 1) d.size = round_up(d.size, d.stick_elems);
  }
}

Operand aligned_operand(int tensor, size_t rank, size_t space_rank, bool output) {
  Operand o;
  o.tensor = tensor;
  o.output = output;
  for (size_t j = 0; j < rank; ++j) o.iter_of.push_back(static_cast<int>(space_rank - rank + j));
  return o;
}

}  // namespace

// torch-spyre's windowed ops on [N, C, H, W] (decompose: attributes kernel,
// stride, dilation), in its label orders: conv2d CONV_DIM_LABELS
// (mb, i, j, out, in, ki, kj: the weight [C_out, C_in, kH, kW]), depthwise
// CONV2D_DIM_LABELS (mb, out, i, j, ki, kj: the weight [C, kH, kW]) and
// avgpool POOL_DIM_LABELS (mb, i, j, out, ki, kj). The input is read through
// the windows of i (ki) and j (kj); the window dims and conv2d's input
// channels are reduced.
IterationSpace windowed_space(const Graph& g, const Op& op) {
  auto shape_of = [&](int t) -> const Shape& { return g.tensors[static_cast<size_t>(t)].shape; };
  const Shape& x = shape_of(op.inputs[0]);
  const Shape& y = shape_of(op.outputs[0]);
  const auto kernel = op.attrs.at("kernel").get<std::vector<int64_t>>();
  const auto stride = op.attrs.at("stride").get<std::vector<int64_t>>();
  const auto dilation = op.attrs.at("dilation").get<std::vector<int64_t>>();
  IterationSpace s;
  std::vector<std::pair<std::string, int64_t>> dims;
  // Per operand, the label each tensor dim runs along.
  std::vector<std::vector<std::string>> along;
  if (op.type == "conv2d") {
    dims = {{"mb", y[0]}, {"i", y[2]}, {"j", y[3]}, {"out", y[1]}, {"in", x[1]}, {"ki", kernel[0]}, {"kj", kernel[1]}};
    along = {{"mb", "in", "i", "j"}, {"out", "in", "ki", "kj"}, {"mb", "out", "i", "j"}};
  } else {
    dims = op.type == "avgpoolfwd"
               ? std::vector<std::pair<std::string, int64_t>>{{"mb", y[0]},  {"i", y[2]},       {"j", y[3]},
                                                              {"out", y[1]}, {"ki", kernel[0]}, {"kj", kernel[1]}}
               : std::vector<std::pair<std::string, int64_t>>{{"mb", y[0]}, {"out", y[1]},     {"i", y[2]},
                                                              {"j", y[3]},  {"ki", kernel[0]}, {"kj", kernel[1]}};
    along = {{"mb", "out", "i", "j"}};
    if (op.type == "depthwiseconv2dnative") along.push_back({"out", "ki", "kj"});
    along.push_back({"mb", "out", "i", "j"});
  }
  for (const auto& [label, size] : dims)
    s.dims.push_back({label, size, label == "in" || label == "ki" || label == "kj"});
  for (int d = 0; d < 2; ++d) {
    s.windows.push_back({s.find(d == 0 ? "i" : "j"), s.find(d == 0 ? "ki" : "kj"), stride[static_cast<size_t>(d)],
                         dilation[static_cast<size_t>(d)]});
  }
  std::vector<int> tensors(op.inputs.begin(), op.inputs.end());
  tensors.push_back(op.outputs[0]);
  for (size_t k = 0; k < tensors.size(); ++k) {
    Operand o;
    o.tensor = tensors[k];
    o.output = k + 1 == tensors.size();
    for (const auto& label : along[k]) {
      o.iter_of.push_back(s.find(label));
      // The activation (operand 0) is read through the windows of i and j.
      o.window.push_back(k == 0 && label == "i" ? 0 : k == 0 && label == "j" ? 1 : -1);
    }
    s.operands.push_back(o);
  }
  return s;
}

IterationSpace iteration_space(const Graph& g, const Op& op) {
  const OpInfo* info = device_op_info(op);
  const std::string where = g.describe(op);
  if (!info) fail("", where, "'" + op.type + "' is not a device op");
  auto shape_of = [&](int t) -> const Shape& { return g.tensors[static_cast<size_t>(t)].shape; };
  if (info->windowed) {
    IterationSpace s = windowed_space(g, op);
    mark_stick_dims(g, op, s);
    return s;
  }
  IterationSpace s;
  const int out = op.outputs[0];
  if (info->kind == OpKind::Matmul) {
    const Shape& c = shape_of(out);
    const size_t n = c.size();
    const auto labels = matmul_labels(n, where);
    for (size_t i = 0; i < n; ++i) s.dims.push_back({labels[i], c[i], false});
    // The contraction: B's rows, padded to whole sticks when A's ends inside one.
    const Shape& b = shape_of(op.inputs[1]);
    s.dims.push_back({labels[n], b[b.size() - 2], true});
    const int m_dim = static_cast<int>(n) - 2, n_dim = static_cast<int>(n) - 1, k_dim = static_cast<int>(n);
    auto operand = [&](int t, int second_last, int last) {
      const size_t r = shape_of(t).size();
      Operand o;
      o.tensor = t;
      for (size_t j = 0; j + 2 < r; ++j) o.iter_of.push_back(static_cast<int>(n - 2 - (r - 2) + j));
      o.iter_of.push_back(second_last);
      o.iter_of.push_back(last);
      return o;
    };
    s.operands.push_back(operand(op.inputs[0], m_dim, k_dim));
    s.operands.push_back(operand(op.inputs[1], k_dim, n_dim));
    s.operands.push_back(aligned_operand(out, n, n, true));
    mark_stick_dims(g, op, s);
    return s;
  }
  if (info->kind == OpKind::TopK) {
    // torch-spyre's topk reduction: the output's dims (k in place of the
    // searched one), then the searched dim, which only the input spans.
    const Shape& x = shape_of(op.inputs[0]);
    const size_t rank = x.size();
    const int searched = op.attrs.at("dim").get<int>();
    const auto labels = pointwise_labels(rank + 1, where);
    for (size_t i = 0; i < rank; ++i) s.dims.push_back({labels[i], shape_of(out)[i], false});
    s.dims.push_back({labels[rank], x[static_cast<size_t>(searched)], true});
    Operand input = aligned_operand(op.inputs[0], rank, rank, false);
    input.iter_of[static_cast<size_t>(searched)] = static_cast<int>(rank);
    s.operands.push_back(input);
    s.operands.push_back(aligned_operand(out, rank, rank, true));
    mark_stick_dims(g, op, s);
    return s;
  }
  // Pointwise ops iterate over the output, reductions over their input. An op
  // working on a reduction's stick (layernormscale on exx2's statistics)
  // spans the reduced dim, which its operands broadcast.
  Shape space_shape = info->kind == OpKind::Reduction ? shape_of(op.inputs[0]) : shape_of(out);
  if (op.attrs.contains("iteration_shape")) space_shape = op.attrs["iteration_shape"].get<Shape>();
  const auto labels = pointwise_labels(space_shape.size(), where);
  for (size_t i = 0; i < space_shape.size(); ++i) s.dims.push_back({labels[i], space_shape[i], false});
  if (info->kind == OpKind::Reduction) {
    const int dim = op.attrs.at("dim").get<int>();
    s.dims[static_cast<size_t>(dim)].reduction = true;
  }
  // A scatter's last input is the copy it writes into (decompose's
  // index_put): it orders the two, the kernel does not read it.
  const size_t read = op.attrs.contains("scatter") ? 2 : op.inputs.size();
  for (size_t i = 0; i < read; ++i) {
    const int t = op.inputs[i];
    s.operands.push_back(aligned_operand(t, shape_of(t).size(), space_shape.size(), false));
  }
  s.operands.push_back(aligned_operand(out, shape_of(out).size(), space_shape.size(), true));
  mark_stick_dims(g, op, s);
  return s;
}

DimScaleKind operand_scale(const Graph& g, const IterationSpace& space, const Operand& o, int j) {
  const Tensor& t = g.tensors[static_cast<size_t>(o.tensor)];
  const int64_t size = t.shape[static_cast<size_t>(j)];
  const int64_t iter_size = space.dims[static_cast<size_t>(o.iter_of[static_cast<size_t>(j)])].size;
  if (size == iter_size || size != 1) return DimScaleKind::Normal;
  return j == t.layout.stick ? DimScaleKind::BroadcastStick : DimScaleKind::Broadcast;
}

std::vector<int64_t> split_units(const Graph& g, const IterationSpace& space) {
  std::vector<int64_t> per_stick(space.dims.size(), 0);
  for (const auto& o : space.operands) {
    const Tensor& t = g.tensors[static_cast<size_t>(o.tensor)];
    const int stick = t.layout.stick;
    if (stick < 0 || operand_scale(g, space, o, stick) != DimScaleKind::Normal) continue;
    int64_t& e = per_stick[static_cast<size_t>(o.iter_of[static_cast<size_t>(stick)])];
    e = std::max(e, stick_elems(t.dtype) / t.layout.stick_rows);  // a two-dim stick: elements a row
  }
  const std::vector<std::string> undivided = undivided_dims(g, space);
  std::vector<int64_t> units;
  for (size_t i = 0; i < space.dims.size(); ++i) {
    if (!undivided[i].empty()) {
      units.push_back(1);
      continue;
    }
    const int64_t n = space.dims[i].size, e = per_stick[i];
    if (e == 0 || n % e == 0) {
      units.push_back(e == 0 ? n : n / e);
    } else {
      const int64_t padded = space.dims[i].stick_elems;
      units.push_back(padded > 0 ? (n + padded - 1) / padded : 1);
    }
  }
  return units;
}

std::vector<std::string> undivided_dims(const Graph& g, const IterationSpace& space) {
  std::vector<std::string> why(space.dims.size());
  // A window stays whole on each core, and so do the output dims it slides
  // along when a stride is above 1 (torch-spyre's work division: ki / kj are
  // never split, conv_spatial_blocked_vars blocks i and j of a strided
  // window); at stride 1 a core's rows read their window's halo too.
  const bool strided =
      std::any_of(space.windows.begin(), space.windows.end(), [](const IterWindow& w) { return w.stride > 1; });
  for (const IterWindow& w : space.windows) {
    why[static_cast<size_t>(w.window_dim)] = "a window dim, whole on every core";
    if (strided)
      why[static_cast<size_t>(w.dim)] =
          "slid along by a window at a stride above 1 (torch-spyre's "
          "conv_spatial_blocked_vars)";
  }
  // A two-dim stick's row dim (torch-spyre's qfp8wt_pinned_vars pins a
  // QFP8WT output's row coordinate, qfp8wt_matmul_k_pinned a
  // batchmatmulfp8's contraction over a QFP8WT weight).
  for (const auto& o : space.operands) {
    const Tensor& t = g.tensors[static_cast<size_t>(o.tensor)];
    if (const int row = t.layout.row_dim(); row >= 0)
      why[static_cast<size_t>(o.iter_of[static_cast<size_t>(row)])] =
          "the row dim of '" + t.name + "''s two-row QFP8WT sticks (torch-spyre pins it)";
  }
  return why;
}

int64_t per_core_elems(const IterDim& dim, int64_t slices) {
  return slices > 1 ? round_up(dim.size, dim.stick_elems) / slices : dim.size;
}

int64_t per_core_span(const Graph& g, const IterationSpace& space, const Operand& o,
                      const std::vector<int64_t>& slices) {
  const Tensor& t = g.tensors[static_cast<size_t>(o.tensor)];
  const int64_t se = stick_elems(t.dtype);
  const LayoutGeometry geo = layout_geometry(t.shape, t.layout, se, kStickBytes / se);
  int64_t span = kStickBytes;
  for (size_t j = 0; j < t.shape.size(); ++j) {
    if (operand_scale(g, space, o, static_cast<int>(j)) != DimScaleKind::Normal) continue;
    const size_t it = static_cast<size_t>(o.iter_of[j]);
    const int64_t per_core = per_core_elems(space.dims[it], slices[it]);
    const int w = o.window_of(j);  // read through a window: its outputs' span of the input
    const int64_t extent = std::min(
        t.shape[j],
        w < 0 ? per_core : space.windows[static_cast<size_t>(w)].span(per_core, window_size(space, o.window_of(j))));
    const int64_t per = t.layout.per_unit(static_cast<int>(j), se);
    const int64_t units = (extent + per - 1) / per;
    span += (units - 1) * geo.stride[j];
  }
  return span;
}

}  // namespace spyre::compiler

namespace spyre::compiler {

std::vector<CoreView> core_views(const Graph& g, const Op& op, const IterationSpace& space, const Operand& o) {
  std::vector<int64_t> slices;
  int64_t cores = 1;
  for (const auto& d : space.dims) {
    slices.push_back(op.splits.count(d.label) ? op.splits.at(d.label) : 1);
    cores *= slices.back();
  }
  const Tensor& t = g.tensors[static_cast<size_t>(o.tensor)];
  std::vector<CoreView> views;
  for (int64_t c = 0; c < cores; ++c) {
    std::vector<int64_t> idx;
    int64_t rest = c;
    for (int64_t s : slices) {
      idx.push_back(rest % s);
      rest /= s;
    }
    CoreView v;
    for (size_t j = 0; j < t.shape.size(); ++j) {
      const size_t it = static_cast<size_t>(o.iter_of[j]);
      if (operand_scale(g, space, o, static_cast<int>(j)) != DimScaleKind::Normal) {
        v.origin.push_back(0);
        v.extent.push_back(t.shape[j]);
        continue;
      }
      // The last core of a dim split over padded sticks holds less (its padding).
      const int64_t per_core = per_core_elems(space.dims[it], slices[it]);
      if (const int w = o.window_of(j); w >= 0) {  // read through a window: its outputs' span, halo included
        const IterWindow& win = space.windows[static_cast<size_t>(w)];
        const int64_t origin = std::min(idx[it] * per_core * win.stride, t.shape[j]);
        v.origin.push_back(origin);
        v.extent.push_back(std::min(win.span(per_core, window_size(space, w)), t.shape[j] - origin));
        continue;
      }
      const int64_t origin = std::min(idx[it] * per_core, t.shape[j]);
      v.origin.push_back(origin);
      v.extent.push_back(std::min(per_core, t.shape[j] - origin));
    }
    views.push_back(std::move(v));
  }
  return views;
}

}  // namespace spyre::compiler
