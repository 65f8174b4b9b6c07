// Dead-code elimination (torch-spyre's deadcode_elimination): an op whose
// result no later op reads and the host does not receive is dropped, walking
// backwards so whole dead chains go at once.

#include <vector>

#include "compiler/passes/passes.h"

namespace spyre::compiler {

void deadcode_elimination(Graph& graph) {
  std::vector<bool> live(graph.tensors.size(), false);
  for (size_t t = 0; t < graph.tensors.size(); ++t) live[t] = graph.tensors[t].role == Role::Output;
  std::vector<Op> kept;
  for (auto it = graph.ops.rbegin(); it != graph.ops.rend(); ++it) {
    bool needed = false;
    for (int out : it->outputs) needed = needed || live[static_cast<size_t>(out)];
    if (!needed) continue;
    for (int in : it->inputs) live[static_cast<size_t>(in)] = true;
    kept.push_back(*it);
  }
  graph.ops.assign(kept.rbegin(), kept.rend());
}

}  // namespace spyre::compiler
