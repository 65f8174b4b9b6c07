#pragma once
// The work-division search for a device op other than a batchmatmul
// (--work-division model): pointwise ops, reductions and copies. Its legal
// divisions over the cores, and each of them as a program of the op alone,
// which the card model behind SplitCostModel::op_kernel_us times.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/iteration_space.h"
#include "compiler/split/split_cost.h"

namespace spyre::compiler {

// The divisions the search times: seed 001's rule (default_rule_slices) on
// each core count from what span reduction forces up to `cores`, each once
// (SENCORES=c, as the card's sweeps measured the same ops). Not every legal
// division: a pointwise op's legal divisions are many (101 for an attention
// softmax's ops) and most differ only in which outer dims share the cores,
// which the card model times within a few percent of each other at ~75 ms a
// simulation; the core count is what moves its time (docs/compiler.md).
// Fewest cores first; each is the slices per iteration dim.
std::vector<std::vector<int64_t>> op_split_candidates(const IterationSpace& space, const std::vector<int64_t>& units,
                                                      const std::vector<int64_t>& minimum, int cores);

// A division other than the default rule's replaces it only when the op alone
// runs more than this fraction faster with it. The op alone is timed warm (its
// inputs left in the memory-side cache by its own previous run); in a program
// its producers decide what the cache holds, which moves a memory-bound op's
// time and even its ranking: on the Granite decoder layer, add 'r' alone ran
// 4% faster on 16 cores than on 32, in the layer 18% slower; the gains above
// 10% (norms and scalings on fewer cores, 15-90%) held in the layer.
constexpr double kOpSearchMargin = 0.10;

// "x=16 out=2" (the decisions' splits column); "1" for one core.
std::string slices_text(const IterationSpace& space, const std::vector<int64_t>& slices);

// The op as a graph of its own: its inputs as kernel arguments and its
// output as the graph's output, each in the layout the graph gave it (a view
// becomes a tensor of its own with the view's layout: the op reads the same
// sticks in the same order), constants kept.
Graph op_alone(const Graph& graph, const Op& op);

// The search's question for the op: its divisions, what each moves, and each
// compiled alone (memory planning and codegen with `options`, no LX
// planning). Empty splits when there are no candidates.
OpSplitQuery op_split_query(const Graph& graph, const Op& op, const std::vector<std::vector<int64_t>>& candidates,
                            const CompileOptions& options);

}  // namespace spyre::compiler
