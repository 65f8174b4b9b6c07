#pragma once
// Where each element of a tensor lives, in bytes.
//
// A device tensor is made of 128-byte sticks: stick_elems consecutive elements
// of the stick dimension. Beyond the stick, allocate nodes list dimensions
// innermost first (layoutDimOrder_); the stick dimension appears there as the
// stick index. Example: [mb, out] with stick out on a (512, 1024) fp16 tensor
// is the device shape [16 out-sticks][512 mb][64 elems], torch-spyre's default
// [ceil(C/64), R, 64] for (R, C). A two-dim stick (StickShape::row_dim) also
// holds `rows` consecutive elements of its row dim, which then counts in
// units of `rows`: an FP8 weight [in, out] in QFP8WT sticks is
// [out/64 sticks][in/2 pairs][2][64].
//
// HBM tensors are laid out with their full extents (N_) and each core's start
// address points at its slice inside them; LX tensors hold only the core's own
// slice, so their extents are per core.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/sdsc.h"

namespace spyre {

// The product of sizes (1 for none): elements of a shape, slices of a split.
inline int64_t product(const std::vector<int64_t>& sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) p *= s;
  return p;
}

struct LayoutDim {
  std::string name;
  int64_t extent = 1;  // logical elements
  int64_t count =
      1;  // memory units: sticks for the stick dimension, row groups for a stick's row dim, elements otherwise
  int64_t stride = 0;     // bytes between consecutive units
  int64_t gap = 0;        // units of padding after the last one (backGapCore_)
  int64_t per_unit = 1;   // elements in one unit: the stick's elems or rows, 1 outside the stick
  int64_t unit_step = 0;  // bytes between consecutive elements inside one unit
  bool stick = false;     // the dim fills (part of) each stick
  // The first unit of coordinate `coord` and the units a range spans.
  int64_t unit_of(int64_t coord) const { return coord / per_unit; }
  int64_t units_spanned(int64_t origin, int64_t extent_elems) const {
    return unit_of(origin + extent_elems - 1) - unit_of(origin) + 1;
  }
};

class TensorLayout {
 public:
  TensorLayout() = default;
  // back_gap: elements of padding after a dim (a view into a larger buffer).
  TensorLayout(const std::vector<std::string>& dims_innermost_first, const DimMap& extents, const StickShape& stick,
               int elem_bytes, const DimMap& back_gap = {});

  const std::vector<LayoutDim>& dims() const { return dims_; }
  const LayoutDim* find(const std::string& name) const;
  // The address range from the first byte to the end of the outermost dim's
  // gap: what the tensor spans. data_bytes() counts only the sticks it holds.
  int64_t size_bytes() const { return size_; }
  int64_t data_bytes() const { return data_; }
  // From the first byte to the end of the last stick: the bytes an access
  // reaches (less than size_bytes() when a gap follows the last one: a tile
  // of a larger buffer).
  int64_t span_bytes() const;
  bool has_gaps() const { return data_ != size_; }
  int64_t stick_elems() const { return stick_.elems; }
  int elem_bytes() const { return elem_bytes_; }
  const std::string& stick_dim() const { return stick_.dim; }
  const StickShape& stick_shape() const { return stick_; }
  int64_t stick_bytes() const { return stick_.elements() * elem_bytes_; }

  int64_t offset_along(const LayoutDim& dim, int64_t coord) const {
    return dim.unit_of(coord) * dim.stride + (coord % dim.per_unit) * dim.unit_step;
  }
  // Dims missing from coords count as coordinate 0.
  int64_t offset(const DimMap& coords) const;
  // Bytes of all sticks touched by the box [origin, origin + extent): what a
  // DMA of that box moves.
  int64_t box_bytes(const DimMap& origin, const DimMap& extent) const;
  // The same sticks as contiguous byte runs (offset from the tensor's first
  // byte, bytes), in address order, adjacent runs merged. A box with more
  // than max_runs runs comes back as one run from its first byte (the
  // coarse form of a strided transfer).
  std::vector<std::pair<int64_t, int64_t>> box_runs(const DimMap& origin, const DimMap& extent,
                                                    size_t max_runs = 65536) const;
  // True when both layouts put every byte in the same place: same element
  // and stick size, and the same (count, stride) steps once size-1 dims are
  // dropped. Dim names are per SDSC, so they are not compared.
  bool same_bytes_as(const TensorLayout& other) const;
  // The same stick: elements, rows (dim names are per SDSC, so not compared).
  bool same_stick_as(const TensorLayout& other) const {
    return stick_.elems == other.stick_.elems && stick_.rows == other.stick_.rows;
  }
  // The same, or the other is a reshape of this one: contiguous dims merged
  // or split (sdpa writes [mb, y, x, i] and reads [mb, out, x], y x i = out;
  // [out, y, x, mb] and [out, x, mb] with x mb flattened). Bytes alone cannot
  // tell a reshape from a transpose whose dims happen to be contiguous.
  bool same_bytes_reshaped(const TensorLayout& other) const;
  // True when this layout is a box of `whole` starting `offset` bytes into it:
  // the same element and stick size, the same strides, each dim's extent
  // plus its back gap equal to the whole's, and the box inside the whole (a
  // tile of a coarse-tiling loop, a view into a larger buffer).
  bool window_of(const TensorLayout& whole, int64_t offset) const;
  // The tensor's sticks as contiguous byte runs from its first byte.
  std::vector<std::pair<int64_t, int64_t>> runs(size_t max_runs = 65536) const;
  // Outermost first, e.g. "[out:16 sticks][mb:512][64 x 2B]"; a gap shows as "[x:32+16]".
  std::string describe() const;

 private:
  std::vector<LayoutDim> dims_;
  StickShape stick_;
  int elem_bytes_ = 2;
  int64_t size_ = 0;
  int64_t data_ = 0;
};

// The per-core part of a tensor in one SDSC.
struct Box {
  DimMap origin;  // first coordinate per tensor dimension (global coordinates)
  DimMap extent;  // elements per tensor dimension
};

// Slice counts of a tensor's distribution over cores: the allocation's own
// coreIdToWkSlice_ when it has one (e.g. SHUFFLE states), else the SDSC's.
DimMap tensor_slices(const Sdsc& sdsc, int lds_index);
const DimMap& tensor_core_slice(const Sdsc& sdsc, int lds_index, int core);

// Extents of a tensor: full (N_) when per_core is false, one core's when true;
// broadcast dims (scale -1/-2) have extent 1.
DimMap tensor_extents(const Sdsc& sdsc, int lds_index, bool per_core);
// The box of the tensor a core works on.
Box core_box(const Sdsc& sdsc, int lds_index, int core);
// The same under the SDSC's division (numWkSlicesPerDim_, coreIdToWkSlice_)
// even when the allocation carries its own: what each core computes on when
// the tensor must first move between cores (relayout_input).
DimMap compute_extents(const Sdsc& sdsc, int lds_index);
Box compute_box(const Sdsc& sdsc, int lds_index, int core);
TensorLayout compute_layout(const Sdsc& sdsc, int lds_index);
// An LX input whose allocation says its cores hold other parts of it than
// this SDSC computes on (the producer divided it differently): the backend
// moves it between cores before the SDSC runs. SHUFFLE's own states excluded.
bool relayout_input(const Sdsc& sdsc, int lds_index);
// Layout of a tensor as allocated: HBM with full extents, LX with per-core ones.
TensorLayout allocation_layout(const Sdsc& sdsc, int lds_index);
// The whole tensor laid out densely in the allocation's dim order (full
// extents, no gaps): the frame in which two SDSCs that name dims differently
// (mb/y/i in one, mb/out in the next) agree on which bytes a core holds.
TensorLayout whole_tensor_layout(const Sdsc& sdsc, int lds_index);

// Byte offsets, in a layout, of the coordinates [first, first + n) of one
// dim (zeros for a dim of extent 1 the layout does not list).
std::vector<int64_t> offsets_along(const TensorLayout& layout, const std::string& dim, int64_t first, int64_t n);

// Calls visit(whole offset, part offset) for every element of box: a part
// laid out as `part` (local coordinates) whose global coordinates `whole`
// lays out. Moves parts of a tensor between cores whose SDSCs name its dims
// differently, through the whole tensor's bytes.
template <typename Visit>
void for_each_element(const TensorLayout& whole, const TensorLayout& part, const Box& box, Visit&& visit) {
  std::vector<std::vector<int64_t>> whole_off, part_off;
  for (const auto& [d, e] : box.extent) {
    if (e <= 0) return;
    const int64_t origin = box.origin.count(d) ? box.origin.at(d) : 0;
    part_off.push_back(offsets_along(part, d, 0, e));
    whole_off.push_back(offsets_along(whole, d, origin, e));
  }
  std::vector<size_t> index(part_off.size(), 0);
  while (true) {
    int64_t w = 0, o = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      w += whole_off[i][index[i]];
      o += part_off[i][index[i]];
    }
    visit(w, o);
    size_t i = index.size();
    while (i-- > 0) {
      if (++index[i] < part_off[i].size()) break;
      index[i] = 0;
    }
    if (i == static_cast<size_t>(-1)) return;
  }
}

// Byte runs (offset, bytes) in address order, adjacent runs merged, as
// box_runs gives them.
using ByteRuns = std::vector<std::pair<int64_t, int64_t>>;
// Sorts and merges runs that touch or overlap.
ByteRuns merge_runs(ByteRuns runs);
int64_t total_bytes(const ByteRuns& runs);
// Bytes both sets cover; each must be in address order without overlaps.
int64_t overlap_bytes(const ByteRuns& a, const ByteRuns& b);
// The bytes of a that b does not cover, in the same form.
ByteRuns subtract_runs(const ByteRuns& a, const ByteRuns& b);

}  // namespace spyre
