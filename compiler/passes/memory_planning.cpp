// Memory planning: which HBM bytes each tensor occupies, and which bundle
// launches each op.
//   - Views own no bytes: they point into their storage tensor at an offset
//     (a concat's parts into its output).
//   - Arguments placement (default, like torch-spyre's runtime): every tensor
//     the host sees (inputs, weights, outputs) is its own buffer, bound to an
//     argument segment of each bundle that uses it; intermediates and
//     constants share one pool buffer.
//   - Packed placement: every tensor in one buffer, one after another (the
//     seed's abs example places input and output this way).
// Offsets are 128-byte aligned, in order of first use. A bundle binds at most
// max_arguments buffers (segment 7 holds the program), so ops are cut into
// consecutive bundles where the next op would need more.

#include <algorithm>
#include <set>

#include "compiler/ir/iteration_space.h"
#include "compiler/passes/passes.h"
#include "runtime/error.h"

namespace spyre::compiler {

namespace {

int64_t storage_bytes(const Tensor& t) {
  const int64_t se = stick_elems(t.dtype);
  return layout_geometry(t.full_shape(), t.layout, se, kStickBytes / se).bytes;
}

void resolve_views(Graph& g) {
  for (auto& t : g.tensors) {
    t.storage = -1;
    t.view_offset = 0;
  }
  for (auto& t : g.tensors) {
    if (t.accumulates_into >= 0) t.storage = t.accumulates_into;
  }
  for (const Op& op : g.ops) {
    if (!is_view_op(op.type)) continue;
    if (op.type == "concat") {
      // The other way round: each part is a view of the output, at its
      // offset along the dim (outermost in the output's layout).
      const Tensor& whole = g.tensors[static_cast<size_t>(op.outputs[0])];
      const int dim = op.attrs.at("dim").get<int>();
      const int64_t se = stick_elems(whole.dtype);
      const LayoutGeometry geo = layout_geometry(whole.shape, whole.layout, se, kStickBytes / se);
      int64_t start = 0;
      for (int p : op.inputs) {
        Tensor& part = g.tensors[static_cast<size_t>(p)];
        part.storage = g.storage_of(op.outputs[0]);
        part.view_offset =
            whole.view_offset + start / whole.layout.per_unit(dim, se) * geo.stride[static_cast<size_t>(dim)];
        start += part.shape[static_cast<size_t>(dim)];
      }
      continue;
    }
    const Tensor& in = g.tensors[static_cast<size_t>(op.inputs[0])];
    Tensor& out = g.tensors[static_cast<size_t>(op.outputs[0])];
    out.storage = g.storage_of(op.inputs[0]);
    out.view_offset = in.view_offset;
    if (op.type == "slice") {
      const int dim = op.attrs.at("dim").get<int>();
      const int64_t se = stick_elems(in.dtype), start = op.attrs.at("start").get<int64_t>();
      const LayoutGeometry geo = layout_geometry(in.shape, in.layout, se, kStickBytes / se);
      out.view_offset += start / in.layout.per_unit(dim, se) * geo.stride[static_cast<size_t>(dim)];
    }
  }
}

// Storage tensors in order of first use by a device op, and the device ops.
void storage_in_use_order(const Graph& g, std::vector<int>& roots, std::vector<int>& device_ops) {
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Op& op = g.ops[o];
    if (is_view_op(op.type)) continue;
    device_ops.push_back(static_cast<int>(o));
    for (const auto* list : {&op.inputs, &op.outputs}) {
      for (int t : *list) {
        const int r = g.storage_of(t);
        if (std::find(roots.begin(), roots.end(), r) == roots.end()) roots.push_back(r);
      }
    }
  }
}

// Per storage tensor: the name the host knows its bytes by ("" when the host
// never sees them). The host reads an intermediate when a graph output is a
// view of it.
std::vector<std::string> host_visible_names(const Graph& g) {
  std::vector<std::string> visible_name(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& tensor = g.tensors[t];
    const int r = g.storage_of(static_cast<int>(t));
    const Tensor& root = g.tensors[static_cast<size_t>(r)];
    if (tensor.role == Role::Output &&
        (root.role == Role::Input || root.role == Role::Weight || root.role == Role::Constant)) {
      fail("", "tensor '" + tensor.name + "'",
           "is a graph output but only a view of " + std::string(role_name(root.role)) + " '" + root.name +
               "'; the device computes nothing for it");
    }
    if (tensor.role != Role::Intermediate && tensor.role != Role::Constant &&
        visible_name[static_cast<size_t>(r)].empty()) {
      visible_name[static_cast<size_t>(r)] = tensor.name;
    }
  }
  return visible_name;
}

// HBM buffers and each storage tensor's offset in its buffer.
void place_in_buffers(Graph& g, const CompileOptions& options, const std::vector<int>& roots) {
  const std::vector<std::string> visible_name = host_visible_names(g);
  g.buffers.clear();
  int pool = -1;
  auto buffer_for = [&](int r) {
    if (options.placement == HbmPlacement::Arguments && !visible_name[static_cast<size_t>(r)].empty()) {
      g.buffers.push_back({visible_name[static_cast<size_t>(r)], 0, false});
      return static_cast<int>(g.buffers.size()) - 1;
    }
    if (pool < 0) {
      g.buffers.push_back({options.placement == HbmPlacement::Packed ? "memory" : "pool", 0, true});
      pool = static_cast<int>(g.buffers.size()) - 1;
    }
    return pool;
  };
  for (int r : roots) {
    Tensor& t = g.tensors[static_cast<size_t>(r)];
    if (t.in_lx) {  // LX planning placed it: no HBM bytes, no kernel argument
      t.buffer = -1;
      continue;
    }
    t.buffer = buffer_for(r);
    Buffer& b = g.buffers[static_cast<size_t>(t.buffer)];
    t.buffer_offset = (b.bytes + kStickBytes - 1) / kStickBytes * kStickBytes;
    b.bytes = t.buffer_offset + storage_bytes(t);
    if (b.bytes > options.device.segment_bytes) {
      fail("", "tensor '" + t.name + "'",
           "buffer '" + b.name + "' would need " + std::to_string(b.bytes) + " bytes, more than one " +
               std::to_string(options.device.segment_bytes >> 20) + " MiB argument segment");
    }
  }
}

// Bundles: consecutive device ops binding at most one buffer per argument segment.
void cut_into_bundles(Graph& g, const CompileOptions& options, const std::vector<int>& device_ops) {
  const int max_arguments = static_cast<int>(options.device.argument_segments().size());
  g.bundles.clear();
  BundlePlan current;
  std::set<int> bound;
  auto buffers_of = [&](const Op& op) {
    std::vector<int> out;  // in operand order
    for (const auto* list : {&op.inputs, &op.outputs}) {
      for (int t : *list) {
        const int b = g.tensors[static_cast<size_t>(g.storage_of(t))].buffer;
        if (b >= 0) out.push_back(b);
      }
    }
    return out;
  };
  // A collective (an all_reduce view, Graph::cards > 1) runs between bundles:
  // the ops before it end one, and it is recorded as following that bundle.
  std::vector<int> collectives;
  for (size_t o = 0; o < g.ops.size(); ++o) {
    if (g.ops[o].attrs.contains("collective")) collectives.push_back(static_cast<int>(o));
  }
  size_t next_collective = 0;
  int group = -1;
  for (int o : device_ops) {
    Op& op = g.ops[static_cast<size_t>(o)];
    std::vector<int> passed;  // the collectives between the last device op and this one
    for (; next_collective < collectives.size() && collectives[next_collective] < o; ++next_collective)
      passed.push_back(collectives[next_collective]);
    if (!passed.empty()) {
      if (op.loop_group >= 0 && op.loop_group == group)
        fail("", g.describe(op), "a collective inside a coarse-tiling loop (a loop runs in one bundle)");
      if (!current.ops.empty()) {
        g.bundles.push_back(current);
        current = BundlePlan{};
        bound.clear();
      }
      if (g.bundles.empty())
        fail("", g.describe(g.ops[static_cast<size_t>(passed[0])]), "a collective before any kernel");
      for (int c : passed) g.ops[static_cast<size_t>(c)].bundle = static_cast<int>(g.bundles.size()) - 1;
    }
    if (op.loop_group >= 0 && op.loop_group != group) {
      // A coarse-tiling loop runs in one bundle: cut before it when the
      // buffers of all its ops do not fit beside those already bound.
      std::set<int> needed = bound;
      for (int other : device_ops) {
        if (g.ops[static_cast<size_t>(other)].loop_group != op.loop_group) continue;
        for (int b : buffers_of(g.ops[static_cast<size_t>(other)])) needed.insert(b);
      }
      if (static_cast<int>(needed.size()) > max_arguments && !current.ops.empty()) {
        g.bundles.push_back(current);
        current = BundlePlan{};
        bound.clear();
      }
    }
    group = op.loop_group;
    const std::vector<int> buffers = buffers_of(op);
    const std::set<int> own(buffers.begin(), buffers.end());
    if (static_cast<int>(own.size()) > max_arguments) {
      fail("", g.describe(op),
           "binds " + std::to_string(own.size()) + " buffers, more than the " + std::to_string(max_arguments) +
               " argument segments of a bundle");
    }
    std::set<int> needed = bound;
    needed.insert(own.begin(), own.end());
    if (static_cast<int>(needed.size()) > max_arguments) {
      if (op.loop_group >= 0 && !current.ops.empty() &&
          g.ops[static_cast<size_t>(current.ops.back())].loop_group == op.loop_group)
        fail("", g.describe(op),
             "its coarse-tiling loop binds more buffers than the " + std::to_string(max_arguments) +
                 " argument segments of a bundle");
      g.bundles.push_back(current);
      current = BundlePlan{};
      bound.clear();
    }
    for (int b : buffers) {
      if (bound.insert(b).second) current.arguments.push_back(b);
    }
    op.bundle = static_cast<int>(g.bundles.size());
    current.ops.push_back(o);
  }
  if (!current.ops.empty()) g.bundles.push_back(current);
  // Collectives after the last device op follow the last bundle.
  for (; next_collective < collectives.size(); ++next_collective)
    g.ops[static_cast<size_t>(collectives[next_collective])].bundle = static_cast<int>(g.bundles.size()) - 1;
}

}  // namespace

void memory_planning(Graph& g, const CompileOptions& options) {
  resolve_views(g);
  std::vector<int> roots, device_ops;
  storage_in_use_order(g, roots, device_ops);
  place_in_buffers(g, options, roots);
  cut_into_bundles(g, options, device_ops);
}

}  // namespace spyre::compiler
