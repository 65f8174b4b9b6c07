// spyre-sim: the command line. It parses, calls the libraries, prints. Each
// subcommand is one add_* function: its options and what it does.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "compiler/compile_job.h"
#include "compiler/compiler.h"
#include "compiler/ir/llm_config.h"
#include "compiler/lx/lx_solver.h"
#include "compiler/lx/plan_job.h"
#include "runtime/arch_config.h"
#include "runtime/bundle_dir.h"
#include "runtime/error.h"
#include "runtime/hazard.h"
#include "runtime/op_registry_table.h"
#include "runtime/text.h"
#include "runtime/user_files.h"
#include "sim/run_bundle.h"
#include "sim/run_kernel_cache.h"
#include "studies/calibrate.h"
#include "studies/split_cost_sim.h"
#include "studies/study_softmax_lx.h"
#include "studies/study_splits.h"
#include "studies/sweep_runner.h"
#include "studies/sweep_slurm.h"
#include "studies/validate_splits.h"

namespace {

// Exit statuses (docs/report.md): distinct, and "internal error" only for a
// bug in spyre-sim, never for anything a user can hand in.
constexpr int kOk = 0;
constexpr int kBadInput = 1;
constexpr int kExpectMismatch = 3;
constexpr int kHazardsFound = 4;
constexpr int kPlanInvalid = 5;
constexpr int kSweepPointsFailed = 6;
constexpr int kInternalError = 70;  // EX_SOFTWARE

// A parsed subcommand and what running it does.
struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
};

// --arch and --set, the same on every subcommand that models a card.
struct ArchOptions {
  std::string path;
  std::vector<std::string> overrides;
  // Into a library's options (RunOptions, SoftmaxStudyOptions, ValidateOptions).
  template <typename Options>
  void apply_to(Options& options) const {
    options.arch_path = path;
    options.arch_overrides = overrides;
  }
};

void add_arch_options(CLI::App* cmd, ArchOptions& arch) {
  cmd->add_option("--arch", arch.path, "Arch config JSON (default: the built-in card, models/arch/spyre.json)");
  cmd->add_option(
      "--set", arch.overrides,
      "Override an arch parameter, e.g. --set lpddr5.read_gbps=300 (repeatable; `spyre-sim arch` lists them)");
}

// --warmup, the same bounds wherever a card runs; `why` says what it models there.
void add_warmup_option(CLI::App* cmd, int& warmup, const std::string& why) {
  cmd->add_option("--warmup", warmup, "Iterations timed before the measured one (" + why + ")")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
}

// --between-runs: what the card does between the timed runs (sim/hw/measurement_protocol.h).
// A default of "auto" (validate) adds that choice: each row says for itself.
void add_between_runs_option(CLI::App* cmd, std::string& value, const std::string& default_text) {
  std::vector<std::string> choices{"back-to-back", "device-work"};
  if (default_text == "auto") choices.insert(choices.begin(), "auto");
  value = default_text;
  cmd->add_option("--between-runs", value,
                  "What the card does between timed runs: back-to-back (the memory-side cache keeps what the last "
                  "run left) or device-work (other work, e.g. a profiler's memset, displaces it; the run writes its "
                  "dirty lines back)" +
                      std::string(default_text == "auto" ? "; auto: device-work for rows whose memset_us > 0" : ""))
      ->check(CLI::IsMember(choices))
      ->capture_default_str();
}

std::string solver_list() { return spyre::join(spyre::compiler::lx_solver_names(), ", "); }

void add_order_option(CLI::App* cmd, std::string& order) {
  cmd->add_option("--order", order,
                  "Kernel cache: the kernels' run order, a file listing directory names or torch-spyre's generated "
                  "wrapper code (NAME.run(...) calls; default: a *.py wrapper in the folder, else name order)");
}

int report_mismatches(const spyre::sim::RunOutcome& outcome, const spyre::sim::RunOptions& run) {
  for (const auto& c : outcome.report.comparisons) {
    if (c.passed) continue;
    std::cerr << "spyre-sim: " << c.name << " differs from " << run.expect_dir << "/" << c.name
              << ".npy: " << c.mismatches << " of " << c.elements << " elements outside rtol " << c.tolerance.rtol
              << " atol " << c.tolerance.atol << "; worst at " << c.worst_coords << ": got " << c.got << ", expected "
              << c.expected << " (tolerance: " << c.tolerance.basis << ")\n";
  }
  return kExpectMismatch;
}

Subcommand add_run(CLI::App& app) {
  struct Options {
    spyre::sim::RunOptions run;
    ArchOptions arch;
    std::string output_dtype = "fp32";
    float fill = 0;
    bool quiet = false, strict = false;
    std::string order, between_runs;
    std::vector<std::string> symbols;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("run", "Execute a SuperDSC bundle on the card model");
  cmd->add_option("bundle", o->run.bundle,
                  "Bundle directory (bundle.mlir + sdsc_N.json, or sdsc_N.json alone), or a folder of kernel "
                  "directories (torch-spyre's inductor-spyre cache): each kernel runs, then the total")
      ->required();
  add_order_option(cmd, o->order);
  cmd->add_option("--inputs", o->run.inputs_dir,
                  "Directory of input .npy files named by argument (arg0.npy, ...); enables functional mode");
  auto* fill = cmd->add_option("--fill", o->fill, "Fill every input without a file with this value (functional mode)");
  cmd->add_option("--outputs", o->run.outputs_dir, "Write each output as DIR/<arg>.npy");
  cmd->add_option("--output-dtype", o->output_dtype, "dtype of written outputs: fp32 (exact device values) or fp16")
      ->check(CLI::IsMember({"fp32", "fp16"}));
  cmd->add_option("--expect", o->run.expect_dir, "Compare outputs with DIR/<arg>.npy; exit 3 on mismatch");
  cmd->add_option("--rtol", o->run.rtol,
                  "Relative tolerance for --expect (default: 4 ulp of the output's dtype, or the references' "
                  "tolerance.json)");
  cmd->add_option("--atol", o->run.atol,
                  "Absolute tolerance for --expect (default: 2 ulp of the reference's largest magnitude, or the "
                  "references' tolerance.json)");
  cmd->add_option("--expect-dtype", o->run.expect_dtype,
                  "Judge outputs as this dtype (DLFloat16, bf16, fp16, fp32; default: the output's device format, "
                  "fp16 for an fp16 reference)");
  cmd->add_option("--report", o->run.report_path, "Write the JSON report here");
  cmd->add_option("--trace", o->run.trace_path, "Write a Chrome trace (ui.perfetto.dev) here");
  add_arch_options(cmd, o->arch);
  add_warmup_option(cmd, o->run.protocol.warmup, "steady state");
  add_between_runs_option(cmd, o->between_runs, "back-to-back");
  cmd->add_flag("--vf", o->run.vf,
                "VF multi-tenancy: LX is wiped at every bundle boundary; reads of wiped data are hazards");
  cmd->add_option("--sample-repeats", o->run.sample_repeats,
                  "Sampled simulation of repeated kernels (a model's layers): a kernel whose plan (the same bytes "
                  "of the same operands, the same compute per core) was simulated N times already takes the last "
                  "one's time and counters instead of being simulated; 0 (default): every kernel simulated "
                  "(docs/report.md)")
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--dim", o->symbols,
                  "Bind a symbolic dim's symbol (torch-spyre's dynamic shapes): NAME=VALUE, e.g. s0=24 (repeatable); "
                  "without it a kernel runs at the maximum its SDSC holds (docs/bundle-format.md)");
  cmd->add_flag("--quiet", o->quiet, "Do not print the report table");
  cmd->add_flag("--strict", o->strict, "Exit with status 4 if any hazard is found, naming the first");
  return {cmd, [o, fill] {
            auto& run = o->run;
            if (fill->count() > 0) run.fill = o->fill;
            for (const auto& text : o->symbols) run.symbols.insert(spyre::parse_symbol_value(text, "--dim"));
            run.output_dtype = o->output_dtype == "fp16" ? "f2" : "f4";
            run.protocol.between_runs = *spyre::sim::parse_between_runs(o->between_runs);
            o->arch.apply_to(run);
            if (spyre::sim::is_kernel_cache(run.bundle)) {
              const auto cache = spyre::sim::run_kernel_cache(run, o->order);
              if (!o->quiet) std::cout << spyre::sim::cache_report_table(cache);
              for (const auto& k : cache.kernels) {
                if (o->strict && !k.outcome.report.hazards.empty()) {
                  std::cerr << "spyre-sim: --strict: " << k.name << ": "
                            << spyre::format_hazard(k.outcome.report.hazards.front()) << "\n";
                  return kHazardsFound;
                }
              }
              for (const auto& k : cache.kernels) {
                if (k.outcome.expect_failed) return report_mismatches(k.outcome, run);
              }
              return kOk;
            }
            const auto outcome = spyre::sim::run_bundle(run);
            if (!o->quiet) std::cout << spyre::sim::report_table(outcome.report);
            if (o->strict && !outcome.report.hazards.empty()) {
              std::cerr << "spyre-sim: --strict: " << spyre::format_hazard(outcome.report.hazards.front()) << "\n";
              return kHazardsFound;
            }
            if (!outcome.expect_failed) return kOk;
            return report_mismatches(outcome, run);
          }};
}

Subcommand add_check(CLI::App& app) {
  struct Options {
    spyre::sim::RunOptions run;
    ArchOptions arch;
    std::string order;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "check", "Static and dynamic checks of a bundle or program; exit 0 only if clean (docs/hazards.md)");
  cmd->add_option("bundle", o->run.bundle, "Bundle or program directory, or a folder of kernel directories")
      ->required();
  add_order_option(cmd, o->order);
  cmd->add_flag("--vf", o->run.vf, "Also: LX is wiped at every bundle boundary (VF multi-tenancy)");
  cmd->add_option("--report", o->run.report_path, "Write the JSON report (hazards[]) here");
  add_arch_options(cmd, o->arch);
  return {cmd, [o] {
            o->arch.apply_to(o->run);
            if (spyre::sim::is_kernel_cache(o->run.bundle)) {
              const auto cache = spyre::sim::run_kernel_cache(o->run, o->order);
              for (const auto& k : cache.kernels) {
                for (const auto& h : k.outcome.report.hazards) std::cout << spyre::format_hazard(h) << "\n";
              }
              std::cout << o->run.bundle << ": "
                        << (cache.total_hazards == 0 ? "clean" : std::to_string(cache.total_hazards) + " hazards")
                        << " (" << cache.kernels.size() << " kernels)\n";
              return cache.total_hazards == 0 ? kOk : kHazardsFound;
            }
            const auto outcome = spyre::sim::run_bundle(o->run);
            for (const auto& h : outcome.report.hazards) std::cout << spyre::format_hazard(h) << "\n";
            const size_t n = outcome.report.hazards.size();
            std::cout << o->run.bundle << ": "
                      << (n == 0 ? "clean" : std::to_string(n) + " hazard" + (n == 1 ? "" : "s")) << " ("
                      << outcome.report.kernels.size() << " SDSCs"
                      << (o->run.vf ? ", LX wiped at bundle boundaries" : "") << ")\n";
            return n == 0 ? kOk : kHazardsFound;
          }};
}

Subcommand add_compile(CLI::App& app) {
  struct Options {
    spyre::compiler::CompileJob job;
    ArchOptions arch;
    std::string shape, dtype = "fp16", placement = "arguments", model, split_cache, run_report;
    std::vector<std::string> splits;
    bool list_workloads = false, list_passes = false, quiet = false, run = false;
    int sample_repeats = 0;
  };
  auto o = std::make_shared<Options>();
  auto& job = o->job;
  // The card model's splits are the default since they beat the rule on the
  // measured Granite splits (docs/compiler.md); the library keeps the rule
  // unless it is given a cost model.
  job.options.work_division = "model";
  auto* cmd = app.add_subcommand("compile", "Compile a model graph or a built-in workload to SuperDSC bundles");
  cmd->add_option("graph", job.graph_path, "Model graph JSON (docs/graph-format.md)");
  cmd->add_option("-o,--output", job.output_dir, "Output directory (bundle files and program.json)");
  cmd->add_option("--workload", job.workload, "Built-in workload instead of a graph file (--list-workloads)");
  cmd->add_option("--model", o->model,
                  "A decoder-only LLM from its Hugging Face config.json (e.g. models/llm/granite-3.3-8b.json): the "
                  "granite workload with the config's sizes and scalars; --layers, --hidden, ... given here win");
  cmd->add_flag("--list-workloads", o->list_workloads, "List the built-in workloads and their parameters");
  cmd->add_option("--shape", o->shape, "Workload shape, sizes joined by x (e.g. 512x1024; matmul MxKxN)");
  cmd->add_option("--dim", job.params.dim, "Workload reduction / softmax dim")->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "Workload dtype: fp16, bf16, fp32")->capture_default_str();
  cmd->add_option("--batch", job.params.batch, "decoder, granite: batch");
  cmd->add_option("--seq", job.params.seq,
                  "decoder, granite: sequence length (default 512; granite decode: new tokens, default 1)");
  cmd->add_option("--hidden", job.params.hidden, "decoder, granite: hidden size (default 4096)");
  cmd->add_option("--heads", job.params.heads, "decoder, granite: attention heads (default 32)");
  cmd->add_option("--kv-heads", job.params.kv_heads, "decoder, granite, attention: key/value heads (default 8)");
  cmd->add_option("--intermediate", job.params.intermediate, "decoder, granite: MLP intermediate size (default 12800)");
  cmd->add_option("--layers", job.params.layers, "granite: decoder layers (default 40)");
  cmd->add_option("--vocab", job.params.vocab, "granite: vocabulary size (default 49159)");
  cmd->add_option("--phase", job.params.phase, "granite: prefill or decode")->capture_default_str();
  cmd->add_option("--context", job.params.context, "granite decode: tokens already in the KV cache (default 2048)");
  cmd->add_option("--cards", job.params.cards,
                  "granite: tensor parallelism over this many cards (heads and MLP divided, an all-reduce after the O "
                  "and down projections); the program is each card's part (default 1)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--cores", job.options.cores, "Cores to divide work over, 1 to the card's (SENCORES; default: all)");
  add_arch_options(cmd, o->arch);
  cmd->add_option("--split", o->splits, "Override work division of one op: OUTPUT=DIM:N[,DIM:N] (repeatable)");
  cmd->add_option("--work-division", job.options.work_division,
                  "model: each batchmatmul takes the fastest of its legal splits on the card model (the decisions "
                  "list them); model-all: also pointwise ops, reductions and copies, each timed alone on the rule's "
                  "division at every core count; torch-spyre: each batchmatmul as torch-spyre's matmul planner "
                  "picks it (its analytic cost model); default: seed 001's rule")
      ->check(CLI::IsMember(spyre::compiler::work_division_names()))
      ->capture_default_str();
  cmd->add_option("--input-layouts", job.options.input_layouts,
                  "consumers: a graph input or weight takes the layout its consumers want (the host uploads it "
                  "restickified); default: torch-spyre's, it arrives in the generic stick layout and the compiler "
                  "restickifies on the device where an op needs another stick")
      ->check(CLI::IsMember({"consumers", "default"}))
      ->capture_default_str();
  cmd->add_option("--split-cache", o->split_cache,
                  "Folder where the model's split search keeps the kernel times it simulated, per simulator build "
                  "and card, and reads them in later compiles (none: simulate every time; default: "
                  "$SPYRE_SIM_CACHE_DIR, else $XDG_CACHE_HOME/spyre-sim, else ~/.cache/spyre-sim)");
  cmd->add_option("--placement", o->placement,
                  "HBM placement: arguments (one argument per host tensor) or packed (one segment)")
      ->check(CLI::IsMember({"arguments", "packed"}))
      ->capture_default_str();
  cmd->add_flag("--lx-planning", job.options.lx.enabled, "Plan LX scratchpad use (torch-spyre's LX_PLANNING=1)");
  cmd->add_option(
         "--lx-stage", job.options.lx.stage,
         "With --lx-planning: 2 reduction outputs, 3 + pointwise outputs in place, 4 + clones of multi-use inputs")
      ->capture_default_str();
  cmd->add_option("--solver", job.options.lx.solver, "With --lx-planning: " + solver_list())->capture_default_str();
  cmd->add_option("--emit-io", job.emit_io_dir,
                  "Also write random inputs (DIR/inputs) and fp32 reference outputs (DIR/reference)");
  cmd->add_option("--seed", job.seed, "Seed of --emit-io inputs")->capture_default_str();
  cmd->add_option("--decisions", job.decisions_path, "Write the decisions as JSON here");
  cmd->add_flag("--timings", job.options.timings,
                "Include wall-clock times in the decisions (otherwise deterministic)");
  cmd->add_flag("--list-passes", o->list_passes, "List the compiler's passes in pipeline order");
  cmd->add_option("--print-after", job.print_after,
                  "Print the graph after this pass (repeatable; all: after every pass)");
  cmd->add_option("--stop-after", job.stop_after, "Stop after this pass and print the graph; writes nothing");
  cmd->add_flag("--verify-each", job.verify_each, "Run the graph verifier after every pass");
  cmd->add_flag("--quiet", o->quiet, "Do not print the decisions table");
  auto* run_flag =
      cmd->add_flag("--run", o->run,
                    "Then run the program on the card model and print its report, as `run` does (timing "
                    "only; with --emit-io, functional against the references): compile and simulate in one "
                    "command");
  cmd->add_option("--run-report", o->run_report, "With --run: write the run's JSON report here")->needs(run_flag);
  cmd->add_option("--sample-repeats", o->sample_repeats, "With --run: as run --sample-repeats (docs/report.md)")
      ->check(CLI::Range(0, 1000))
      ->needs(run_flag);
  return {cmd, [o, cmd] {
            namespace sc = spyre::compiler;
            auto& job = o->job;
            if (o->list_workloads) {
              for (const auto& w : sc::list_workloads()) std::cout << w.name << "\n    " << w.description << "\n";
              return kOk;
            }
            if (o->list_passes) {
              for (const auto& p : sc::compiler_passes()) std::cout << p.name << "\n    " << p.summary << "\n";
              return kOk;
            }
            job.options.device = spyre::load_arch(o->arch.path, o->arch.overrides).limits();
            if (!o->model.empty()) {
              if (!job.workload.empty() || !job.graph_path.empty())
                spyre::fail("", "--model", "builds the model itself: give it without --workload or a graph file");
              job.workload = "granite";
            }
            // Workload options the user set: a workload refuses those it does not take.
            for (const char* option : {"shape", "dim", "batch", "seq", "hidden", "heads", "kv-heads", "intermediate",
                                       "layers", "vocab", "phase", "context", "cards"}) {
              if (cmd->count(std::string("--") + option) == 0) continue;
              if (job.workload.empty())
                spyre::fail("", std::string("--") + option, "applies to a --workload, not to a graph file");
              job.params.given.emplace_back(option);
            }
            if (!o->shape.empty()) job.params.shape = sc::parse_shape(o->shape);
            if (!o->model.empty()) job.params = sc::llm_config_params(o->model, job.params);
            if (!sc::parse_dtype(o->dtype, job.params.dtype)) {
              spyre::fail("", "--dtype", "unsupported dtype '" + o->dtype + "' (the device has fp16, bf16, fp32)");
            }
            job.options.placement = o->placement == "packed" ? sc::HbmPlacement::Packed : sc::HbmPlacement::Arguments;
            for (const auto& s : o->splits) sc::parse_split_override(s, job.options);
            // --work-division model: the card model times each batchmatmul's splits.
            const std::string cache = o->split_cache.empty()     ? spyre::studies::default_split_cache_dir()
                                      : o->split_cache == "none" ? ""
                                                                 : o->split_cache;
            spyre::studies::SimulatedSplitCost split_cost(o->arch.path, o->arch.overrides, 0, cache);
            if (job.options.bmm_by_model()) job.options.split_cost = &split_cost;
            const auto outcome = sc::run_compile_job(job);
            std::cout << outcome.pass_dumps;
            if (outcome.stopped) {
              std::cout << "stopped after " << job.stop_after << "; nothing written\n";
              return kOk;
            }
            if (!o->quiet) std::cout << outcome.decisions;
            std::cout << "wrote " << job.output_dir
                      << (job.emit_io_dir.empty() ? "" : ", test data in " + job.emit_io_dir) << "\n";
            if (split_cost.simulated() + split_cost.stored() > 0)
              std::cout << "split search: " << split_cost.simulated() << " candidates simulated, "
                        << split_cost.stored() << " times read from " << (cache.empty() ? std::string("-") : cache)
                        << "\n";
            if (!o->run) return kOk;
            spyre::sim::RunOptions run;
            run.bundle = job.output_dir;
            o->arch.apply_to(run);
            if (!job.emit_io_dir.empty()) {
              run.inputs_dir = (std::filesystem::path(job.emit_io_dir) / "inputs").string();
              run.expect_dir = (std::filesystem::path(job.emit_io_dir) / "reference").string();
            }
            run.report_path = o->run_report;
            run.sample_repeats = o->sample_repeats;
            const auto ran = spyre::sim::run_bundle(run);
            std::cout << spyre::sim::report_table(ran.report);
            return ran.expect_failed ? report_mismatches(ran, run) : kOk;
          }};
}

Subcommand add_plan(CLI::App& app) {
  struct Options {
    spyre::compiler::PlanJob plan;
    bool quiet = false;
  };
  auto o = std::make_shared<Options>();
  auto& plan = o->plan;
  auto* cmd = app.add_subcommand("plan", "Run an LX planner on a pattern, a buffer list or a MiniMalloc CSV");
  cmd->add_option("input", plan.input, "Pattern JSON, buffer list JSON, or CSV id,lower,upper,size")->required();
  cmd->add_option("--solver", plan.solver, solver_list() + " (best: the strongest)")->capture_default_str();
  cmd->add_option("--capacity", plan.capacity, "Bytes of LX to plan in (default: the input's, or NAME.CAPACITY.csv)");
  cmd->add_option("--alignment", plan.alignment,
                  "Address alignment in bytes (default: the input's; 128 for JSON, 1 for CSV)");
  cmd->add_flag("--place-all", plan.place_all,
                "Place every buffer and report the height reached (the default for CSV)");
  cmd->add_flag("--minimize", plan.limits.minimize_height,
                "With --place-all: search for the lowest height, below the capacity too");
  cmd->add_option("--time-limit", plan.limits.time_limit_s, "Seconds a search may take before it returns its best plan")
      ->capture_default_str();
  cmd->add_option("--report", plan.report_path, "Write the plan as JSON here");
  cmd->add_flag("--timings", plan.timings, "Include the wall-clock solve time (output is otherwise deterministic)");
  cmd->add_flag("--quiet", o->quiet, "Do not print the table");
  return {cmd, [o] {
            const auto outcome = spyre::compiler::run_plan_job(o->plan);
            if (!o->quiet) std::cout << spyre::compiler::plan_table(outcome);
            return outcome.violations.empty() ? kOk : kPlanInvalid;
          }};
}

// `study splits`: the matmul shape, MxKxN or BxMxKxN as `compile --shape` takes it.
spyre::studies::MatmulShape matmul_study_shape(const std::string& text) {
  const auto sizes = spyre::compiler::parse_shape(text);
  if (sizes.size() == 3) return {1, sizes[0], sizes[1], sizes[2]};
  if (sizes.size() == 4) return {sizes[0], sizes[1], sizes[2], sizes[3]};
  throw spyre::SpyreError("--shape " + text + ": study splits takes M x K x N (matmul) or B x M x K x N (bmm)");
}

int run_split_study(spyre::studies::SplitStudyOptions splits, const ArchOptions& arch, const std::string& shape,
                    std::optional<int> cores, int warmup, const std::string& csv, bool quiet) {
  if (shape.empty()) throw spyre::SpyreError("study splits: --shape is required (M x K x N or B x M x K x N)");
  if (!csv.empty()) spyre::check_output_file(csv, "--csv");
  arch.apply_to(splits);
  splits.shape = matmul_study_shape(shape);
  if (cores) splits.max_cores = *cores;
  splits.warmup = warmup;
  const auto study = spyre::studies::run_split_study(splits);
  if (!quiet) std::cout << spyre::studies::split_study_table(study);
  if (!csv.empty()) {
    std::ofstream out(csv);
    out << spyre::studies::split_study_csv(study);
    if (!out) spyre::fail(csv, "--csv", "cannot be written");
  }
  return kOk;
}

Subcommand add_study(CLI::App& app) {
  struct Options {
    spyre::studies::SoftmaxStudyOptions study;
    spyre::studies::SplitStudyOptions splits;
    ArchOptions arch;
    std::string name, shape, csv;
    std::optional<int> cores;
    bool quiet = false;
  };
  auto o = std::make_shared<Options>();
  auto& study = o->study;
  auto* cmd = app.add_subcommand("study",
                                 "Compile and run a workload several ways and compare (softmax-lx: the seed's LX "
                                 "stages; splits: every core split of a matmul)");
  cmd->add_option("name", o->name, "Study to run: softmax-lx or splits")
      ->required()
      ->check(CLI::IsMember({"softmax-lx", "splits"}));
  cmd->add_option("--shape", o->shape,
                  "softmax-lx: M x N of the fp16 softmax input (default 512x1024); splits: M x K x N (matmul) or "
                  "B x M x K x N (bmm), as compile --shape");
  cmd->add_option("--cores", o->cores,
                  "softmax-lx: cores of the multi-core row (default 4); splits: the most cores a split may use "
                  "(default 32)")
      ->check(CLI::Range(1, 1024));
  auto* solver = cmd->add_option("--solver", study.solver, "softmax-lx: LX solver: " + solver_list());
  add_arch_options(cmd, o->arch);
  auto* report = cmd->add_option("--report", study.report_path, "softmax-lx: write the rows as JSON here");
  auto* csv = cmd->add_option("--csv", o->csv, "splits: write every split's row as CSV here");
  auto* workers = cmd->add_option("-j,--workers", o->splits.workers, "splits: worker processes (default: the cores)")
                      ->check(CLI::Range(1, 1024));
  add_warmup_option(cmd, study.warmup, "the seed measured after warm-up; profilers time repeated runs");
  cmd->add_flag("--quiet", o->quiet, "Do not print the table");
  return {cmd, [o, solver, report, csv, workers] {
            auto& study = o->study;
            const bool splits = o->name == "splits";
            for (const auto* option : {solver, report}) {
              if (splits && option->count() > 0)
                throw spyre::SpyreError(option->get_name() + ": only for study softmax-lx");
            }
            for (const auto* option : {csv, workers}) {
              if (!splits && option->count() > 0)
                throw spyre::SpyreError(option->get_name() + ": only for study splits");
            }
            if (splits) return run_split_study(o->splits, o->arch, o->shape, o->cores, study.warmup, o->csv, o->quiet);
            o->arch.apply_to(study);
            if (o->cores) study.multi_cores = *o->cores;
            if (!o->shape.empty()) {
              const auto sizes = spyre::compiler::parse_shape(o->shape);
              if (sizes.size() != 2) throw spyre::SpyreError("--shape " + o->shape + ": the study takes M x N");
              study.rows = sizes[0];
              study.cols = sizes[1];
            }
            const auto result = spyre::studies::run_softmax_study(study);
            if (!o->quiet) std::cout << spyre::studies::softmax_study_table(result);
            return kOk;
          }};
}

Subcommand add_validate(CLI::App& app) {
  struct Options {
    spyre::studies::ValidateOptions validate;
    ArchOptions arch;
    bool quiet = false;
    std::string between_runs, forced_splits = "auto";
    int explain = 0;
  };
  auto o = std::make_shared<Options>();
  auto& v = o->validate;
  auto* cmd = app.add_subcommand(
      "validate", "Run measured kernels (a CSV of shapes, core splits or core counts, and device times) and compare");
  cmd->add_option("tables", v.tables,
                  "CSVs: matmul splits (B,M,N,K,split_b,split_m,split_n,split_k,measured_us; optionally phase, op, "
                  "lx_fraction, kernel|bundle), streaming op records (op,rows,cols,cores,kernel_us_median; "
                  "optionally lx, tiles, failed, memset_us), kernels (kernel,measured_us) or softmax stages; or "
                  "sources: a sources.json manifest or a folder (models/calibration: every built-in source); "
                  "docs/calibration.md")
      ->required();
  add_arch_options(cmd, o->arch);
  cmd->add_option("--where", v.where, "Keep rows whose COLUMN equals VALUE: COLUMN=VALUE (repeatable, all must hold)");
  cmd->add_option("--report", v.report_path, "Write rows, per-shape ranking and the summary as JSON here");
  cmd->add_option("--csv", v.csv_path, "Write one line per row (measured, simulated, error) as CSV here");
  add_warmup_option(cmd, v.warmup, "profilers time repeated runs; 0: a cold start");
  add_between_runs_option(cmd, o->between_runs, "auto");
  cmd->add_option("--forced-splits", o->forced_splits,
                  "A compiled split row runs the split torch-spyre emitted for it (as-emitted: its 2026-06 planner "
                  "compiled the default division for a forced split on fewer cores than the default, or one not "
                  "dividing its dims) or the split as written (as-given); auto: the source's own (sources.json; a "
                  "table given alone, that of a sources.json above it listing it), else as-given")
      ->check(CLI::IsMember({"auto", "as-emitted", "as-given"}))
      ->capture_default_str();
  cmd->add_option("-j,--workers", v.workers, "Worker processes running rows (default: the machine's cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--quiet", o->quiet, "Print only the per-shape table and the summary");
  cmd->add_option("--explain", o->explain,
                  "Run only the row on this line of the (one) table and print what bounds each of its kernels, per "
                  "core, next to the measurement")
      ->check(CLI::Range(2, 100000000));
  return {cmd, [o] {
            auto& v = o->validate;
            o->arch.apply_to(v);
            v.between_runs = spyre::sim::parse_between_runs(o->between_runs);  // "auto": unset
            v.forced_splits = spyre::studies::parse_forced_splits(o->forced_splits);
            if (!o->quiet)
              v.on_row = [](const auto& row) { std::cout << spyre::studies::validate_row_line(row) << std::flush; };
            const bool one_table = v.tables.size() == 1 && std::filesystem::path(v.tables[0]).extension() == ".csv";
            if (o->explain > 0) {
              if (!one_table) spyre::fail("", "--explain", "give one CSV table");
              v.table = v.tables[0];
              std::cout << spyre::studies::explain_row(v, o->explain);
              return kOk;
            }
            if (one_table) {
              v.table = v.tables[0];
              std::cout << spyre::studies::validate_table(spyre::studies::run_validate(v));
              return kOk;
            }
            const auto all = spyre::studies::run_validate_sources(v);
            for (const auto& source : all.sources) {
              std::cout << "\n== " << source.name << " (" << spyre::join(source.tables, ", ") << ")\n"
                        << spyre::studies::validate_table(source);
            }
            std::cout << spyre::studies::sources_summary_table(all);
            return kOk;
          }};
}

Subcommand add_calibrate(CLI::App& app) {
  struct Options {
    spyre::studies::CalibrateOptions calibrate;
    ArchOptions arch;
    std::string between_runs, forced_splits = "auto";
  };
  auto o = std::make_shared<Options>();
  auto& c = o->calibrate;
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Fit arch parameters to measured kernel times and show each source's error left out of the fit "
      "(docs/calibration.md, \"Calibrate\")");
  cmd->add_option("sources", c.validate.tables,
                  "Measurement tables, sources.json manifests or folders, as validate takes them (models/calibration: "
                  "every built-in source)")
      ->required();
  cmd->add_option("--param", c.params,
                  "An arch parameter to fit: PATH (searched from half to twice its value) or PATH=LO:HI (repeatable)")
      ->required();
  cmd->add_option("-o,--output", c.output_dir,
                  "Folder for arch.json (the fit as an arch file), calibration.json, calibration.md and "
                  "evaluations.jsonl (every run; a re-run resumes from it)")
      ->required();
  cmd->add_option("--rank-weight", c.rank_weight,
                  "Weight of (1 - Spearman) of each source's shapes next to its mean |log error|")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--rows-per-source", c.rows_per_source,
                  "Rows of each source the fit samples, spread over its shapes (0: every row); the errors reported "
                  "are over every row")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--steps", c.steps, "Samples of each parameter's range on each side of its value")
      ->check(CLI::Range(1, 10))
      ->capture_default_str();
  cmd->add_flag(
      "--no-leave-out", [o](int64_t) { o->calibrate.leave_out = false; },
      "Fit to all the sources only, not also without each in turn");
  add_arch_options(cmd, o->arch);
  cmd->add_option("--where", c.validate.where, "Keep rows whose COLUMN equals VALUE (every table must have COLUMN)");
  add_warmup_option(cmd, c.validate.warmup, "profilers time repeated runs; 0: a cold start");
  add_between_runs_option(cmd, o->between_runs, "auto");
  cmd->add_option("--forced-splits", o->forced_splits, "As validate: auto, as-emitted or as-given")
      ->check(CLI::IsMember({"auto", "as-emitted", "as-given"}))
      ->capture_default_str();
  cmd->add_option("-j,--workers", c.validate.workers, "Worker processes running rows (default: the machine's cores)")
      ->check(CLI::Range(1, 1024));
  return {cmd, [o] {
            auto& c = o->calibrate;
            o->arch.apply_to(c.validate);
            c.validate.between_runs = spyre::sim::parse_between_runs(o->between_runs);
            c.validate.forced_splits = spyre::studies::parse_forced_splits(o->forced_splits);
            c.progress = &std::cerr;
            const auto result = spyre::studies::run_calibrate(c);
            std::cout << spyre::studies::calibration_table(result) << "wrote " << c.output_dir
                      << "/arch.json, calibration.json, calibration.md\n";
            return kOk;
          }};
}

// The summary line and the failures of a sweep's results.
int report_sweep(const spyre::studies::SweepOutcome& outcome, const std::string& ran) {
  const auto missing = static_cast<size_t>(
      std::count_if(outcome.rows.begin(), outcome.rows.end(), [](const auto& r) { return r.status == "missing"; }));
  std::cout << outcome.points << " points: " << ran << outcome.failures.size() - missing << " failed"
            << (missing > 0 ? ", " + std::to_string(missing) + " without a result yet" : "") << "; results in "
            << outcome.out_prefix << ".csv and " << outcome.out_prefix << ".json\n";
  for (const auto& row : outcome.rows) {
    if (row.status == "error")
      std::cerr << "spyre-sim: sweep: " << spyre::studies::describe_sweep_row(row) << ": " << row.error << "\n";
  }
  if (missing > 0)
    std::cerr << "spyre-sim: sweep: " << missing
              << " points have no result yet (queued, running, or in tasks that died: `--slurm` again resubmits "
                 "those)\n";
  return outcome.failures.empty() ? kOk : kSweepPointsFailed;
}

int submit_sweep(const spyre::studies::SweepOptions& o, spyre::studies::SlurmOptions slurm) {
  slurm.executable = std::filesystem::read_symlink("/proc/self/exe").string();
  const auto s = spyre::studies::submit_sweep_to_slurm(o, slurm);
  for (const auto& dead : s.dead) std::cerr << "spyre-sim: sweep: " << dead << "; submitting again\n";
  std::cout << s.points << " points: " << s.done << " done, " << s.in_flight << " queued or running";
  if (s.job_id.empty()) {
    std::cout << ", nothing to submit";
  } else {
    std::cout << ", " << s.submitted << " submitted as job " << s.job_id << " (" << s.tasks << " array task"
              << (s.tasks == 1 ? "" : "s") << ", " << s.script << ")";
  }
  std::cout << "; when the queue is done: spyre-sim sweep " << o.spec << " --output " << s.out_prefix << " --collect\n";
  return kOk;
}

int run_slurm_task(const spyre::studies::SweepOptions& o, const std::string& submission) {
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (task == nullptr)
    spyre::fail("SLURM_ARRAY_TASK_ID", "", "is not set: --slurm-task runs inside a Slurm array task");
  const auto rows = spyre::studies::run_sweep_slurm_task(o, submission, std::atoi(task), std::cout);
  const bool failed = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.status != "ok"; });
  return failed ? kSweepPointsFailed : kOk;
}

Subcommand add_sweep(CLI::App& app) {
  struct Options {
    spyre::studies::SweepOptions sweep;
    spyre::studies::SlurmOptions slurm;
    bool submit = false, collect = false;
    std::string slurm_task;
  };
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("sweep", "Run a what-if study: a grid of arch parameters and compile options (docs/sweep.md)");
  cmd->add_option("spec", o->sweep.spec, "Sweep spec JSON (examples in models/sweeps/)")->required();
  cmd->add_option("-o,--output", o->sweep.out_prefix,
                  "Results prefix: PREFIX.csv, PREFIX.json, PREFIX.jsonl (the journal a re-run resumes from; "
                  "default: the spec's name)");
  cmd->add_option("-j,--workers", o->sweep.workers, "Worker processes (default: the machine's cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--arch", o->sweep.arch_path, "Arch config every point starts from (default: built-in spyre.json)");
  auto* submit = cmd->add_flag("--slurm", o->submit,
                               "Submit the points without results as a Slurm job array (again: resubmit dead tasks)");
  cmd->add_flag("--collect", o->collect, "Merge the Slurm tasks' shards into PREFIX.csv and PREFIX.json")
      ->excludes(submit);
  const std::string slurm_group = "Slurm (with --slurm)";
  cmd->add_option("--partition", o->slurm.partition, "sbatch --partition")->group(slurm_group)->needs(submit);
  cmd->add_option("--time", o->slurm.time, "sbatch --time, per array task")->group(slurm_group)->needs(submit);
  cmd->add_option("--account", o->slurm.account, "sbatch --account")->group(slurm_group)->needs(submit);
  cmd->add_option("--points-per-task", o->slurm.points_per_task, "Points each array task runs (default 8)")
      ->group(slurm_group)
      ->needs(submit)
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--cpus-per-task", o->slurm.cpus_per_task, "CPUs per array task, its worker processes (default 1)")
      ->group(slurm_group)
      ->needs(submit)
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--sbatch-arg", o->slurm.sbatch_args, "Another sbatch option, as it is (repeatable)")
      ->group(slurm_group)
      ->needs(submit)
      ->allow_extra_args(false);
  cmd->add_option("--slurm-task", o->slurm_task, "Run one array task of a submission (the batch script's command)")
      ->group("")
      ->excludes(submit);
  return {cmd, [o] {
            if (!o->slurm_task.empty()) return run_slurm_task(o->sweep, o->slurm_task);
            if (o->submit) return submit_sweep(o->sweep, o->slurm);
            if (o->collect) {
              const auto outcome = spyre::studies::collect_sweep(o->sweep);
              return report_sweep(outcome, "");
            }
            o->sweep.progress_bar = ::isatty(STDERR_FILENO) != 0;
            const auto outcome = spyre::studies::run_sweep(o->sweep, std::cerr);
            return report_sweep(
                outcome, std::to_string(outcome.ran) + " ran, " + std::to_string(outcome.skipped) + " done before, ");
          }};
}

Subcommand add_arch(CLI::App& app) {
  struct Options {
    ArchOptions arch;
    bool json = false, schema = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("arch", "Print every arch parameter with its unit and source");
  add_arch_options(cmd, o->arch);
  cmd->add_flag("--json", o->json, "Print the built-in card as an arch file (models/arch/spyre.json)");
  cmd->add_flag("--schema", o->schema, "Print the JSON Schema of arch files (models/arch/spyre.schema.json)");
  return {cmd, [o] {
            if (o->json || o->schema) {
              std::cout << (o->json ? spyre::builtin_arch_json() : spyre::arch_json_schema());
              return kOk;
            }
            for (const auto& line : spyre::describe_arch(o->arch.path, o->arch.overrides)) std::cout << line << "\n";
            return kOk;
          }};
}

Subcommand add_ops(CLI::App& app) {
  struct Options {
    bool markdown = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "ops", "Print every SuperDSC op the simulator reads and the compiler emits: its torch op, unit, cost, constants");
  cmd->add_flag("--markdown", o->markdown, "Print the table as markdown (docs/ops.md)");
  return {cmd, [o] {
            if (o->markdown) {
              std::cout << spyre::ops_markdown();
              return kOk;
            }
            for (const auto& line : spyre::describe_ops()) std::cout << line << "\n";
            return kOk;
          }};
}

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  CLI::App app{"spyre-sim: a cycle-approximate simulator of the IBM Spyre accelerator"};
  app.require_subcommand(1);
  const std::vector<Subcommand> subcommands = {add_run(app),   add_check(app),    add_compile(app),   add_plan(app),
                                               add_study(app), add_validate(app), add_calibrate(app), add_sweep(app),
                                               add_arch(app),  add_ops(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what) c = c == '\n' ? ' ' : c;
    std::cerr << "spyre-sim: error: " << what << " (see --help)\n";
    return kBadInput;
  }
  try {
    for (const auto& s : subcommands) {
      if (s.app->parsed()) return s.run();
    }
    return kInternalError;
  } catch (const spyre::SpyreError& e) {
    std::cerr << "spyre-sim: error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::filesystem::filesystem_error& e) {
    // The file system refused a path the user gave (a symlink loop, no
    // permission, a file where a directory must be).
    std::cerr << "spyre-sim: error: " << e.path1().string() << ": " << e.code().message() << "\n";
    return kBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "spyre-sim: error: out of memory: the input asks for more than this machine has\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "spyre-sim: internal error: " << e.what() << "\n";
    return kInternalError;
  }
}
