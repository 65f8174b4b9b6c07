#pragma once
// The compiler's passes (torch-spyre's order and reasons, seeds 001/002/004;
// docs/references.md): decompositions, dead-code elimination, layout
// propagation, restickify insertion, span reduction, work distribution, LX
// split alignment, input clones, LX planning, memory planning. Each lives in
// its own pass_*.cpp; pass_pipeline.h lists them by name in pipeline order.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/graph.h"
#include "compiler/iteration_space.h"
#include "compiler/matmul_split.h"
#include "runtime/program.h"

namespace spyre::compiler {

enum class HbmPlacement {
  Arguments,  // each host-visible tensor its own kernel argument, intermediates in a pool (torch-spyre's runtime)
  Packed,     // every tensor in argument segment 0, one after another (the seed's abs example)
};

// LX scratchpad planning (seed 000). The stages are the seed's softmax
// stages, each adding one capability: 2 = outputs of reductions on LX,
// 3 = + outputs of pointwise ops, which may take over a dying input's bytes
// in place, 4 = + a clone in LX of each graph input several ops read.
struct LxPlanningOptions {
  bool enabled = false;  // torch-spyre's LX_PLANNING=1
  int stage = 4;
  std::string solver = "best";  // lx_solver.h
  double time_limit_s = 10;
};

struct CompileOptions {
  int cores = 0;  // SENCORES: cores to divide work over, 1..device.cores; 0: all of them
  // --split: output tensor name of a device op -> iteration dim label -> slices.
  std::map<std::string, std::map<std::string, int64_t>> split_overrides;
  // --work-division: "default" (seed 001's rule), "model" (every legal
  // split of each batchmatmul scored by split_cost, the fastest kept; other
  // ops keep the rule) or "model-all" (also pointwise ops, reductions and
  // copies, each division timed alone: op_split.h). split_cost is owned by
  // the caller.
  std::string work_division = "default";
  bool bmm_by_model() const { return work_division == "model" || work_division == "model-all"; }
  bool ops_by_model() const { return work_division == "model-all"; }
  SplitCostModel* split_cost = nullptr;
  HbmPlacement placement = HbmPlacement::Arguments;
  // The card compiled for: cores, per-core span limit, argument segments (from
  // the arch config; the defaults are the built-in Spyre card's).
  DeviceLimits device;
  LxPlanningOptions lx;
  // Wall-clock times (the LX solve) in the decisions; off, the same input
  // gives byte-identical decisions.
  bool timings = false;
};

// Checks the options against the device and resolves cores = 0; every pass
// below takes resolved options.
CompileOptions resolve_options(CompileOptions options);

// 1. Model ops -> device ops (SuperDSC opFuncNames) and views; scalars become
// size-1 constant tensors.
void decompose(Graph& graph);
// 1b. Removes ops whose results nothing uses.
void eliminate_dead_code(Graph& graph);

// 2. Layout propagation: gives every tensor a device layout and records in
// graph.layout_copies each place where an operand must first be copied into
// another layout.
void propagate_layouts(Graph& graph);
// 3. Inserts the ReStickifyOpHBM (or identity) ops graph.layout_copies needs
// and clears the list.
void insert_restickify(Graph& graph);

// 4. Span reduction: the minimum splits that keep every tensor's per-core span
// within the limit.
void reduce_spans(Graph& graph, const CompileOptions& options);
// 5. Work distribution over the cores.
void distribute_work(Graph& graph, const CompileOptions& options);
// The largest divisor of `units` that is at most `cores`.
int64_t core_split(int64_t units, int64_t cores);
// Seed 001's division of an op's iteration space over `cores` cores (see
// pass_work_distribution.cpp), from the slices span reduction forced.
std::vector<int64_t> default_rule_slices(const IterationSpace& space, const std::vector<int64_t>& units,
                                         std::vector<int64_t> slices, int cores);

// 5b. With the model's work division and LX planning: each searched
// batchmatmul's split (with model-all, every searched op's division) scored
// with the graph's HBM traffic after LX planning (Op::lx_chain says when
// that changed the op's own pick).
void score_splits_with_lx(Graph& graph, const CompileOptions& options);

// 6a. With LX planning: pointwise ops adopt a neighbour's slicing of a tensor
// they share when that removes a core_div_mismatch.
void align_splits_for_lx(Graph& graph, const CompileOptions& options);
// 6b. With LX planning at stage 4: a clone op in front of each graph input
// that several ops read with one per-core view (torch-spyre's
// CloneInputNodesPass); its output (Tensor::clone_of) is an LX candidate.
void clone_multi_use_inputs(Graph& graph, const CompileOptions& options);
// 6c. LX scratchpad planning: which intermediates live in each core's LX and
// where (Tensor::in_lx, lx_address); clones that did not get LX are removed
// again. Records the plan in graph.lx.
void plan_scratchpad(Graph& graph, const CompileOptions& options);
// 7. HBM buffers, offsets, and the split into bundles of at most max_arguments arguments.
void plan_memory(Graph& graph, const CompileOptions& options);

}  // namespace spyre::compiler
