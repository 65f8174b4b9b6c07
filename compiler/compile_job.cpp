#include "compiler/compile_job.h"

#include <algorithm>
#include <fstream>

#include "compiler/codegen/program_writer.h"
#include "compiler/compiler.h"
#include "compiler/ir/graph_printer.h"
#include "compiler/reference/emit_io.h"
#include "runtime/error.h"
#include "runtime/user_files.h"

namespace spyre::compiler {

namespace {

// Prints the graph after the passes the job names into `dumps`.
PipelineHooks watch(const CompileJob& job, std::string& dumps) {
  for (const auto& name : job.print_after) {
    if (name != "all") find_compiler_pass(name, "--print-after");
  }
  PipelineHooks hooks;
  hooks.stop_after = job.stop_after;
  hooks.verify_each = job.verify_each;
  hooks.after_pass = [&job, &dumps](const CompilerPass& pass, const Graph& graph, bool ran) {
    const bool wanted = std::find(job.print_after.begin(), job.print_after.end(), "all") != job.print_after.end() ||
                        std::find(job.print_after.begin(), job.print_after.end(), pass.name) != job.print_after.end() ||
                        job.stop_after == pass.name;
    if (!wanted) return;
    dumps += "// after " + std::string(pass.name) +
             (ran ? "" : std::string(" (skipped: runs with ") + pass.condition + ")") + "\n";
    dumps += print_graph(graph);
  };
  return hooks;
}

}  // namespace

CompileOutcome run_compile_job(const CompileJob& job) {
  if (job.graph_path.empty() == job.workload.empty())
    fail("", "compile", "give a model graph file or --workload NAME (one of them)");
  if (job.output_dir.empty() && job.stop_after.empty()) fail("", "-o", "an output directory is required");
  // Every output path is checked before the work, so a bad one writes nothing.
  if (job.stop_after.empty()) {
    check_output_dir(job.output_dir, "-o");
    if (!job.emit_io_dir.empty()) check_output_dir(job.emit_io_dir, "--emit-io");
    if (!job.decisions_path.empty()) check_output_file(job.decisions_path, "--decisions");
  }
  CompileOutcome outcome;
  outcome.model = job.workload.empty() ? read_graph(job.graph_path) : build_workload(job.workload, job.params);
  const CompileOptions options = resolve_options(job.options);
  outcome.device = compile(outcome.model, options, watch(job, outcome.pass_dumps));
  if (!job.stop_after.empty()) {
    outcome.stopped = true;
    return outcome;
  }
  const auto files = program_files(outcome.device, options);
  outcome.decisions = decisions_table(outcome.device, options);
  // Test data staged before the program is written, so a failure leaves no files.
  // A tensor-parallel graph is one card's part: its reference is the whole
  // model's, whose inputs are the ones run takes (it gives each card its part).
  auto whole_model = [&] {
    WorkloadParams whole = job.params;
    whole.cards = 1;
    return build_workload(job.workload, whole);
  };
  const std::string staged = job.emit_io_dir.empty() ? ""
                                                     : stage_io(outcome.model.cards > 1 ? whole_model() : outcome.model,
                                                                job.seed, job.emit_io_dir);
  write_program_dir(job.output_dir, files);
  if (!staged.empty()) commit_io(staged, job.emit_io_dir);
  if (!job.decisions_path.empty()) {
    std::ofstream out(job.decisions_path);
    out << decisions_json(outcome.device, options).dump(2) << "\n";
    if (!out) fail(job.decisions_path, "", "cannot write the decisions JSON");
  }
  return outcome;
}

}  // namespace spyre::compiler
