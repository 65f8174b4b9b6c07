#pragma once
// The compiler's passes (torch-spyre's order and reasons, seeds 001/002/004;
// docs/references.md): decompositions, dead-code elimination, layout
// propagation, restickify insertion, span reduction, work distribution, LX
// split alignment, input clones, LX planning, memory planning. Each lives in
// its own file under compiler/passes/, named as the pass table
// (pass_pipeline.h) names it, as is its function.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/iteration_space.h"
#include "compiler/split/matmul_split.h"
#include "runtime/program.h"

namespace spyre::compiler {

// 0. Coarse tiling: ops with a coarse_tile hint become loop iterations over
// tiles (tile-shaped operands, read copies of graph inputs; Op::loop_trips).
void coarse_tiling(Graph& graph);
// 1. Model ops -> device ops (SuperDSC opFuncNames) and views; scalars become
// size-1 constant tensors.
void decompose(Graph& graph);
// 1b. Removes ops whose results nothing uses.
void deadcode_elimination(Graph& graph);
// 1c. A gather whose rows one unary elementwise op alone reads becomes that
// op reading through the index (torch-spyre's fused indirect kernels).
void fuse_gather_pointwise(Graph& graph);

// 2. Layout propagation: gives every tensor a device layout and records in
// graph.layout_copies each place where an operand must first be copied into
// another layout.
void propagate_layouts(Graph& graph, bool default_input_layouts = false);
// 3. Inserts the ReStickifyOpHBM (or identity) ops graph.layout_copies needs
// and clears the list.
void insert_restickify(Graph& graph);

// 4. Span reduction: the minimum splits that keep every tensor's per-core span
// within the limit.
void span_reduction(Graph& graph, const CompileOptions& options);
// 5. Work distribution over the cores.
void work_distribution(Graph& graph, const CompileOptions& options);
// The largest divisor of `units` that is at most `cores`.
int64_t core_split(int64_t units, int64_t cores);
// Seed 001's division of an op's iteration space over `cores` cores (see
// work_distribution.cpp), from the slices span reduction forced.
std::vector<int64_t> default_rule_slices(const IterationSpace& space, const std::vector<int64_t>& units,
                                         std::vector<int64_t> slices, int cores);

// 5b. With the model's work division and LX planning: each searched
// batchmatmul's split (with model-all, every searched op's division) scored
// with the graph's HBM traffic after LX planning (Op::lx_chain says when
// that changed the op's own pick).
void split_lx_chain(Graph& graph, const CompileOptions& options);

// 6a. With LX planning: pointwise ops adopt a neighbour's slicing of a tensor
// they share when that removes a core_div_mismatch.
void lx_split_alignment(Graph& graph, const CompileOptions& options);
// 6b. With LX planning at stage 4: a clone op in front of each graph input
// that several ops read with one per-core view (torch-spyre's
// CloneInputNodesPass); its output (Tensor::clone_of) is an LX candidate.
void clone_input_nodes(Graph& graph, const CompileOptions& options);
// 6c. LX scratchpad planning: which intermediates live in each core's LX and
// where (Tensor::in_lx, lx_address); clones that did not get LX are removed
// again. Records the plan in graph.lx.
void scratchpad_planning(Graph& graph, const CompileOptions& options);
// 7. HBM buffers, offsets, and the split into bundles of at most max_arguments arguments.
void memory_planning(Graph& graph, const CompileOptions& options);

}  // namespace spyre::compiler
