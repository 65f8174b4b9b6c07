#include "compiler/ir/layout.h"

#include <algorithm>

namespace spyre::compiler {

namespace {

// Dims whose size is not 1, in logical order.
std::vector<int> significant_dims(const std::vector<int64_t>& shape) {
  std::vector<int> dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 1) dims.push_back(static_cast<int>(i));
  }
  return dims;
}

}  // namespace

int Layout::row_dim() const {
  if (stick_rows <= 1) return -1;
  for (int d : order) {
    if (d != stick) return d;
  }
  return -1;
}

int64_t Layout::per_unit(int dim, int64_t stick_elems) const {
  if (dim == stick) return stick_elems / stick_rows;
  if (stick_rows > 1 && dim == row_dim()) return stick_rows;
  return 1;
}

Layout default_layout(const std::vector<int64_t>& shape) {
  Layout layout;
  const std::vector<int> dims = significant_dims(shape);
  if (dims.empty()) {
    // Every dim has size 1 (a scalar held as a tensor): the last dim is the stick.
    for (size_t i = 0; i < shape.size(); ++i) layout.order.push_back(static_cast<int>(i));
    layout.stick = static_cast<int>(shape.size()) - 1;
    return layout;
  }
  layout.order.push_back(dims.front());
  if (dims.size() > 1) {
    layout.order.push_back(dims.back());
    for (size_t i = dims.size() - 2; i >= 1; --i) layout.order.push_back(dims[i]);
  }
  layout.stick = dims.back();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) layout.order.push_back(static_cast<int>(i));
  }
  return layout;
}

Layout layout_with_stick(const std::vector<int64_t>& shape, int stick) {
  Layout layout = default_layout(shape);
  if (layout.stick == stick) return layout;
  // Keep the default order but make `stick` the stick: it takes the old
  // stick's place, which moves to the stick's old place.
  auto a = std::find(layout.order.begin(), layout.order.end(), stick);
  auto b = std::find(layout.order.begin(), layout.order.end(), layout.stick);
  if (a != layout.order.end() && b != layout.order.end()) std::iter_swap(a, b);
  layout.stick = stick;
  return layout;
}

Layout permute_layout(const Layout& base, const std::vector<int>& perm) {
  std::vector<int> view_of_base(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) view_of_base[static_cast<size_t>(perm[i])] = static_cast<int>(i);
  Layout view;
  for (int d : base.order) view.order.push_back(view_of_base[static_cast<size_t>(d)]);
  view.stick = base.stick >= 0 ? view_of_base[static_cast<size_t>(base.stick)] : -1;
  return view;
}

std::optional<Layout> reshape_layout(const std::vector<int64_t>& from, const Layout& base,
                                     const std::vector<int64_t>& to, int64_t stick_elems) {
  const std::vector<int> fdims = significant_dims(from), tdims = significant_dims(to);
  if (base.stick >= 0 && from[static_cast<size_t>(base.stick)] == 1 && !fdims.empty())
    return std::nullopt;  // a synthetic stick cannot move
  // Blocks of consecutive dims with equal element counts.
  struct Block {
    std::vector<int> f, t;
  };
  std::vector<Block> blocks;
  size_t i = 0, j = 0;
  while (i < fdims.size() || j < tdims.size()) {
    Block b;
    int64_t pf = 1, pt = 1;
    do {
      if (pf <= pt && i < fdims.size()) {
        pf *= from[static_cast<size_t>(fdims[i])];
        b.f.push_back(fdims[i++]);
      } else if (j < tdims.size()) {
        pt *= to[static_cast<size_t>(tdims[j])];
        b.t.push_back(tdims[j++]);
      } else {
        return std::nullopt;  // element counts differ
      }
    } while (pf != pt || b.f.empty() || b.t.empty());
    blocks.push_back(b);
  }
  auto position = [&](int d) { return std::find(base.order.begin(), base.order.end(), d) - base.order.begin(); };
  Layout view;
  std::vector<bool> emitted(blocks.size(), false);
  for (int d : base.order) {
    if (from[static_cast<size_t>(d)] == 1) continue;
    size_t bi = 0;
    while (bi < blocks.size() && std::find(blocks[bi].f.begin(), blocks[bi].f.end(), d) == blocks[bi].f.end()) ++bi;
    if (bi == blocks.size() || emitted[bi]) continue;
    const Block& b = blocks[bi];
    // The block's dims must sit next to each other in memory, fastest innermost.
    for (size_t k = 0; k < b.f.size(); ++k) {
      if (position(b.f[b.f.size() - 1 - k]) != position(b.f.back()) + static_cast<long>(k)) return std::nullopt;
    }
    const bool has_stick = std::find(b.f.begin(), b.f.end(), base.stick) != b.f.end();
    if (has_stick) {
      if (base.stick != b.f.back()) return std::nullopt;  // the stick must be the fastest dim of the block
      if (b.f.size() > 1 && from[static_cast<size_t>(b.f.back())] % stick_elems != 0) return std::nullopt;
      if (b.t.size() > 1 && to[static_cast<size_t>(b.t.back())] % stick_elems != 0) return std::nullopt;
      view.stick = b.t.back();
    }
    for (auto it = b.t.rbegin(); it != b.t.rend(); ++it) view.order.push_back(*it);
    emitted[bi] = true;
  }
  for (size_t k = 0; k < to.size(); ++k) {
    if (to[k] == 1) view.order.push_back(static_cast<int>(k));
  }
  if (view.stick < 0) {
    if (!tdims.empty()) return std::nullopt;
    view.stick = to.empty() ? -1 : static_cast<int>(to.size()) - 1;
  }
  return view;
}

Layout row_major_layout(const std::vector<int64_t>& shape, int stick) {
  Layout layout;
  layout.stick = stick;
  layout.order.push_back(stick);
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (d != stick) layout.order.push_back(d);
  }
  return layout;
}

Layout outermost_layout(const Layout& base, int dim) {
  Layout layout = base;
  auto it = std::find(layout.order.begin(), layout.order.end(), dim);
  if (it != layout.order.end()) {
    layout.order.erase(it);
    layout.order.push_back(dim);
  }
  return layout;
}

LayoutGeometry layout_geometry(const std::vector<int64_t>& shape, const Layout& layout, int64_t stick_elems,
                               int64_t elem_bytes) {
  LayoutGeometry g;
  g.units.assign(shape.size(), 1);
  g.stride.assign(shape.size(), 0);
  int64_t running = stick_elems * elem_bytes;
  for (int d : layout.order) {
    const int64_t n = shape[static_cast<size_t>(d)], per = layout.per_unit(d, stick_elems);
    const int64_t units = (n + per - 1) / per;
    g.units[static_cast<size_t>(d)] = units;
    g.stride[static_cast<size_t>(d)] = running;
    running *= units;
  }
  g.bytes = running;
  return g;
}

std::string describe_layout(const Layout& layout) {
  std::string out = "[";
  for (size_t i = 0; i < layout.order.size(); ++i) {
    out += (i ? ", d" : "d") + std::to_string(layout.order[i]);
    if (layout.order[i] == layout.stick) out += "(stick)";
    if (layout.stick_rows > 1 && layout.order[i] == layout.row_dim())
      out += "(" + std::to_string(layout.stick_rows) + " rows a stick)";
  }
  return out + "]";
}

std::vector<int64_t> device_size(const std::vector<int64_t>& shape, const Layout& layout, int64_t stick_elems) {
  std::vector<int64_t> size;
  for (auto it = layout.order.rbegin(); it != layout.order.rend(); ++it) {
    const int64_t n = shape[static_cast<size_t>(*it)], per = layout.per_unit(*it, stick_elems);
    size.push_back((n + per - 1) / per);
  }
  if (layout.stick_rows > 1) size.push_back(layout.stick_rows);
  size.push_back(stick_elems / layout.stick_rows);
  return size;
}

}  // namespace spyre::compiler
