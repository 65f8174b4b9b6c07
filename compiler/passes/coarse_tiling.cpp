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
//   - Tiling the dim a sum, prod, amax or amin reduces (torch-spyre's flat
//     reduction tiling): a fill (identity of a constant: the reduction's
//     identity value) initializes the output before the loop; each
//     iteration reduces its tile into a partial and a combine (add, mul,
//     maximum, minimum) folds it into the output in place (Tensor::accumulates_into).
//   - Consecutive ops hinted alike form one loop (torch-spyre groups them
//     into one LoopSpec: its chain `(a + b) * c` and a softmax written out
//     op by op): what one computes and only later ones read is a tile-sized
//     intermediate of the iteration, and a graph input several of them read
//     is read through one copy.
// Supported: ops whose tiled operands are graph inputs and outputs or the
// chain's own intermediates; the hint's dim is a dim of each op's first
// input. Tiling the stick dim, the tiled dim reduced inside a chain of
// several ops, and other reductions over the tiled dim are refused with the
// reason.

#include <algorithm>
#include <limits>
#include <map>

#include "compiler/ir/model_ops.h"
#include "compiler/passes/passes.h"
#include "runtime/error.h"
#include "runtime/numerics.h"

namespace spyre::compiler {

namespace {

int reads_of(const Graph& g, int tensor) {
  int n = 0;
  for (const Op& op : g.ops) n += static_cast<int>(std::count(op.inputs.begin(), op.inputs.end(), tensor));
  return n;
}

// The ops of one loop: [begin, end) of the graph's ops, and the read copies
// its graph inputs got (input -> copy).
struct LoopChain {
  size_t begin = 0, end = 0;
  std::map<int, int> copies;
};

class CoarseTiler {
 public:
  CoarseTiler(Graph& g, size_t op_index, LoopChain& chain)
      : g_(g), index_(op_index), chain_(chain), where_(g.describe(g.ops[op_index])) {}

  // The ops that replace the model op, in order.
  std::vector<Op> run() {
    op_ = g_.ops[index_];
    tiles_ = op_.coarse_tile.tiles;
    if (op_.inputs.empty()) fail("", where_, "coarse tiling needs an op with an input to tile");
    if (const ModelOp* m = find_model_op(op_.type); m && m->kind == ModelOpKind::Cat)
      fail("", where_, "coarse tiling of " + op_.type + " is not compiled (its inputs are copied into slices)");
    const Shape& in_shape = g_.tensors[static_cast<size_t>(op_.inputs[0])].shape;
    const int rank = static_cast<int>(in_shape.size());
    dim_ = op_.coarse_tile.dim;
    if (dim_ < -rank || dim_ >= rank)
      fail(
          "", where_,
          "coarse_tile.dim " + std::to_string(dim_) + " is not a dim of its input (rank " + std::to_string(rank) + ")");
    if (dim_ < 0) dim_ += rank;
    size_ = in_shape[static_cast<size_t>(dim_)];
    if (size_ % tiles_ != 0)
      fail("", where_,
           "coarse_tile.tiles " + std::to_string(tiles_) + " does not divide dim " + std::to_string(dim_) +
               " of its input (size " + std::to_string(size_) + ")");
    if (already_tiled(op_.inputs[0])) size_ *= tiles_;  // a tile of the whole
    const ModelOp* m = find_model_op(op_.type);
    if (m && m->kind == ModelOpKind::Reduction &&
        reduction_dims(op_.attrs, in_shape.size(), where_) == std::vector<int>{dim_}) {
      if (chain_.end - chain_.begin > 1)
        fail("", where_, "coarse tiling of the dim " + op_.type + " reduces inside a chain of ops is not compiled yet");
      return tile_reduced_dim();
    }
    return tile_output_dim();
  }

 private:
  // The tiled dim runs through the op: every operand along it is tiled.
  std::vector<Op> tile_output_dim() {
    const Shape& out_shape = g_.tensors[static_cast<size_t>(op_.outputs[0])].shape;
    for (int in : op_.inputs) {
      const Tensor& t = g_.tensors[static_cast<size_t>(in)];
      const int64_t along = t.shape.size() == out_shape.size()
                                ? t.shape[static_cast<size_t>(dim_)] * (already_tiled(in) ? tiles_ : 1)
                                : -1;
      if (out_shape[static_cast<size_t>(dim_)] != size_ || (along != size_ && along != 1)) {
        fail("", where_,
             "coarse tiling over dim " + std::to_string(dim_) + ": '" + t.name + "' " + shape_text(t.shape) +
                 " and the output " + shape_text(out_shape) + " do not both run along it");
      }
    }
    std::vector<Op> ops;
    for (int& in : op_.inputs) {
      // An operand of size 1 along the tiled dim is the same for every tile;
      // the chain's own intermediates are tiles already.
      if (produced_in_chain(in)) continue;
      if (chain_.copies.count(in) || g_.tensors[static_cast<size_t>(in)].shape[static_cast<size_t>(dim_)] == size_)
        in = read_copy(in, ops);
    }
    tile_output(op_.outputs[0]);
    op_.loop_trips = tiles_;
    ops.push_back(op_);
    return ops;
  }

  // The tiled dim is the one the op reduces (torch-spyre's flat reduction
  // tiling): a fill writes the reduction's identity into the output before
  // the loop; each iteration reduces its tile into a partial result and a
  // combine op adds it into the output in place.
  std::vector<Op> tile_reduced_dim() {
    // The combine and the fill's identity value per reduction (torch-spyre's
    // _insert_combine_op); the format's largest finite value stands for
    // infinity (fp32 tensors compute in IEEE fp32, the others in DLFloat16).
    const DType dtype = g_.tensors[static_cast<size_t>(op_.outputs[0])].dtype;
    const float largest = dtype == DType::F32 ? std::numeric_limits<float>::max() : kDl16Max;
    const std::map<std::string, std::pair<std::string, float>> combines = {{"sum", {"add", 0.0f}},
                                                                           {"prod", {"mul", 1.0f}},
                                                                           {"amax", {"maximum", -largest}},
                                                                           {"amin", {"minimum", largest}}};
    const auto combine = combines.find(op_.type);
    if (combine == combines.end())
      fail("", where_,
           "coarse tiling of the dim " + op_.type + " reduces is not compiled yet (sum, prod, amax, amin are)");
    const int out = op_.outputs[0];
    check_output(out);
    std::vector<Op> ops;
    // Fill: the identity value, broadcast over the output (torch-spyre: an
    // identity of a constant scalar), into a tensor that shares its bytes.
    Tensor identity;
    identity.name = g_.unique_name(g_.tensors[static_cast<size_t>(out)].name + ".fill_value");
    identity.shape = {1};
    identity.dtype = g_.tensors[static_cast<size_t>(out)].dtype;
    identity.role = Role::Constant;
    identity.value = combine->second.second;
    const int identity_id = g_.add_tensor(identity);
    const int seed = add_like(out, ".accumulator");
    g_.tensors[static_cast<size_t>(seed)].accumulates_into = out;
    ops.push_back(loop_op("clone", {identity_id}, seed, 0, " (coarse tile fill)"));
    // The loop: read copy, the op on the tile into a partial, the combine.
    op_.inputs[0] = read_copy(op_.inputs[0], ops);
    const int partial = add_like(out, ".partial");
    op_.outputs = {partial};
    op_.loop_trips = tiles_;
    ops.push_back(op_);
    ops.push_back(loop_op(combine->second.first, {seed, partial}, out, tiles_, " (coarse tile combine)"));
    return ops;
  }

  // A tiled graph input, read through a tile-sized copy inside the loop, as
  // torch-spyre's read copies are; returns the copy.
  int read_copy(int in, std::vector<Op>& ops) {
    if (auto copied = chain_.copies.find(in); copied != chain_.copies.end()) return copied->second;
    const Tensor& t = g_.tensors[static_cast<size_t>(in)];
    if (t.role != Role::Input && t.role != Role::Weight)
      fail("", where_,
           "coarse tiling reads '" + t.name +
               "', which an op outside its loop computes: hint that op alike (one loop) or tile neither");
    if (reads_of(g_, in) > reads_in_chain(in))
      fail("", where_,
           "coarse tiling: input '" + t.name + "' is read by ops outside the loop too; tile every reader or none");
    tile(in);
    const int copy = add_like(in, ".tile");
    g_.tensors[static_cast<size_t>(copy)].clone_of = in;  // an LX candidate, as torch-spyre's read copies are
    ops.push_back(loop_op("clone", {in}, copy, tiles_, " (tile read copy)"));
    chain_.copies[in] = copy;
    return copy;
  }

  void tile_output(int out) {
    const Tensor& y = g_.tensors[static_cast<size_t>(out)];
    if (y.role == Role::Intermediate && reads_of(g_, out) > 0 && reads_of(g_, out) == reads_in_chain(out)) {
      // Read by later ops of the loop alone: one iteration's tile.
      g_.tensors[static_cast<size_t>(out)].shape[static_cast<size_t>(dim_)] /= tiles_;
      return;
    }
    check_output(out);
    tile(out);
  }

  // Tiled by an earlier op of the loop: its output, or an input it read
  // through a copy (the tensor has the tile's shape already).
  bool already_tiled(int tensor) const { return produced_in_chain(tensor) || chain_.copies.count(tensor) > 0; }

  // An output of an earlier op of the loop.
  bool produced_in_chain(int tensor) const {
    for (size_t k = chain_.begin; k < index_; ++k) {
      const auto& outs = g_.ops[k].outputs;
      if (std::find(outs.begin(), outs.end(), tensor) != outs.end()) return true;
    }
    return false;
  }

  // Reads of `tensor` by the loop's ops.
  int reads_in_chain(int tensor) const {
    int n = 0;
    for (size_t k = chain_.begin; k < chain_.end; ++k)
      n += static_cast<int>(std::count(g_.ops[k].inputs.begin(), g_.ops[k].inputs.end(), tensor));
    return n;
  }

  void check_output(int out) const {
    const Tensor& y = g_.tensors[static_cast<size_t>(out)];
    if (y.role == Role::Output && reads_of(g_, out) > 0 && reads_of(g_, out) == reads_in_chain(out))
      fail("", where_,
           "coarse tiling: '" + y.name + "' is a graph output that later ops of its loop read: not compiled yet");
    if (y.role != Role::Output || reads_of(g_, out) > 0)
      fail("", where_,
           "coarse tiling writes '" + y.name +
               "', which ops outside its loop read: hint them alike (one loop) or tile none");
  }

  // A new intermediate with the shape and dtype of `like`, named after it.
  int add_like(int like, const std::string& suffix) {
    Tensor t = g_.tensors[static_cast<size_t>(like)];
    t.name = g_.unique_name(t.name + suffix);
    t.role = Role::Intermediate;
    t.tiles = 0;
    t.tile_dim = -1;
    return g_.add_tensor(t);
  }

  Op loop_op(const std::string& type, std::vector<int> inputs, int output, int64_t trips,
             const std::string& what) const {
    Op op;
    op.type = type;
    op.inputs = std::move(inputs);
    op.outputs = {output};
    op.origin = where_ + what;
    op.loop_trips = trips;
    return op;
  }

  static std::string shape_text(const Shape& s) {
    std::string text = "[";
    for (size_t i = 0; i < s.size(); ++i) text += (i ? ", " : "") + std::to_string(s[i]);
    return text + "]";
  }

  void tile(int tensor) {
    Tensor& t = g_.tensors[static_cast<size_t>(tensor)];
    t.shape[static_cast<size_t>(dim_)] /= tiles_;
    t.tiles = tiles_;
    t.tile_dim = dim_;
  }

  Graph& g_;
  size_t index_;
  LoopChain& chain_;
  std::string where_;
  Op op_;
  int64_t tiles_ = 0;
  int dim_ = 0;
  int64_t size_ = 0;
};

}  // namespace

void coarse_tiling(Graph& g) {
  std::vector<Op> ops;
  for (size_t o = 0; o < g.ops.size();) {
    const Op::CoarseTile hint = g.ops[o].coarse_tile;
    if (hint.tiles <= 1) {
      ops.push_back(g.ops[o++]);
      continue;
    }
    // The ops hinted alike that follow it: one loop.
    LoopChain chain{o, o + 1, {}};
    while (chain.end < g.ops.size() && g.ops[chain.end].coarse_tile.tiles == hint.tiles &&
           g.ops[chain.end].coarse_tile.dim == hint.dim)
      ++chain.end;
    for (size_t k = chain.begin; k < chain.end; ++k) {
      for (Op& op : CoarseTiler(g, k, chain).run()) {
        if (op.loop_trips > 0) op.loop_group = static_cast<int>(chain.begin);
        ops.push_back(std::move(op));
      }
    }
    o = chain.end;
  }
  g.ops = std::move(ops);
}

}  // namespace spyre::compiler
