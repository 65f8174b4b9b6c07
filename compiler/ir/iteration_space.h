#pragma once
// The iteration space of a device op (one SuperDSC): its loop dimensions with
// torch-spyre's labels and sizes, and how every operand's dimensions run along
// them. Work division, span reduction and codegen all read it.
//
// Labels follow torch-spyre's codegen: pointwise ops and reductions iterate
// over the output (input for reductions) dims labelled mb, x, y, i, j, ki, kj
// with the last dim "out"; batchmatmul labels its dims ... y, x, mb (M), out
// (N), in (K), batch dims outermost.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "runtime/op_registry.h"

namespace spyre::compiler {

// View ops alias their input's bytes; every other device op is an SDSC.
bool is_view_op(const std::string& type);
// The catalog entry of a device op; nullptr for views.
const OpInfo* device_op_info(const Op& op);

struct IterDim {
  std::string label;
  int64_t size = 1;        // N_: the padded size when the dim is split over padded sticks (below)
  bool reduction = false;  // reduced (reductions) or contracted (matmul K)
  // Elements per stick when the dim is the stick dim of every operand that
  // spans it and is not reduced, else 0. Such a dim may be split into whole
  // sticks even when its last stick is partial: as torch-spyre, the split
  // counts the padded sticks and N_ holds the padded size, the padding
  // computed and written like the rest (a reduced padded stick dim would need
  // coordinate masking across cores, which the backend cannot do: one unit).
  int64_t stick_elems = 0;
};

struct Operand {
  int tensor = -1;
  bool output = false;
  std::vector<int> iter_of;  // per tensor dim: the iteration dim it runs along
  // Per tensor dim: the window (IterationSpace::windows) it is read through,
  // or -1. A windowed op's input runs along the output-spatial dim at the
  // window's stride and along its window dim: its extent is the input's, not N_'s.
  std::vector<int> window;
  int window_of(size_t dim) const { return window.empty() ? -1 : window[dim]; }
};

// A windowed op's (conv2d, depthwiseconv2dnative, avgpoolfwd) output-spatial
// dim and the window dim its input coordinate adds: dim * stride +
// window_dim * dilation (codegen's N_.paddingSizes_).
struct IterWindow {
  int dim = -1, window_dim = -1;
  int64_t stride = 1, dilation = 1;
  // Input elements `outputs` consecutive outputs read with a window of `window`.
  int64_t span(int64_t outputs, int64_t window) const { return (outputs - 1) * stride + (window - 1) * dilation + 1; }
};

enum class DimScaleKind { Normal = 1, Broadcast = -1, BroadcastStick = -2 };

struct IterationSpace {
  std::vector<IterDim> dims;      // N_ order
  std::vector<Operand> operands;  // labeledDs_ order: inputs, then the output
  std::vector<IterWindow> windows;
  int find(const std::string& label) const;
};

IterationSpace iteration_space(const Graph& graph, const Op& op);

// scale_ of operand o's tensor dim j: broadcast where the tensor has size 1
// but the iteration dim does not.
DimScaleKind operand_scale(const Graph& g, const IterationSpace& space, const Operand& o, int j);

// Per iteration dim: the count of units a split may divide — sticks when the
// dim is the stick of an operand that spans it (using the largest
// elements-per-stick among those operands), elements otherwise. A stick dim
// that is not a whole number of sticks counts its padded sticks when it may be
// split over them (IterDim::stick_elems), else it is one unit: it cannot be split.
std::vector<int64_t> split_units(const Graph& graph, const IterationSpace& space);
// Per iteration dim, why no work division may divide it ("" when one may):
// a window's dims, and a two-dim stick's row dim. split_units gives such a
// dim one unit.
std::vector<std::string> undivided_dims(const Graph& graph, const IterationSpace& space);

// Elements of an iteration dim each core works on under `slices` (a dim split
// over padded sticks: whole sticks, the padding in the last core's).
int64_t per_core_elems(const IterDim& dim, int64_t slices);

// The part of an operand's tensor one core works on: per tensor dim, the
// first element and the extent (a broadcast dim: 0 and the tensor's size).
struct CoreView {
  std::vector<int64_t> origin, extent;
  bool operator==(const CoreView& o) const { return origin == o.origin && extent == o.extent; }
};
// Per core (0 .. cores-1): the view of the operand under the op's splits
// (core -> slice index in N_ order, first dim fastest, as codegen numbers them).
std::vector<CoreView> core_views(const Graph& graph, const Op& op, const IterationSpace& space, const Operand& operand);

// Per-core byte span of an operand under the given slices per iteration dim:
// from its first to its last stick, plus that stick.
int64_t per_core_span(const Graph& graph, const IterationSpace& space, const Operand& operand,
                      const std::vector<int64_t>& slices);

}  // namespace spyre::compiler
