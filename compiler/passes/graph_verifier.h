#pragma once
// Invariants of the graph between passes: the structure always (indices in
// range, ops in topological order), and what each pass has established by
// then — device ops only after decompose, a layout for every tensor after
// propagate_layouts, no pending copies after insert_restickify, consistent
// splits after work division, aligned in-range LX addresses after scratchpad
// planning, buffers and bundles after memory planning. compile() runs it
// after every pass with PipelineHooks::verify_each (the tests do).

#include <string>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/ir/graph.h"

namespace spyre::compiler {

// Problems found after the pass named `after_pass` ran, one line each.
std::vector<std::string> verify_graph(const Graph& graph, const CompileOptions& options, const std::string& after_pass);

}  // namespace spyre::compiler
