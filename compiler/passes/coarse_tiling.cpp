// Coarse tiling, as torch-spyre does it (wsr/coarse_tile.py, LoopSpec,
// docs/source/compiler/coarse_tiling_loops.md): a model op hinted with
// `coarse_tile` {dim, tiles} (torch-spyre: spyre_hint(num_tiles_per_dim=...))
// runs as `tiles` iterations of an scf.for loop in its bundle, each on one
// tile of its tensors along that dim.
//   - The op's ranges are divided by the tile count before layouts, work
//     division and LX planning: one tile is divided over the cores, and the
//     intermediates its decomposition creates are tile-sized, so LX planning
//     can keep them (a row softmax whose stages spill to HBM untiled runs in
//     LX once tiled).
//   - A graph input is read through a tile-sized copy (identity) inside the
//     loop, as torch-spyre's read copies do; the copy's output is an LX
//     candidate like any intermediate.
//   - The graph inputs and outputs keep their whole buffers: the tensors
//     carry the tile shape plus `tiles`, and each iteration's SDSCs address
//     tile i of them (codegen: symbolic start addresses that bundle.mlir
//     advances by one tile per iteration, backGapCore_ for the rest).
// Supported: tiling an output dim of one op whose tiled operands are graph
// inputs and outputs. Tiling a reduced dim (torch-spyre adds a fill before
// the loop and a combine kernel in it) and loops over chains of ops are
// refused with the reason.

#include <algorithm>

#include "compiler/passes/passes.h"
#include "runtime/error.h"

namespace spyre::compiler {

namespace {

int reads_of(const Graph& g, int tensor) {
  int n = 0;
  for (const Op& op : g.ops) n += static_cast<int>(std::count(op.inputs.begin(), op.inputs.end(), tensor));
  return n;
}

class CoarseTiler {
 public:
  CoarseTiler(Graph& g, size_t op_index) : g_(g), index_(op_index), where_(g.describe(g.ops[op_index])) {}

  // Returns the ops that replace the model op: one copy per tiled graph input, then the op.
  std::vector<Op> run() {
    Op op = g_.ops[index_];
    const int64_t tiles = op.coarse_tile.tiles;
    const Shape& out_shape = g_.tensors[static_cast<size_t>(op.outputs[0])].shape;
    const int rank = static_cast<int>(out_shape.size());
    int dim = op.coarse_tile.dim;
    if (dim < -rank || dim >= rank)
      fail(
          "", where_,
          "coarse_tile.dim " + std::to_string(dim) + " is not a dim of its output (rank " + std::to_string(rank) + ")");
    if (dim < 0) dim += rank;
    const int64_t size = out_shape[static_cast<size_t>(dim)];
    for (int in : op.inputs) {
      const Tensor& t = g_.tensors[static_cast<size_t>(in)];
      if (t.shape.size() != out_shape.size() ||
          (t.shape[static_cast<size_t>(dim)] != size && t.shape[static_cast<size_t>(dim)] != 1)) {
        fail("", where_,
             "coarse tiling over dim " + std::to_string(dim) + ": input '" + t.name + "' " + shape_text(t.shape) +
                 " does not run along it (tiling a reduced dim needs torch-spyre's fill and combine kernels, "
                 "which compile does not produce yet)");
      }
    }
    if (size % tiles != 0)
      fail("", where_,
           "coarse_tile.tiles " + std::to_string(tiles) + " does not divide dim " + std::to_string(dim) +
               " of its output (size " + std::to_string(size) + ")");
    std::vector<Op> ops;
    for (int& in : op.inputs) {
      const Tensor& t = g_.tensors[static_cast<size_t>(in)];
      if (t.shape[static_cast<size_t>(dim)] == 1) continue;  // broadcast along the tiled dim: the same every tile
      if (t.role != Role::Input && t.role != Role::Weight)
        fail("", where_,
             "coarse tiling reads '" + t.name +
                 "', which another op computes: a loop over a chain of "
                 "ops is not compiled yet");
      if (reads_of(g_, in) > 1)
        fail("", where_, "coarse tiling: input '" + t.name + "' is read by other ops too; tile every reader or none");
      tile(in, dim, tiles);
      // The read copy: the tile, copied where the loop's ops read it.
      Tensor copy = g_.tensors[static_cast<size_t>(in)];
      copy.name = g_.unique_name(t.name + ".tile");
      copy.role = Role::Intermediate;
      copy.tiles = 0;
      copy.tile_dim = -1;
      copy.clone_of = in;  // an LX candidate as torch-spyre's read copies are
      const int copied = g_.add_tensor(copy);
      Op read;
      read.type = "clone";
      read.inputs = {in};
      read.outputs = {copied};
      read.origin = where_ + " (tile read copy)";
      read.loop_trips = tiles;
      ops.push_back(read);
      in = copied;
    }
    const int out = op.outputs[0];
    const Tensor& y = g_.tensors[static_cast<size_t>(out)];
    if (y.role != Role::Output || reads_of(g_, out) > 0)
      fail("", where_,
           "coarse tiling writes '" + y.name +
               "', which other ops read: a loop over a chain of ops is "
               "not compiled yet");
    tile(out, dim, tiles);
    op.loop_trips = tiles;
    ops.push_back(op);
    return ops;
  }

 private:
  static std::string shape_text(const Shape& s) {
    std::string text = "[";
    for (size_t i = 0; i < s.size(); ++i) text += (i ? ", " : "") + std::to_string(s[i]);
    return text + "]";
  }

  void tile(int tensor, int dim, int64_t tiles) {
    Tensor& t = g_.tensors[static_cast<size_t>(tensor)];
    t.shape[static_cast<size_t>(dim)] /= tiles;
    t.tiles = tiles;
    t.tile_dim = dim;
  }

  Graph& g_;
  size_t index_;
  std::string where_;
};

}  // namespace

void coarse_tiling(Graph& g) {
  std::vector<Op> ops;
  for (size_t o = 0; o < g.ops.size(); ++o) {
    if (g.ops[o].coarse_tile.tiles <= 1) {
      ops.push_back(g.ops[o]);
      continue;
    }
    for (Op& op : CoarseTiler(g, o).run()) ops.push_back(std::move(op));
  }
  g.ops = std::move(ops);
}

}  // namespace spyre::compiler
