#include "runtime/tensor_layout.h"

#include <algorithm>
#include <tuple>

#include "runtime/error.h"

namespace spyre {

TensorLayout::TensorLayout(const std::vector<std::string>& dims_innermost_first, const DimMap& extents,
                           const StickShape& stick, int elem_bytes, const DimMap& back_gap)
    : stick_(stick), elem_bytes_(elem_bytes) {
  int64_t running = stick.elements() * elem_bytes;  // one stick
  data_ = running;
  for (const auto& name : dims_innermost_first) {
    LayoutDim d;
    d.name = name;
    auto it = extents.find(name);
    d.extent = it == extents.end() ? 1 : it->second;
    d.stick = stick.holds(name);
    if (name == stick.dim) {
      d.per_unit = stick.elems;
      d.unit_step = elem_bytes;
    } else if (d.stick) {  // the row dim of a two-dim stick: a row apart
      d.per_unit = stick.rows;
      d.unit_step = stick.elems * elem_bytes;
    }
    d.count = (d.extent + d.per_unit - 1) / d.per_unit;
    auto gap = back_gap.find(name);
    if (gap != back_gap.end()) d.gap = gap->second / d.per_unit;
    d.stride = running;
    running *= d.count + d.gap;
    data_ *= d.count;
    dims_.push_back(d);
  }
  size_ = running;
}

int64_t TensorLayout::span_bytes() const {
  int64_t last = 0;
  for (const auto& d : dims_) last += (d.count - 1) * d.stride;
  return last + stick_bytes();
}

const LayoutDim* TensorLayout::find(const std::string& name) const {
  for (const auto& d : dims_) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

int64_t TensorLayout::offset(const DimMap& coords) const {
  int64_t total = 0;
  for (const auto& d : dims_) {
    auto it = coords.find(d.name);
    if (it != coords.end()) total += offset_along(d, it->second);
  }
  return total;
}

int64_t TensorLayout::box_bytes(const DimMap& origin, const DimMap& extent) const {
  int64_t bytes = stick_bytes();
  for (const auto& d : dims_) {
    const int64_t o = origin.count(d.name) ? origin.at(d.name) : 0;
    const int64_t e = extent.count(d.name) ? extent.at(d.name) : 1;
    bytes *= d.units_spanned(o, e);
  }
  return bytes;
}

std::vector<std::pair<int64_t, int64_t>> TensorLayout::box_runs(const DimMap& origin, const DimMap& extent,
                                                                size_t max_runs) const {
  struct Span {
    int64_t units, stride;
  };
  std::vector<Span> spans;  // innermost first
  int64_t base = 0;
  for (const auto& d : dims_) {
    const int64_t o = origin.count(d.name) ? origin.at(d.name) : 0;
    const int64_t e = extent.count(d.name) ? extent.at(d.name) : 1;
    base += d.unit_of(o) * d.stride;
    spans.push_back({d.units_spanned(o, e), d.stride});
  }
  // The innermost dims whose units follow each other make one run.
  int64_t run = stick_bytes();
  size_t k = 0;
  while (k < spans.size() && (spans[k].units == 1 || spans[k].stride == run)) {
    run *= spans[k].units;
    ++k;
  }
  size_t count = 1;
  for (size_t i = k; i < spans.size(); ++i) count *= static_cast<size_t>(spans[i].units);
  if (count > max_runs) return {{base, box_bytes(origin, extent)}};
  std::vector<std::pair<int64_t, int64_t>> runs;
  runs.reserve(count);
  std::vector<int64_t> index(spans.size(), 0);
  for (size_t n = 0; n < count; ++n) {
    int64_t offset = base;
    for (size_t i = k; i < spans.size(); ++i) offset += index[i] * spans[i].stride;
    runs.emplace_back(offset, run);
    for (size_t i = k; i < spans.size(); ++i) {  // next index, innermost fastest
      if (++index[i] < spans[i].units) break;
      index[i] = 0;
    }
  }
  std::sort(runs.begin(), runs.end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (const auto& r : runs) {
    if (!merged.empty() && merged.back().first + merged.back().second == r.first) {
      merged.back().second += r.second;
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

std::vector<std::pair<int64_t, int64_t>> TensorLayout::runs(size_t max_runs) const {
  DimMap extent;
  for (const auto& d : dims_) extent[d.name] = d.extent;
  return box_runs({}, extent, max_runs);
}

bool TensorLayout::same_bytes_as(const TensorLayout& other) const {
  if (elem_bytes_ != other.elem_bytes_ || !same_stick_as(other) || size_ != other.size_) return false;
  auto steps = [](const std::vector<LayoutDim>& dims) {
    std::vector<std::tuple<int64_t, int64_t, int64_t>> out;
    for (const auto& d : dims) {
      if (d.count > 1) out.emplace_back(d.count, d.stride, d.stick ? d.per_unit : 0);
    }
    return out;
  };
  return steps(dims_) == steps(other.dims_);
}

bool TensorLayout::window_of(const TensorLayout& whole, int64_t offset) const {
  if (elem_bytes_ != whole.elem_bytes_ || !same_stick_as(whole) || offset < 0) return false;
  // (count, stride) of the dims that step, innermost first; a window's dim
  // steps when its extent and gap together do.
  std::vector<const LayoutDim*> mine, theirs;
  for (const auto& d : dims_) {
    if (d.count + d.gap > 1) mine.push_back(&d);
  }
  for (const auto& d : whole.dims_) {
    if (d.count > 1) theirs.push_back(&d);
  }
  if (mine.size() != theirs.size()) return false;
  int64_t rest = offset;
  for (size_t k = mine.size(); k-- > 0;) {  // outermost first: the offset's coordinate along each dim
    const LayoutDim& w = *mine[k];
    const LayoutDim& t = *theirs[k];
    if (w.stride != t.stride || w.stick != t.stick || w.per_unit != t.per_unit || w.count + w.gap != t.count)
      return false;
    const int64_t origin = rest / t.stride;
    rest %= t.stride;
    if (origin + w.count > t.count) return false;
  }
  return rest == 0;
}

bool TensorLayout::same_bytes_reshaped(const TensorLayout& other) const {
  if (same_bytes_as(other)) return true;
  if (elem_bytes_ != other.elem_bytes_ || !same_stick_as(other) || size_ != other.size_) return false;
  // (count, stride, stick) steps from the innermost, size-1 dims dropped and
  // contiguous non-stick dims merged (a flatten); with ignore_stick, stick
  // steps merge too (a lane dim that fits in one stick has no stick step, and
  // the dim outside it takes that role in the other layout).
  auto steps = [](const std::vector<LayoutDim>& dims, bool ignore_stick) {
    std::vector<std::tuple<int64_t, int64_t, bool>> out;
    for (const auto& d : dims) {
      if (d.count <= 1) continue;
      const bool stick = d.stick && !ignore_stick;
      if (!out.empty() && !stick && !std::get<2>(out.back()) &&
          std::get<0>(out.back()) * std::get<1>(out.back()) == d.stride) {
        std::get<0>(out.back()) *= d.count;
      } else {
        out.emplace_back(d.count, d.stride, stick);
      }
    }
    return out;
  };
  auto has_stick_step = [](const std::vector<LayoutDim>& dims) {
    return std::any_of(dims.begin(), dims.end(), [](const LayoutDim& d) { return d.stick && d.count > 1; });
  };
  const bool ignore = !has_stick_step(dims_) || !has_stick_step(other.dims_);
  return steps(dims_, ignore) == steps(other.dims_, ignore);
}

std::string TensorLayout::describe() const {
  std::string out;
  for (auto it = dims_.rbegin(); it != dims_.rend(); ++it) {
    out += "[" + it->name + ":" + std::to_string(it->count) + (it->gap ? "+" + std::to_string(it->gap) : "") +
           (it->stick ? (it->name == stick_.dim ? " sticks]" : " row groups]") : "]");
  }
  if (!stick_.row_dim.empty()) out += "[" + std::to_string(stick_.rows) + " rows]";
  out += "[" + std::to_string(stick_.elems) + " x " + std::to_string(elem_bytes_) + "B]";
  return out;
}

namespace {

bool has_own_distribution(const Sdsc& sdsc, int lds_index) {
  return !sdsc.allocations.at(lds_index).core_slices.empty();
}

}  // namespace

DimMap tensor_slices(const Sdsc& sdsc, int lds_index) {
  if (!has_own_distribution(sdsc, lds_index)) return sdsc.slices;
  DimMap slices;
  for (const auto& d : sdsc.dims) slices[d] = 1;
  for (const auto& [core, slice] : sdsc.allocations.at(lds_index).core_slices) {
    for (const auto& [d, index] : slice) slices[d] = std::max(slices[d], index + 1);
  }
  return slices;
}

const DimMap& tensor_core_slice(const Sdsc& sdsc, int lds_index, int core) {
  const auto& alloc = sdsc.allocations.at(lds_index);
  const auto& mapping = alloc.core_slices.empty() ? sdsc.core_slice : alloc.core_slices;
  auto it = mapping.find(core);
  if (it == mapping.end()) {
    fail(sdsc.file, alloc.path,
         "core " + std::to_string(core) + " has no work slice for " + sdsc.tensors.at(lds_index).name);
  }
  return it->second;
}

namespace {

DimMap extents_under(const Sdsc& sdsc, int lds_index, bool per_core, const DimMap& slices) {
  const LabeledDs& t = sdsc.tensors.at(lds_index);
  DimMap extents;
  for (const auto& [d, scale] : t.scale) {
    if (scale != DimScale::Normal) {
      extents[d] = 1;
      continue;
    }
    int64_t n = sdsc.size.at(d);
    if (per_core) {
      const int64_t s = slices.count(d) ? slices.at(d) : 1;
      if (n % s != 0) {
        fail(sdsc.file, sdsc.allocations.at(lds_index).path,
             "dimension '" + d + "' of size " + std::to_string(n) + " does not divide into " + std::to_string(s) +
                 " slices");
      }
      n /= s;
    }
    // An input read through a window spans the input elements its outputs read.
    if (const WindowedDim* w = sdsc.window_of(lds_index, d)) {
      n = per_core ? w->span(n, sdsc.size.at(w->window_dim)) : w->total_size;
    }
    extents[d] = n;
  }
  return extents;
}

Box box_under(const Sdsc& sdsc, int lds_index, const DimMap& extent, const DimMap& slice) {
  Box box;
  box.extent = extent;
  for (const auto& [d, scale] : sdsc.tensors.at(lds_index).scale) {
    const int64_t index = scale == DimScale::Normal && slice.count(d) ? slice.at(d) : 0;
    // Through a window a slice's outputs start `stride` input elements apart each.
    const WindowedDim* w = sdsc.window_of(lds_index, d);
    box.origin[d] = w ? index * sdsc.size.at(d) / sdsc.slices.at(d) * w->stride : index * box.extent.at(d);
  }
  return box;
}

}  // namespace

DimMap tensor_extents(const Sdsc& sdsc, int lds_index, bool per_core) {
  return extents_under(sdsc, lds_index, per_core, per_core ? tensor_slices(sdsc, lds_index) : DimMap{});
}

DimMap compute_extents(const Sdsc& sdsc, int lds_index) {
  return extents_under(sdsc, lds_index, /*per_core=*/true, sdsc.slices);
}

Box core_box(const Sdsc& sdsc, int lds_index, int core) {
  return box_under(sdsc, lds_index, tensor_extents(sdsc, lds_index, /*per_core=*/true),
                   tensor_core_slice(sdsc, lds_index, core));
}

Box compute_box(const Sdsc& sdsc, int lds_index, int core) {
  return box_under(sdsc, lds_index, compute_extents(sdsc, lds_index), sdsc.core_slice.at(core));
}

TensorLayout compute_layout(const Sdsc& sdsc, int lds_index) {
  const PrimaryDsInfo& primary = sdsc.primary_of(lds_index);
  return TensorLayout(sdsc.allocations.at(lds_index).layout_dims, compute_extents(sdsc, lds_index), primary.stick,
                      word_bytes(sdsc.tensors.at(lds_index).format));
}

bool relayout_input(const Sdsc& sdsc, int lds_index) {
  const Allocation& alloc = sdsc.allocations.at(lds_index);
  if (alloc.component != MemComponent::Lx || alloc.core_slices.empty()) return false;
  for (const auto& op : sdsc.ops) {
    if (op.info->kind == OpKind::Shuffle) return false;
  }
  for (int core : sdsc.core_ids) {
    const Box held = core_box(sdsc, lds_index, core), used = compute_box(sdsc, lds_index, core);
    if (held.origin != used.origin || held.extent != used.extent) return true;
  }
  return false;
}

TensorLayout allocation_layout(const Sdsc& sdsc, int lds_index) {
  const Allocation& alloc = sdsc.allocations.at(lds_index);
  const PrimaryDsInfo& primary = sdsc.primary_of(lds_index);
  const DimMap extents = tensor_extents(sdsc, lds_index, alloc.component == MemComponent::Lx);
  return TensorLayout(alloc.layout_dims, extents, primary.stick, word_bytes(sdsc.tensors.at(lds_index).format),
                      alloc.back_gap);
}

TensorLayout whole_tensor_layout(const Sdsc& sdsc, int lds_index) {
  const PrimaryDsInfo& primary = sdsc.primary_of(lds_index);
  return TensorLayout(sdsc.allocations.at(lds_index).layout_dims, tensor_extents(sdsc, lds_index, /*per_core=*/false),
                      primary.stick, word_bytes(sdsc.tensors.at(lds_index).format));
}

std::vector<int64_t> offsets_along(const TensorLayout& layout, const std::string& dim, int64_t first, int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n), 0);
  const LayoutDim* d = layout.find(dim);
  if (!d) return out;
  for (int64_t j = 0; j < n; ++j) out[static_cast<size_t>(j)] = layout.offset_along(*d, first + j);
  return out;
}

ByteRuns merge_runs(ByteRuns runs) {
  std::sort(runs.begin(), runs.end());
  ByteRuns merged;
  for (const auto& [offset, bytes] : runs) {
    if (!merged.empty() && merged.back().first + merged.back().second >= offset) {
      merged.back().second = std::max(merged.back().second, offset + bytes - merged.back().first);
    } else {
      merged.emplace_back(offset, bytes);
    }
  }
  return merged;
}

int64_t total_bytes(const ByteRuns& runs) {
  int64_t total = 0;
  for (const auto& run : runs) total += run.second;
  return total;
}

int64_t overlap_bytes(const ByteRuns& a, const ByteRuns& b) {
  int64_t common = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].first, b[j].first);
    const int64_t a_end = a[i].first + a[i].second, b_end = b[j].first + b[j].second;
    common += std::max<int64_t>(0, std::min(a_end, b_end) - lo);
    if (a_end < b_end) {
      ++i;
    } else {
      ++j;
    }
  }
  return common;
}

ByteRuns subtract_runs(const ByteRuns& a, const ByteRuns& b) {
  ByteRuns out;
  size_t j = 0;
  for (const auto& [offset, bytes] : a) {
    int64_t at = offset;
    const int64_t end = offset + bytes;
    while (j < b.size() && b[j].first + b[j].second <= at) ++j;
    for (size_t i = j; i < b.size() && b[i].first < end; ++i) {
      if (b[i].first > at) out.emplace_back(at, b[i].first - at);
      at = std::max(at, b[i].first + b[i].second);
    }
    if (at < end) out.emplace_back(at, end - at);
  }
  return out;
}

}  // namespace spyre
