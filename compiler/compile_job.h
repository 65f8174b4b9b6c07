#pragma once
// `spyre-sim compile` as a library call: read a model graph or build a
// workload, compile it, write the program directory, and optionally the
// test data and the decisions JSON.

#include <cstdint>
#include <string>

#include "compiler/graph.h"
#include "compiler/passes.h"
#include "compiler/workloads.h"

namespace spyre::compiler {

struct CompileJob {
  std::string graph_path;  // a model graph JSON, or
  std::string workload;    // a built-in workload
  WorkloadParams params;
  CompileOptions options;
  std::string output_dir;
  std::string emit_io_dir;     // random inputs + reference outputs
  uint64_t seed = 0;
  std::string decisions_path;  // decisions JSON
};

struct CompileOutcome {
  Graph model;
  Graph device;
  std::string decisions;  // the table
};

// Throws SpyreError (one line naming file/op and reason); writes nothing unless
// compilation succeeded.
CompileOutcome run_compile_job(const CompileJob& job);

}  // namespace spyre::compiler
