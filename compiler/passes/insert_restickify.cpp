// Restickify insertion (torch-spyre's insert_restickify): where layout
// propagation found that an op needs an operand in another layout than its
// producer gave, a copy into that layout is placed right before the op —
// ReStickifyOpHBM when the stick dim changes, identity when only the order
// of the other dims does. A tensor copied into the same layout for several
// ops is copied once.

#include <map>
#include <utility>

#include "compiler/passes/passes.h"

namespace spyre::compiler {

void insert_restickify(Graph& graph) {
  const std::vector<LayoutCopy> copies = std::move(graph.layout_copies);
  graph.layout_copies.clear();
  if (copies.empty()) return;
  std::multimap<int, const LayoutCopy*> by_op;
  for (const auto& c : copies) by_op.emplace(c.op, &c);
  std::map<std::pair<int, std::string>, int> done;  // (tensor, layout) -> copy
  std::vector<Op> ops;
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    Op op = graph.ops[o];
    auto [first, last] = by_op.equal_range(static_cast<int>(o));
    for (auto it = first; it != last; ++it) {
      const LayoutCopy& c = *it->second;
      const int source = op.inputs[static_cast<size_t>(c.input)];
      const auto key = std::make_pair(source, describe_layout(c.layout));
      auto found = done.find(key);
      if (found == done.end()) {
        const Tensor& src = graph.tensors[static_cast<size_t>(source)];
        Tensor copy;
        copy.name = graph.unique_name(src.name + (c.layout.stick != src.layout.stick ? ".restick" : ".relayout"));
        copy.shape = src.shape;
        copy.dtype = src.dtype;
        copy.role = Role::Intermediate;
        copy.layout = c.layout;
        const int t = graph.add_tensor(copy);
        Op restick;
        restick.type = c.layout.stick != src.layout.stick ? "ReStickifyOpHBM" : "identity";
        restick.inputs = {source};
        restick.outputs = {t};
        restick.origin = graph.describe(op);
        restick.inserted = true;
        restick.loop_trips = op.loop_trips;  // inside its reader's coarse-tiling loop, if any
        restick.loop_group = op.loop_group;
        ops.push_back(restick);
        found = done.emplace(key, t).first;
      }
      op.inputs[static_cast<size_t>(c.input)] = found->second;
    }
    ops.push_back(std::move(op));
  }
  graph.ops = std::move(ops);
}

}  // namespace spyre::compiler
