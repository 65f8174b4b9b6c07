#pragma once
// What a compilation is asked to do: cores, work division, placement, LX
// planning, the card compiled for. The public face of the compiler's options
// (compiler.h, compile_job.h); the passes read them resolved.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/split/split_cost.h"
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

// The --work-division values; one of them, or the one line every refusal
// prints ("default, model, model-all or torch-spyre").
const std::vector<std::string>& work_division_names();
bool is_work_division(const std::string& name);
std::string work_division_choices();

struct CompileOptions {
  int cores = 0;  // SENCORES: cores to divide work over, 1..device.cores; 0: all of them
  // --split: output tensor name of a device op -> iteration dim label -> slices.
  std::map<std::string, std::map<std::string, int64_t>> split_overrides;
  // --work-division: "default" (seed 001's rule), "model" (every legal
  // split of each batchmatmul scored by split_cost, the fastest kept; other
  // ops keep the rule) or "model-all" (also pointwise ops, reductions and
  // copies, each division timed alone: op_split.h), or "torch-spyre" (each
  // batchmatmul as torch-spyre's matmul planner picks it:
  // torch_spyre_planner.h). split_cost is owned by the caller.
  std::string work_division = "default";
  bool bmm_by_model() const { return work_division == "model" || work_division == "model-all"; }
  bool ops_by_model() const { return work_division == "model-all"; }
  SplitCostModel* split_cost = nullptr;
  HbmPlacement placement = HbmPlacement::Arguments;
  // The card compiled for: cores, per-core span limit, argument segments (from
  // the arch config; the defaults are the built-in Spyre card's).
  DeviceLimits device;
  LxPlanningOptions lx;
  // --input-layouts: "consumers" (a graph input, weight or constant takes the
  // layout its consumers want: the host uploads it restickified) or "default"
  // (torch-spyre's: it arrives in the generic stick layout, .to("spyre"), and
  // the compiler restickifies on the device where an op needs another stick).
  std::string input_layouts = "consumers";
  // Wall-clock times (the LX solve) in the decisions; off, the same input
  // gives byte-identical decisions.
  bool timings = false;
};

// Checks the options against the device and resolves cores = 0; every pass
// takes resolved options.
CompileOptions resolve_options(CompileOptions options);

}  // namespace spyre::compiler
