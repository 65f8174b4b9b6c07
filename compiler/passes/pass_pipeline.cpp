#include "compiler/passes/pass_pipeline.h"

#include "compiler/passes/passes.h"

#include "compiler/passes/graph_verifier.h"
#include "runtime/error.h"
#include "runtime/text.h"

namespace spyre::compiler {

namespace {

bool lx_planning(const CompileOptions& o) { return o.lx.enabled; }
bool lx_stage_4(const CompileOptions& o) { return o.lx.enabled && o.lx.stage >= 4; }
bool lx_chain_scoring(const CompileOptions& o) { return o.lx.enabled && o.bmm_by_model(); }

}  // namespace

const std::vector<CompilerPass>& compiler_passes() {
  static const std::vector<CompilerPass> passes = {
      {"coarse_tiling",
       "ops with a coarse_tile hint run as scf.for iterations over tiles of a dim (torch-spyre's LoopSpec): tile-sized "
       "operands, graph inputs read through a tile copy",
       [](Graph& g, const CompileOptions&) { coarse_tiling(g); }},
      {"decompose",
       "model ops to SuperDSC ops and views, scalars to size-1 constants (torch-spyre's decompositions and lowerings)",
       [](Graph& g, const CompileOptions&) { decompose(g); }},
      {"deadcode_elimination", "drop ops whose results nothing reads",
       [](Graph& g, const CompileOptions&) { deadcode_elimination(g); }},
      {"fuse_gather_pointwise",
       "a gather's rows read by one unary elementwise op alone: that op reads through the index (torch-spyre fuses "
       "x[i].exp())",
       [](Graph& g, const CompileOptions&) { fuse_gather_pointwise(g); }},
      {"propagate_layouts", "give every tensor a device layout (stick dim and order); note operands that need another",
       [](Graph& g, const CompileOptions& o) { propagate_layouts(g, o.input_layouts == "default"); }},
      {"insert_restickify", "copy those operands into the layout their op needs (ReStickifyOpHBM or identity)",
       [](Graph& g, const CompileOptions&) { insert_restickify(g); }},
      {"span_reduction", "the minimum splits that keep each core's span of every tensor within the limit",
       span_reduction},
      {"work_distribution", "divide every op's iteration space over the cores (--split overrides one op)",
       work_distribution},
      {"split_lx_chain",
       "score each searched op's splits (batchmatmuls; with model-all every op) with the graph's HBM traffic after LX "
       "planning (Split x LX)",
       split_lx_chain, lx_chain_scoring, "--lx-planning with --work-division model"},
      {"lx_split_alignment", "pointwise ops adopt a neighbour's slicing where that removes a core_div_mismatch",
       lx_split_alignment, lx_planning, "--lx-planning"},
      {"clone_input_nodes", "clone multi-use graph inputs so LX can hold them (LX stage 4)", clone_input_nodes,
       lx_stage_4, "--lx-planning at --lx-stage 4"},
      {"scratchpad_planning", "place intermediates in each core's LX with an LX solver", scratchpad_planning,
       lx_planning, "--lx-planning"},
      {"memory_planning", "HBM buffers and offsets; cut the ops into bundles of at most the argument segments",
       memory_planning},
  };
  return passes;
}

const CompilerPass& find_compiler_pass(const std::string& name, const std::string& flag) {
  std::vector<std::string> names;
  for (const auto& p : compiler_passes()) {
    if (name == p.name) return p;
    names.emplace_back(p.name);
  }
  fail("", flag + " " + name, "unknown pass (passes: " + join(names, ", ") + ")");
}

const CompilerPass* run_pipeline(Graph& graph, const CompileOptions& options, const PipelineHooks& hooks) {
  if (!hooks.stop_after.empty()) find_compiler_pass(hooks.stop_after, "--stop-after");
  const CompilerPass* last = nullptr;
  for (const auto& pass : compiler_passes()) {
    const bool enabled = !pass.enabled || pass.enabled(options);
    if (enabled) pass.run(graph, options);
    last = &pass;
    if (hooks.verify_each) {
      const auto problems = verify_graph(graph, options, pass.name);
      if (!problems.empty())
        fail(graph.source, "after pass " + std::string(pass.name), "internal: graph verifier: " + problems.front());
    }
    if (hooks.after_pass) hooks.after_pass(pass, graph, enabled);
    if (hooks.stop_after == pass.name) break;
  }
  return last;
}

}  // namespace spyre::compiler
