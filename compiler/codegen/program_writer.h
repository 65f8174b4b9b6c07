#pragma once
// Writes a compiled program: one bundle directory per bundle (bundle.mlir and
// its sdsc_N.json files) and program.json, the manifest `spyre-sim run` binds
// host .npy files with (docs/program-format.md). A single-bundle program keeps
// its bundle files at the top of the output directory.

#include <map>
#include <string>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/ir/graph.h"
#include "runtime/json_node.h"

namespace spyre::compiler {

// Every file of the program, by path relative to the output directory.
std::map<std::string, std::string> program_files(const Graph& graph, const CompileOptions& options);
Json program_manifest(const Graph& graph, const CompileOptions& options);
// The tensors the manifest lists, in order: SDSC operands with their storage,
// then host tensors seen only through views.
std::vector<int> program_tensors(const Graph& graph);

// Writes the files into `dir` all at once: they are staged in a sibling
// directory and moved into place, so a failure leaves nothing half-written.
// An existing `dir` is replaced only when it is empty or an earlier output
// (it holds program.json).
void write_program_dir(const std::string& dir, const std::map<std::string, std::string>& files);

}  // namespace spyre::compiler
