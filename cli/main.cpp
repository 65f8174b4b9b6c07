// spyre-sim: the command line. It parses, calls the libraries, prints.

#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "compiler/compile_job.h"
#include "compiler/compiler.h"
#include "compiler/plan_job.h"
#include "studies/study_softmax_lx.h"
#include "runtime/error.h"
#include "runtime/hazard.h"
#include "runtime/arch_config.h"
#include "sim/run_bundle.h"

namespace {

// --arch and --set, the same on every subcommand that models a card.
void add_arch_options(CLI::App* cmd, std::string& path, std::vector<std::string>& overrides) {
  cmd->add_option("--arch", path, "Arch config JSON (default: built-in models/arch/spyre.json)");
  cmd->add_option("--set", overrides, "Override an arch parameter, e.g. --set lpddr5.read_gbps=300 (repeatable; `spyre-sim arch` lists them)");
}

// Exit status when a run or check finds hazards (docs/report.md).
constexpr int kHazardsFound = 4;

int run_command(const spyre::sim::RunOptions& options, bool quiet, bool strict) {
  const auto outcome = spyre::sim::run_bundle(options);
  if (!quiet) std::cout << spyre::sim::report_table(outcome.report);
  if (strict && !outcome.report.hazards.empty()) {
    std::cerr << "spyre-sim: --strict: " << spyre::format_hazard(outcome.report.hazards.front()) << "\n";
    return kHazardsFound;
  }
  if (outcome.expect_failed) {
    for (const auto& c : outcome.report.comparisons) {
      if (!c.passed) {
        std::cerr << "spyre-sim: " << c.name << " differs from " << options.expect_dir << "/" << c.name << ".npy: " << c.mismatches << " of "
                  << c.elements << " elements outside rtol " << options.rtol << " atol " << options.atol << "; worst at " << c.worst_coords
                  << ": got " << c.got << ", expected " << c.expected << "\n";
      }
    }
    return 3;
  }
  return 0;
}

int compile_command(spyre::compiler::CompileJob& job, const std::string& shape, const std::string& dtype, const std::string& placement,
                    const std::vector<std::string>& splits, bool list, bool quiet) {
  namespace sc = spyre::compiler;
  if (list) {
    for (const auto& w : sc::list_workloads()) std::cout << w.name << "\n    " << w.description << "\n";
    return 0;
  }
  if (!shape.empty()) job.params.shape = sc::parse_shape(shape);
  if (!sc::parse_dtype(dtype, job.params.dtype)) spyre::fail("", "--dtype", "unsupported dtype '" + dtype + "' (the device has fp16, bf16, fp32)");
  job.options.placement = placement == "packed" ? sc::HbmPlacement::Packed : sc::HbmPlacement::Arguments;
  for (const auto& s : splits) sc::parse_split_override(s, job.options);
  const auto outcome = sc::run_compile_job(job);
  if (!quiet) std::cout << outcome.decisions;
  std::cout << "wrote " << job.output_dir << (job.emit_io_dir.empty() ? "" : ", test data in " + job.emit_io_dir) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  CLI::App app{"spyre-sim: a cycle-approximate simulator of the IBM Spyre accelerator"};
  app.require_subcommand(1);

  spyre::sim::RunOptions run;
  bool quiet = false;
  std::string output_dtype = "fp32";
  float fill = 0;
  auto* run_cmd = app.add_subcommand("run", "Execute a SuperDSC bundle on the card model");
  run_cmd->add_option("bundle", run.bundle, "Bundle directory (bundle.mlir + sdsc_N.json, or sdsc_N.json alone)")->required();
  run_cmd->add_option("--inputs", run.inputs_dir, "Directory of input .npy files named by argument (arg0.npy, ...); enables functional mode");
  auto* fill_opt = run_cmd->add_option("--fill", fill, "Fill every input without a file with this value (functional mode)");
  run_cmd->add_option("--outputs", run.outputs_dir, "Write each output as DIR/<arg>.npy");
  run_cmd->add_option("--output-dtype", output_dtype, "dtype of written outputs: fp32 (exact device values) or fp16")
      ->check(CLI::IsMember({"fp32", "fp16"}));
  run_cmd->add_option("--expect", run.expect_dir, "Compare outputs with DIR/<arg>.npy; exit 3 on mismatch");
  run_cmd->add_option("--rtol", run.rtol, "Relative tolerance for --expect")->capture_default_str();
  run_cmd->add_option("--atol", run.atol, "Absolute tolerance for --expect")->capture_default_str();
  run_cmd->add_option("--report", run.report_path, "Write the JSON report here");
  run_cmd->add_option("--trace", run.trace_path, "Write a Chrome trace (ui.perfetto.dev) here");
  add_arch_options(run_cmd, run.arch_path, run.arch_overrides);
  run_cmd->add_option("--warmup", run.warmup, "Time this many iterations of the program before the measured one (steady state)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  run_cmd->add_flag("--vf", run.vf, "VF multi-tenancy: LX is wiped at every bundle boundary; reads of wiped data are hazards");
  run_cmd->add_flag("--quiet", quiet, "Do not print the report table");
  bool strict = false;
  run_cmd->add_flag("--strict", strict, "Exit with status 4 if any hazard is found, naming the first");

  spyre::sim::RunOptions check;
  auto* check_cmd = app.add_subcommand("check", "Static and dynamic checks of a bundle or program; exit 0 only if clean (docs/hazards.md)");
  check_cmd->add_option("bundle", check.bundle, "Bundle or program directory")->required();
  check_cmd->add_flag("--vf", check.vf, "Also: LX is wiped at every bundle boundary (VF multi-tenancy)");
  check_cmd->add_option("--report", check.report_path, "Write the JSON report (hazards[]) here");
  add_arch_options(check_cmd, check.arch_path, check.arch_overrides);

  spyre::compiler::CompileJob job;
  std::string shape, dtype = "fp16", placement = "arguments";
  std::vector<std::string> splits;
  bool list_workloads = false;
  auto* compile_cmd = app.add_subcommand("compile", "Compile a model graph or a built-in workload to SuperDSC bundles");
  compile_cmd->add_option("graph", job.graph_path, "Model graph JSON (docs/graph-format.md)");
  compile_cmd->add_option("-o,--output", job.output_dir, "Output directory (bundle files and program.json)");
  compile_cmd->add_option("--workload", job.workload, "Built-in workload instead of a graph file (--list-workloads)");
  compile_cmd->add_flag("--list-workloads", list_workloads, "List the built-in workloads and their parameters");
  compile_cmd->add_option("--shape", shape, "Workload shape, sizes joined by x (e.g. 512x1024; matmul MxKxN)");
  compile_cmd->add_option("--dim", job.params.dim, "Workload reduction / softmax dim")->capture_default_str();
  compile_cmd->add_option("--dtype", dtype, "Workload dtype: fp16, bf16, fp32")->capture_default_str();
  compile_cmd->add_option("--batch", job.params.batch, "decoder: batch");
  compile_cmd->add_option("--seq", job.params.seq, "decoder: sequence length (default 512)");
  compile_cmd->add_option("--hidden", job.params.hidden, "decoder: hidden size (default 4096)");
  compile_cmd->add_option("--heads", job.params.heads, "decoder: attention heads (default 32)");
  compile_cmd->add_option("--kv-heads", job.params.kv_heads, "decoder, attention: key/value heads (default 8)");
  compile_cmd->add_option("--intermediate", job.params.intermediate, "decoder: MLP intermediate size (default 12800)");
  compile_cmd->add_option("--cores", job.options.cores, "Cores to divide work over, 1 to the card's (SENCORES; default: all)");
  std::string compile_arch;
  std::vector<std::string> compile_overrides;
  add_arch_options(compile_cmd, compile_arch, compile_overrides);
  compile_cmd->add_option("--split", splits, "Override work division of one op: OUTPUT=DIM:N[,DIM:N] (repeatable)");
  compile_cmd->add_option("--placement", placement, "HBM placement: arguments (one argument per host tensor) or packed (one segment)")
      ->check(CLI::IsMember({"arguments", "packed"}))
      ->capture_default_str();
  compile_cmd->add_flag("--lx-planning", job.options.lx.enabled, "Plan LX scratchpad use (torch-spyre's LX_PLANNING=1)");
  compile_cmd->add_option("--lx-stage", job.options.lx.stage, "With --lx-planning: 2 reduction outputs, 3 + pointwise outputs in place, 4 + clones of multi-use inputs")
      ->capture_default_str();
  compile_cmd->add_option("--solver", job.options.lx.solver, "With --lx-planning: greedy, firstfit, bestfit, exact, best")->capture_default_str();
  compile_cmd->add_option("--emit-io", job.emit_io_dir, "Also write random inputs (DIR/inputs) and fp32 reference outputs (DIR/reference)");
  compile_cmd->add_option("--seed", job.seed, "Seed of --emit-io inputs")->capture_default_str();
  compile_cmd->add_option("--decisions", job.decisions_path, "Write the decisions as JSON here");
  compile_cmd->add_flag("--quiet", quiet, "Do not print the decisions table");

  spyre::compiler::PlanJob plan;
  auto* plan_cmd = app.add_subcommand("plan", "Run an LX planner on a pattern, a buffer list or a MiniMalloc CSV");
  plan_cmd->add_option("input", plan.input, "Pattern JSON, buffer list JSON, or CSV id,lower,upper,size")->required();
  plan_cmd->add_option("--solver", plan.solver, "greedy, firstfit, bestfit, exact, best (the strongest)")->capture_default_str();
  plan_cmd->add_option("--capacity", plan.capacity, "Bytes of LX to plan in (default: the input's, or NAME.CAPACITY.csv)");
  plan_cmd->add_option("--alignment", plan.alignment, "Address alignment in bytes (default: the input's; 128 for JSON, 1 for CSV)");
  plan_cmd->add_flag("--place-all", plan.place_all, "Place every buffer and report the height reached (the default for CSV)");
  plan_cmd->add_flag("--minimize", plan.limits.minimize_height, "With --place-all: search for the lowest height, below the capacity too");
  plan_cmd->add_option("--time-limit", plan.limits.time_limit_s, "Seconds a search may take before it returns its best plan")->capture_default_str();
  plan_cmd->add_option("--report", plan.report_path, "Write the plan as JSON here");
  plan_cmd->add_flag("--quiet", quiet, "Do not print the table");

  spyre::studies::SoftmaxStudyOptions study;
  std::string study_name, study_shape;
  auto* study_cmd = app.add_subcommand("study", "Compile and run a workload several ways and compare (softmax-lx: the seed's LX stages)");
  study_cmd->add_option("name", study_name, "Study to run")->required()->check(CLI::IsMember({"softmax-lx"}));
  study_cmd->add_option("--shape", study_shape, "M x N of the fp16 softmax input (default 512x1024)");
  study_cmd->add_option("--cores", study.multi_cores, "Cores of the multi-core row")->capture_default_str();
  study_cmd->add_option("--solver", study.solver, "LX solver: greedy, firstfit, bestfit, exact, best")->capture_default_str();
  add_arch_options(study_cmd, study.arch_path, study.arch_overrides);
  study_cmd->add_option("--report", study.report_path, "Write the rows as JSON here");
  study_cmd->add_option("--warmup", study.warmup, "Iterations run before the measured one (the seed measured after warm-up)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  study_cmd->add_flag("--quiet", quiet, "Do not print the table");

  std::string arch_path;
  std::vector<std::string> arch_overrides;
  bool arch_json = false, arch_schema = false;
  auto* arch_cmd = app.add_subcommand("arch", "Print every arch parameter with its unit and source");
  add_arch_options(arch_cmd, arch_path, arch_overrides);
  arch_cmd->add_flag("--json", arch_json, "Print the built-in card as an arch file (models/arch/spyre.json)");
  arch_cmd->add_flag("--schema", arch_schema, "Print the JSON Schema of arch files (models/arch/spyre.schema.json)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (run_cmd->parsed()) {
      if (fill_opt->count() > 0) run.fill = fill;
      run.output_dtype = output_dtype == "fp16" ? "f2" : "f4";
      return run_command(run, quiet, strict);
    }
    if (check_cmd->parsed()) {
      const auto outcome = spyre::sim::run_bundle(check);
      for (const auto& h : outcome.report.hazards) std::cout << spyre::format_hazard(h) << "\n";
      const size_t n = outcome.report.hazards.size();
      std::cout << check.bundle << ": " << (n == 0 ? "clean" : std::to_string(n) + " hazard" + (n == 1 ? "" : "s")) << " (" << outcome.report.kernels.size()
                << " SDSCs" << (check.vf ? ", LX wiped at bundle boundaries" : "") << ")\n";
      return n == 0 ? 0 : kHazardsFound;
    }
    if (plan_cmd->parsed()) {
      const auto outcome = spyre::compiler::run_plan_job(plan);
      if (!quiet) std::cout << spyre::compiler::plan_table(outcome);
      return outcome.violations.empty() ? 0 : 2;
    }
    if (study_cmd->parsed()) {
      if (!study_shape.empty()) {
        const auto sizes = spyre::compiler::parse_shape(study_shape);
        if (sizes.size() != 2) throw spyre::SpyreError("--shape " + study_shape + ": the study takes M x N");
        study.rows = sizes[0];
        study.cols = sizes[1];
      }
      const auto result = spyre::studies::run_softmax_study(study);
      if (!quiet) std::cout << spyre::studies::softmax_study_table(result);
      return 0;
    }
    if (compile_cmd->parsed()) {
      job.options.device = spyre::load_arch(compile_arch, compile_overrides).limits();
      return compile_command(job, shape, dtype, placement, splits, list_workloads, quiet);
    }
    if (arch_json || arch_schema) {
      std::cout << (arch_json ? spyre::builtin_arch_json() : spyre::arch_json_schema());
      return 0;
    }
    for (const auto& line : spyre::describe_arch(arch_path, arch_overrides)) std::cout << line << "\n";
    return 0;
  } catch (const spyre::SpyreError& e) {
    std::cerr << "spyre-sim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "spyre-sim: internal error: " << e.what() << "\n";
    return 2;
  }
}
