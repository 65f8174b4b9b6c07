#pragma once
// The compiler's pipeline as a table of named passes, in the order compile()
// runs them (like MLIR's pass registry): each with its name (torch-spyre's
// where the concept is the same), a one-line summary and its entry point.
// `spyre-sim compile --list-passes` prints it; --print-after and
// --stop-after name passes from it.

#include <functional>
#include <string>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/ir/graph.h"

namespace spyre::compiler {

struct CompilerPass {
  const char* name;
  const char* summary;
  void (*run)(Graph&, const CompileOptions&);
  // nullptr: always runs; otherwise the pass runs only when this says so
  // (the LX passes need --lx-planning), and `condition` says it in words.
  bool (*enabled)(const CompileOptions&) = nullptr;
  const char* condition = "";
};

const std::vector<CompilerPass>& compiler_passes();
// The pass of that name, or a SpyreError naming `flag` and the known passes.
const CompilerPass& find_compiler_pass(const std::string& name, const std::string& flag);

// Watching the pipeline run: after each pass (`ran` false when it was not
// enabled) and where to stop.
struct PipelineHooks {
  std::function<void(const CompilerPass& pass, const Graph& graph, bool ran)> after_pass;
  std::string stop_after;    // empty: run every pass
  bool verify_each = false;  // run verify_graph after every pass; a problem is an internal error
};

// Runs the passes on `graph` in order. Returns the last pass run.
const CompilerPass* run_pipeline(Graph& graph, const CompileOptions& options, const PipelineHooks& hooks);

}  // namespace spyre::compiler
