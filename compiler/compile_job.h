#pragma once
// `spyre-sim compile` as a library call: read a model graph or build a
// workload, compile it, write the program directory, and optionally the
// test data and the decisions JSON.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/workloads.h"

namespace spyre::compiler {

struct CompileJob {
  std::string graph_path;  // a model graph JSON, or
  std::string workload;    // a built-in workload
  WorkloadParams params;
  CompileOptions options;
  std::string output_dir;
  std::string emit_io_dir;  // random inputs + reference outputs
  uint64_t seed = 0;
  std::string decisions_path;  // decisions JSON
  // Watching the pipeline (pass names from pass_pipeline.h; "all" for every pass).
  std::vector<std::string> print_after;  // the graph after these passes
  std::string stop_after;                // stop after this pass: print the graph, write nothing
  bool verify_each = false;              // the graph verifier after every pass
};

struct CompileOutcome {
  Graph model;
  Graph device;
  std::string decisions;   // the table (empty when stopped early)
  std::string pass_dumps;  // --print-after / --stop-after: the graph after those passes
  bool stopped = false;    // --stop-after: nothing written
};

// Throws SpyreError (one line naming file/op and reason); writes nothing unless
// compilation succeeded and ran to the end.
CompileOutcome run_compile_job(const CompileJob& job);

}  // namespace spyre::compiler
