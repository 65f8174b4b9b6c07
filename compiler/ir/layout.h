#pragma once
// Device layouts at the compiler's level: the order of a tensor's logical
// dimensions in device memory (innermost first, after the stick) and which
// dimension forms the 128-byte stick. torch-spyre's SpyreTensorLayout
// (device_size, dim_map) carries the same information.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spyre::compiler {

using Shape = std::vector<int64_t>;

struct Layout {
  std::vector<int> order;  // every logical dim once, innermost first
  int stick = -1;          // the logical dim that forms sticks
  // A two-dim stick (torch-spyre's QFP8WT FP8 weights, stickSize_ [2, 64]):
  // each stick holds stick_rows consecutive elements of row_dim(), the
  // innermost other dim, each a row of the stick dim's elements.
  int stick_rows = 1;
  bool operator==(const Layout& other) const {
    return order == other.order && stick == other.stick && stick_rows == other.stick_rows;
  }
  bool operator!=(const Layout& other) const { return !(*this == other); }
  bool empty() const { return order.empty(); }
  int row_dim() const;  // -1 for a one-dim stick
  // Elements of logical dim `dim` in one memory unit (a stick for the stick
  // dim, a stick's rows for the row dim, else one) for sticks of stick_elems.
  int64_t per_unit(int dim, int64_t stick_elems) const;
};

// torch-spyre's generic stick layout for a shape: device_size
// [d1, ..., d(n-2), ceil(d(n-1)/stick), d0, stick], size-1 dims ignored (they
// go outermost). As innermost-first order: d0, d(n-1) (the stick), d(n-2), ..., d1.
Layout default_layout(const std::vector<int64_t>& shape);
// The default order with another dim as the stick.
Layout layout_with_stick(const std::vector<int64_t>& shape, int stick);

// Layout of a permuted view (view dim i is base dim perm[i]).
Layout permute_layout(const Layout& base, const std::vector<int>& perm);

// Layout of a reshaped view of `base`, when the reshape can alias the same
// bytes (split/merge of dims adjacent in memory, size-1 dims). nullopt when a
// copy is needed. stick_elems: elements per stick of the dtype.
std::optional<Layout> reshape_layout(const std::vector<int64_t>& from, const Layout& base,
                                     const std::vector<int64_t>& to, int64_t stick_elems);

// Row-major order with `stick` as the stick: consecutive sticks of the last
// dims sit next to each other (innermost first: the stick dim, then d(n-2) ... d0
// without it). Views that merge leading dims alias it where the default does not.
Layout row_major_layout(const std::vector<int64_t>& shape, int stick);
// `base` with logical dim `dim` moved to the outermost position (a slice
// along it then stays one contiguous block).
Layout outermost_layout(const Layout& base, int dim);

// Where a tensor's bytes go in this layout: per logical dim the number of
// memory units (sticks for the stick dim) and the bytes between consecutive
// units, and the whole tensor's size.
struct LayoutGeometry {
  std::vector<int64_t> units;
  std::vector<int64_t> stride;
  int64_t bytes = 0;
};
LayoutGeometry layout_geometry(const std::vector<int64_t>& shape, const Layout& layout, int64_t stick_elems,
                               int64_t elem_bytes);

// "[d1, d2(stick), d0]" for decisions printouts, innermost first.
std::string describe_layout(const Layout& layout);
// torch-spyre's device_size for a shape in this layout (outermost first).
std::vector<int64_t> device_size(const std::vector<int64_t>& shape, const Layout& layout, int64_t stick_elems);

}  // namespace spyre::compiler
