// Layout propagation (torch-spyre's propagate_spyre_tensor_layouts): every
// tensor gets a device layout — which dim forms the 128-byte sticks and the
// order of the rest — so that each op sees the stick it needs:
//   - batchmatmul: A sticks along K, B and C along N (their last dims);
//   - pointwise ops: every operand that spans the output's stick dim sticks
//     along it (the SFU works on whole sticks of all operands at once);
//   - reductions: any stick; the output keeps the input's layout, and a
//     reduction over a non-stick dim becomes the *nonstick op;
//   - exx2 / layernorm ops: stick along the normalized (last) dim;
//   - views: the view's layout is derived from its base, so it reads the same
//     bytes; where no layout of the view says the same bytes, the base is
//     first copied into one that does.
// Layouts are chosen forwards; consumers' wishes are gathered backwards first
// so graph inputs and producers with a free choice pick the layout their
// consumers (through chains of views) want, and need no copy.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>

#include "compiler/ir/iteration_space.h"
#include "compiler/passes/passes.h"
#include "runtime/error.h"

namespace spyre::compiler {

namespace {

std::vector<int> permutation(const Op& op) { return op.attrs.at("dims").get<std::vector<int>>(); }

std::vector<int> inverse(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int>(i);
  return inv;
}

Layout stick_last(const Shape& shape) { return layout_with_stick(shape, static_cast<int>(shape.size()) - 1); }

// A pointwise op's pick among its candidate sticks (op index -> candidate).
using LayoutChoices = std::map<int, size_t>;

class LayoutPass {
 public:
  LayoutPass(Graph& g, bool default_inputs, LayoutChoices choices = {})
      : g_(g),
        choices_(std::move(choices)),
        hint_(g.tensors.size()),
        fixed_(g.tensors.size(), false),
        default_inputs_(default_inputs) {}

  // The pointwise ops that had more than one stick to choose, in order, and
  // how many (after run()).
  const std::vector<std::pair<int, size_t>>& decisions() const { return decisions_; }

  // Elements the noted copies move: torch-spyre's restickify cost (its
  // optimize_restickify sums the copied tensors' sizes).
  static int64_t copied_elements(const Graph& g, const std::vector<LayoutCopy>& copies) {
    int64_t total = 0;
    for (const auto& c : copies) {
      const Op& op = g.ops[static_cast<size_t>(c.op)];
      total += g.tensors[static_cast<size_t>(op.inputs[static_cast<size_t>(c.input)])].elements();
    }
    return total;
  }

  std::vector<LayoutCopy> run() {
    gather_hints();
    for (auto& t : g_.tensors) {
      if (t.role == Role::Input || t.role == Role::Weight || t.role == Role::Constant) {
        const auto& hint = hint_[static_cast<size_t>(&t - g_.tensors.data())];
        t.layout = hint && !default_inputs_ ? *hint : default_layout(t.shape);
      }
    }
    for (size_t o = 0; o < g_.ops.size(); ++o) {
      if (is_view_op(g_.ops[o].type)) {
        lay_out_view(static_cast<int>(o));
      } else {
        lay_out_device_op(static_cast<int>(o));
        // Only qfp8wt writes two-dim sticks; an output following an input's layout keeps one-dim ones.
        Layout& out = tensor(g_.ops[o].outputs[0]).layout;
        if (g_.ops[o].type != "qfp8wt") out.stick_rows = 1;
      }
    }
    return std::move(copies_);
  }

 private:
  Tensor& tensor(int t) { return g_.tensors[static_cast<size_t>(t)]; }

  // The layout a view's output has when its base is laid out as `base`.
  std::optional<Layout> derive_view(const Op& op, const Layout& base) {
    const Tensor& in = tensor(op.inputs[0]);
    const Tensor& out = tensor(op.outputs[0]);
    if (base.stick_rows > 1) return std::nullopt;  // a two-dim stick is read whole (copied into another layout)
    if (op.type == "permute") return permute_layout(base, permutation(op));
    if (op.type == "reshape") return reshape_layout(in.shape, base, out.shape, stick_elems(in.dtype));
    // slice: one contiguous block only when no dim outside `dim` spans memory.
    const int dim = op.attrs.at("dim").get<int>();
    auto it = std::find(base.order.begin(), base.order.end(), dim);
    for (auto after = it + 1; after < base.order.end(); ++after) {
      if (in.shape[static_cast<size_t>(*after)] != 1) return std::nullopt;
    }
    if (dim == base.stick) {
      const int64_t se = stick_elems(in.dtype), start = op.attrs.at("start").get<int64_t>(),
                    end = op.attrs.at("end").get<int64_t>();
      if (start % se != 0 || (end % se != 0 && end != in.shape[static_cast<size_t>(dim)])) return std::nullopt;
    }
    return base;
  }

  // The base layout a view needs for its output to be laid out as `view`.
  std::optional<Layout> inverse_view(const Op& op, const Layout& view) {
    const Tensor& in = tensor(op.inputs[0]);
    const Tensor& out = tensor(op.outputs[0]);
    if (op.type == "permute") return permute_layout(view, inverse(permutation(op)));
    if (op.type == "reshape") return reshape_layout(out.shape, view, in.shape, stick_elems(in.dtype));
    return view;
  }

  void gather_hints() {
    // The host reads outputs in their default layout unless something decides otherwise.
    for (size_t t = 0; t < g_.tensors.size(); ++t) {
      if (g_.tensors[t].role == Role::Output) hint_[t] = default_layout(g_.tensors[t].shape);
    }
    for (auto it = g_.ops.rbegin(); it != g_.ops.rend(); ++it) {
      const Op& op = *it;
      const int out = op.outputs[0];
      if (op.type == "concat") {
        for (int part : op.inputs) {
          hint_[static_cast<size_t>(part)] = concat_layout(op);
          fixed_[static_cast<size_t>(part)] = true;  // a slice of the concat's bytes: no other layout will do
        }
        continue;
      }
      if (is_view_op(op.type)) {
        if (hint_[static_cast<size_t>(out)]) {
          if (auto base = inverse_view(op, *hint_[static_cast<size_t>(out)]))
            hint_[static_cast<size_t>(op.inputs[0])] = base;
        }
        continue;
      }
      const OpInfo* info = device_op_info(op);
      if (op.attrs.contains("gather")) {
        hint_[static_cast<size_t>(op.inputs[0])] = gather_value_layout(op);
        hint_[static_cast<size_t>(op.inputs[1])] =
            layout_with_stick(tensor(op.inputs[1]).shape, op.attrs.value("dim", 0));
      } else if (op.attrs.contains("scatter")) {
        // The copy the scatter writes into shares its bytes: its layout, no other.
        const int d = op.attrs.at("dim").get<int>();
        hint_[static_cast<size_t>(op.inputs[0])] = stick_last(tensor(op.inputs[0]).shape);
        hint_[static_cast<size_t>(op.inputs[1])] = layout_with_stick(tensor(op.inputs[1]).shape, d);
        hint_[static_cast<size_t>(op.inputs[2])] = indirect_value_layout(tensor(out).shape, d);
        fixed_[static_cast<size_t>(op.inputs[2])] = true;
      } else if (info->windowed) {
        for (size_t i = 0; i < op.inputs.size(); ++i) hint_[static_cast<size_t>(op.inputs[i])] = windowed_layout(op, i);
      } else if (info->kind == OpKind::Matmul) {
        for (int in : op.inputs) hint_[static_cast<size_t>(in)] = stick_last(tensor(in).shape);
      } else if (op.type == "exx2" || op.type == "exx2_zeromean" || op.type == "layernormnorm") {
        hint_[static_cast<size_t>(op.inputs[0])] = stick_last(tensor(op.inputs[0]).shape);
      } else if (info->kind != OpKind::Reduction && hint_[static_cast<size_t>(out)]) {
        for (int in : op.inputs) {
          if (tensor(in).shape == tensor(out).shape) hint_[static_cast<size_t>(in)] = hint_[static_cast<size_t>(out)];
        }
      }
    }
  }

  // Layouts to try for a base a view cannot alias as it is.
  std::vector<Layout> base_candidates(int t, const Op& view) {
    const Tensor& in = tensor(t);
    std::vector<Layout> c;
    if (hint_[static_cast<size_t>(t)]) c.push_back(*hint_[static_cast<size_t>(t)]);
    std::vector<int> sticks = {in.layout.stick, static_cast<int>(in.shape.size()) - 1};
    for (int d = 0; d < static_cast<int>(in.shape.size()); ++d) sticks.push_back(d);
    for (int s : sticks) {
      for (const Layout& l : {layout_with_stick(in.shape, s), row_major_layout(in.shape, s)}) {
        c.push_back(l);
        if (view.type == "slice") c.push_back(outermost_layout(l, view.attrs.at("dim").get<int>()));
      }
    }
    return c;
  }

  // A concat's output layout: the one its consumers want (the default for a
  // graph output), with the concatenated dim moved outermost so that each
  // part is one block of its bytes.
  // When the dim is that layout's stick and a part other than the last ends
  // inside a stick, the output sticks along the first other dim that fills
  // whole sticks instead (its copies then read their inputs restickified).
  Layout concat_layout(const Op& op) {
    const Tensor& out = tensor(op.outputs[0]);
    const auto& hint = hint_[static_cast<size_t>(op.outputs[0])];
    const int dim = op.attrs.at("dim").get<int>();
    Layout base = hint ? *hint : default_layout(out.shape);
    const int64_t se = stick_elems(out.dtype);
    bool aligned = true;
    for (size_t i = 0; i + 1 < op.inputs.size(); ++i)
      aligned &= tensor(op.inputs[i]).shape[static_cast<size_t>(dim)] % se == 0;
    if (base.stick == dim && !aligned) {
      for (int d = 0; d < static_cast<int>(out.shape.size()); ++d) {
        if (d != dim && out.shape[static_cast<size_t>(d)] % se == 0) {
          base = layout_with_stick(out.shape, d);
          break;
        }
      }
    }
    return outermost_layout(base, dim);
  }

  // The parts were laid out by their copies as the hint asked: the output
  // takes that layout. Along the stick dim every part but the last must
  // fill whole sticks (its slice starts on a stick boundary).
  void lay_out_concat(int o) {
    const Op& op = g_.ops[static_cast<size_t>(o)];
    Tensor& out = tensor(op.outputs[0]);
    const Layout layout = concat_layout(op);
    const int dim = op.attrs.at("dim").get<int>();
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const Tensor& part = tensor(op.inputs[i]);
      if (part.layout != layout)
        fail("", g_.describe(op), "internal: part '" + part.name + "' is not laid out as the output it is a slice of");
      const int64_t n = part.shape[static_cast<size_t>(dim)];
      if (dim == layout.stick && i + 1 < op.inputs.size() && n % stick_elems(part.dtype) != 0)
        fail("", g_.describe(op),
             "along the stick dim every input but the last must fill whole sticks of " +
                 std::to_string(stick_elems(part.dtype)) + " elements (input " + std::to_string(i) + " has " +
                 std::to_string(n) + "), or another dim must, to stick along instead");
    }
    out.layout = layout;
  }

  void lay_out_view(int o) {
    const Op& op = g_.ops[static_cast<size_t>(o)];
    if (op.type == "concat") return lay_out_concat(o);
    Tensor& out = tensor(op.outputs[0]);
    if (auto l = derive_view(op, tensor(op.inputs[0]).layout)) {
      out.layout = *l;
      return;
    }
    for (const Layout& candidate : base_candidates(op.inputs[0], op)) {
      if (auto l = derive_view(op, candidate)) {
        copies_.push_back({o, 0, candidate});
        out.layout = *l;
        return;
      }
    }
    fail("", g_.describe(op),
         "no device layout of '" + tensor(op.inputs[0]).name + "' lets this " + op.type + " read the same bytes");
  }

  // The dim a reduction with no form within sticks (prod) makes its input
  // stick along when it reduces the stick dim: as torch-spyre's
  // propagate_layouts, the first other dim whose size fills whole sticks.
  int nonstick_dim(const Op& op, int reduced) {
    const Tensor& in = tensor(op.inputs[0]);
    for (int d = 0; d < static_cast<int>(in.shape.size()); ++d) {
      if (d != reduced && in.shape[static_cast<size_t>(d)] % stick_elems(in.dtype) == 0) return d;
    }
    fail("", g_.describe(op),
         "the backend reduces only a non-stick dim with " + op.type + " (it has no " + op.type +
             " within sticks), and no dim of " + in.name + " but the reduced one is a multiple of " +
             std::to_string(stick_elems(in.dtype)) + " elements to stick along");
  }

  // An indirectly accessed tensor (a gather's table, a scatter's result): the
  // dim its index runs along outermost, each row one block of sticks.
  static Layout indirect_value_layout(const Shape& shape, int dim) { return outermost_layout(stick_last(shape), dim); }
  Layout gather_value_layout(const Op& op) {
    return indirect_value_layout(tensor(op.inputs[0]).shape, op.attrs.value("dim", 0));
  }

  // A windowed op's operands stick along the channels (torch-spyre's conv and
  // pool layouts): the input [N, C, H, W] along C, a weight along its first
  // dim (conv2d's output channels, a depthwise conv's channels).
  Layout windowed_layout(const Op& op, size_t i) {
    const Shape& shape = tensor(op.inputs[i]).shape;
    return layout_with_stick(shape, i == 0 ? 1 : 0);
  }

  // Makes input `i` of op `o` laid out as `target` (a copy unless it is).
  void require_layout(int o, size_t i, const Layout& target) {
    if (tensor(g_.ops[static_cast<size_t>(o)].inputs[i]).layout != target)
      copies_.push_back({o, static_cast<int>(i), target});
  }

  // require_layout, returning the layout.
  Layout require_layout_of(int o, size_t i, const Layout& target) {
    require_layout(o, i, target);
    return target;
  }

  // Makes input `i` of op `o` stick along its dim `dim`; returns its layout.
  Layout require_stick(int o, size_t i, int dim) {
    const int t = g_.ops[static_cast<size_t>(o)].inputs[i];
    const Tensor& in = tensor(t);
    if (in.layout.stick == dim) return in.layout;
    const auto& hint = hint_[static_cast<size_t>(t)];
    Layout target = hint && hint->stick == dim ? *hint : layout_with_stick(in.shape, dim);
    copies_.push_back({o, static_cast<int>(i), target});
    return target;
  }

  void lay_out_device_op(int o) {
    Op& op = g_.ops[static_cast<size_t>(o)];
    const OpInfo* info = device_op_info(op);
    if (!info) fail("", g_.describe(op), "unknown device op '" + op.type + "'");
    Tensor& out = tensor(op.outputs[0]);
    const auto& out_hint = hint_[static_cast<size_t>(op.outputs[0])];
    const int last = static_cast<int>(out.shape.size()) - 1;

    if (op.attrs.contains("gather")) {
      // The table with its rows outermost, each row one block of sticks
      // (torch-spyre's enforce_indirect_access_layout); the index sticking
      // along its elements (32 per stick).
      require_layout(o, 0, gather_value_layout(op));
      require_layout(o, 1, layout_with_stick(tensor(op.inputs[1]).shape, op.attrs.value("dim", 0)));
      out.layout = out_hint && out_hint->stick == last ? *out_hint : stick_last(out.shape);
      return;
    }
    if (op.attrs.contains("scatter")) {
      // The rows written through the index and the copy they land in as a
      // gather's table (torch-spyre's enforce_indirect_access_layout for a
      // scatter's destination); the copy already has it (its hint is fixed).
      const int d = op.attrs.at("dim").get<int>();
      out.layout = indirect_value_layout(out.shape, d);
      require_layout(o, 0, stick_last(tensor(op.inputs[0]).shape));
      require_layout(o, 1, layout_with_stick(tensor(op.inputs[1]).shape, d));
      if (tensor(op.inputs[2]).layout != out.layout)
        fail("", g_.describe(op), "internal: the copy a scatter writes into is not in the scatter's layout");
      return;
    }
    if (info->windowed) {
      // Any order: the windows read through the strides.
      for (size_t i = 0; i < op.inputs.size(); ++i) require_stick(o, i, windowed_layout(op, i).stick);
      out.layout = out_hint && out_hint->stick == 1 ? *out_hint : layout_with_stick(out.shape, 1);
      return;
    }
    if (info->kind == OpKind::Matmul) {
      for (size_t i = 0; i < 2; ++i) require_stick(o, i, static_cast<int>(tensor(op.inputs[i]).shape.size()) - 1);
      out.layout = out_hint && out_hint->stick == last ? *out_hint : stick_last(out.shape);
      return;
    }
    if (info->kind == OpKind::Reduction) {
      const int dim = op.attrs.at("dim").get<int>();
      const bool normalizes = info->reduce == ReduceOp::Exx2 || info->reduce == ReduceOp::Exx2ZeroMean;
      Layout in = normalizes ? require_stick(o, 0, dim) : tensor(op.inputs[0]).layout;
      if (info->nonstick_only && in.stick == dim) in = require_stick(o, 0, nonstick_dim(op, dim));
      out.layout = in;  // same order and stick; the reduced dim has size 1
      if (!normalizes && !info->nonstick_only && in.stick != dim) {
        if (info->nonstick_form.empty())
          fail("", g_.describe(op),
               info->name + " over a non-stick dim has no form in the op registry (nonstick_form)");
        op.type = info->nonstick_form;
      }
      return;
    }
    if (info->kind == OpKind::TopK) {
      // torch-spyre's _topk_layouts: the output keeps the input's order, k in
      // the searched dim's place; it sticks where the input does unless that
      // is the searched dim, then along another dim (the hint's, else the
      // innermost other): never along k, which the cores split.
      const int dim = op.attrs.at("dim").get<int>();
      const Layout in = tensor(op.inputs[0]).layout;
      if (in.stick != dim) {
        out.layout = in;
      } else if (out_hint && out_hint->stick != dim) {
        out.layout = *out_hint;
      } else {
        out.layout = layout_with_stick(out.shape, dim == last ? last - 1 : last);
      }
      return;
    }
    if (op.type == "layernormscale") {
      out.layout = tensor(op.inputs[0]).layout;
      return;
    }
    if (op.type == "qfp8wt") {
      // torch-spyre's _qfp8wt_stl: a weight [K, N] (row-major, N the stick)
      // in QFP8WT sticks, each two rows of K with 64 elements of N.
      // (torch-spyre's generic layout of a 2-D tensor, kept when a dim is 1.)
      Layout wt = require_layout_of(o, 0, Layout{{0, 1}, 1});
      wt.stick_rows = 2;
      out.layout = wt;
      return;
    }
    // Pointwise: pick the output's stick dim S, then make every operand that
    // spans S stick along it.
    const size_t n = out.shape.size();
    // In order of preference: the consumers' stick, the first full-shape
    // input's, the last dim, then the other full-shape inputs' (which only a
    // search, LayoutChoices, picks).
    std::vector<int> candidates;
    if (out_hint) candidates.push_back(out_hint->stick);
    for (int t : op.inputs) {
      if (tensor(t).shape == out.shape) {
        candidates.push_back(tensor(t).layout.stick);
        break;
      }
    }
    candidates.push_back(last);
    for (int t : op.inputs) {
      if (tensor(t).shape == out.shape) candidates.push_back(tensor(t).layout.stick);
    }
    std::vector<int> fitting;
    for (int s : candidates) {
      if (stick_fits(op, s, n) && std::find(fitting.begin(), fitting.end(), s) == fitting.end()) fitting.push_back(s);
    }
    // A concat's part takes the concat's layout (the consumers' stick): no choice.
    if (fixed_[static_cast<size_t>(op.outputs[0])] && !fitting.empty()) fitting.resize(1);
    if (fitting.size() > 1) decisions_.push_back({o, fitting.size()});
    const auto chosen = choices_.find(o);
    if (chosen != choices_.end() && chosen->second < fitting.size()) fitting = {fitting[chosen->second]};
    for (int s : fitting) {
      std::optional<Layout> full_shape_input;
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const Tensor& in = tensor(op.inputs[i]);
        const int j = s - static_cast<int>(n - in.shape.size());
        if (j < 0) continue;  // lacks S: its stick spans nothing (checked by stick_fits)
        const bool trivially =
            in.shape[static_cast<size_t>(in.layout.stick)] == 1 && in.shape[static_cast<size_t>(j)] == 1;
        const Layout l = trivially ? in.layout : require_stick(o, i, j);
        if (!full_shape_input && in.shape == out.shape) full_shape_input = l;
      }
      if (out_hint && out_hint->stick == s) {
        out.layout = *out_hint;
      } else {
        out.layout = full_shape_input ? *full_shape_input : layout_with_stick(out.shape, s);
      }
      return;
    }
    fail("", g_.describe(op), "its operands cannot share a stick dimension");
  }

  // An operand without output dim `s` (rank-extended) must not span its own stick.
  bool stick_fits(const Op& op, int s, size_t n) {
    for (int t : op.inputs) {
      const Tensor& in = tensor(t);
      if (s - static_cast<int>(n - in.shape.size()) < 0 && in.shape[static_cast<size_t>(in.layout.stick)] != 1)
        return false;
    }
    return true;
  }

  Graph& g_;
  LayoutChoices choices_;
  std::vector<std::pair<int, size_t>> decisions_;  // pointwise ops with a choice: (op, candidates)
  std::vector<std::optional<Layout>> hint_;
  std::vector<bool> fixed_;  // the hint is a must (a concat's part), not a wish
  bool default_inputs_;      // graph inputs, weights and constants arrive in the default layout
  std::vector<LayoutCopy> copies_;
};

// With inputs in the default layout a graph's transposed reads conflict, and
// which ops restickify decides the cost. As torch-spyre's optimize_restickify,
// a beam search over the pointwise ops' stick choices for the fewest copied
// elements; each partial choice is scored by finishing the pass greedily. The
// search is bounded (kSearchOps x kSearchDecisions); a larger graph keeps the
// greedy choices (consumers' stick first).
constexpr size_t kBeamWidth = 8, kSearchOps = 2000, kSearchDecisions = 64;

struct LayoutTrial {
  LayoutChoices choices;
  int64_t cost;
  std::vector<std::pair<int, size_t>> decisions;
};

// A choice no layout can follow (an operand that then cannot be read) costs
// more than any that can.
LayoutTrial try_layouts(const Graph& graph, const LayoutChoices& choices) {
  Graph trial = graph;
  LayoutPass pass(trial, true, choices);
  try {
    const auto copies = pass.run();
    return {choices, LayoutPass::copied_elements(trial, copies), pass.decisions()};
  } catch (const SpyreError&) {
    return {choices, INT64_MAX, pass.decisions()};
  }
}

LayoutChoices search_choices(const Graph& graph) {
  if (graph.ops.size() > kSearchOps) return {};
  const LayoutTrial greedy = try_layouts(graph, {});
  if (greedy.decisions.empty() || greedy.decisions.size() > kSearchDecisions) return {};
  std::vector<LayoutTrial> beam = {greedy};
  for (const auto& [op, count] : greedy.decisions) {
    std::vector<LayoutTrial> next;
    for (const auto& state : beam) {
      for (size_t c = 0; c < count; ++c) {
        LayoutChoices choices = state.choices;
        choices[op] = c;
        next.push_back(try_layouts(graph, choices));
      }
    }
    std::stable_sort(next.begin(), next.end(),
                     [](const LayoutTrial& a, const LayoutTrial& b) { return a.cost < b.cost; });
    if (next.size() > kBeamWidth) next.resize(kBeamWidth);
    beam = std::move(next);
  }
  return beam.front().cost < greedy.cost ? beam.front().choices : LayoutChoices{};
}

}  // namespace

void propagate_layouts(Graph& graph, bool default_input_layouts) {
  LayoutChoices choices = default_input_layouts ? search_choices(graph) : LayoutChoices{};
  graph.layout_copies = LayoutPass(graph, default_input_layouts, std::move(choices)).run();
}

}  // namespace spyre::compiler
