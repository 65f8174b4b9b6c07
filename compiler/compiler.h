#pragma once
// The compiler driver: a model graph through every pass to a planned device
// graph, ready for codegen (program_writer.h), and the decisions it made.

#include <string>

#include "compiler/compile_options.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_pipeline.h"
#include "runtime/json_node.h"

namespace spyre::compiler {

// Runs the pipeline (pass_pipeline.h) on a validated model graph. Throws
// SpyreError naming the op for anything the device or the compiler cannot
// do. With hooks.stop_after the graph comes back after that pass.
Graph compile(const Graph& model, const CompileOptions& requested, const PipelineHooks& hooks = {});

// The decisions, per op and per tensor: a table for people, JSON for diffing.
std::string decisions_table(const Graph& g, const CompileOptions& options);
Json decisions_json(const Graph& g, const CompileOptions& options);

// "--split y.max=mb:4,out:2" -> options.split_overrides; errors name the flag.
void parse_split_override(const std::string& text, CompileOptions& options);

}  // namespace spyre::compiler
