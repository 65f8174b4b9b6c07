// spyre_sim, the Python module: the libraries called directly (not the CLI).
// Inputs and outputs are NumPy arrays by tensor name, reports are dicts (the
// JSON report, decoded by Python's json module), and bad input raises
// spyre_sim.SpyreError carrying the CLI's one-line message.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <filesystem>

#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile_job.h"
#include "compiler/compiler.h"
#include "compiler/ir/llm_config.h"
#include "compiler/ir/workloads.h"
#include "runtime/arch_config.h"
#include "runtime/error.h"
#include "runtime/hazard.h"
#include "runtime/json_node.h"
#include "sim/report/run_report.h"
#include "sim/run_bundle.h"
#include "sim/run_kernel_cache.h"
#include "studies/calibrate.h"
#include "studies/split_cost_sim.h"
#include "studies/sweep_runner.h"
#include "studies/validate_splits.h"

namespace py = pybind11;
namespace sc = spyre::compiler;

namespace {

using Strings = std::vector<std::string>;

// nlohmann JSON -> Python objects, through Python's own decoder.
py::object to_python(const spyre::Json& json) { return py::module_::import("json").attr("loads")(json.dump()); }

spyre::NpyArray to_npy(const std::string& name, const py::handle& value) {
  const auto array = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(value);
  if (!array) throw spyre::SpyreError("inputs['" + name + "']: not convertible to a float array");
  spyre::NpyArray out;
  out.dtype = "f4";
  for (py::ssize_t d = 0; d < array.ndim(); ++d) out.shape.push_back(array.shape(d));
  out.values.assign(array.data(), array.data() + array.size());
  return out;
}

py::array_t<float> to_array(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  py::array_t<float> out(dims);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

// between_runs as the CLI's --between-runs spells it; "" (validate): each row's own.
std::optional<spyre::sim::BetweenRuns> between_runs_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto parsed = spyre::sim::parse_between_runs(text);
  if (!parsed) throw spyre::SpyreError("between_runs: '" + text + "' is not back-to-back or device-work");
  return parsed;
}

spyre::sim::RunOptions run_options(const std::string& bundle, const std::optional<py::dict>& inputs,
                                   std::optional<float> fill, const std::string& arch, const Strings& set, bool vf,
                                   int warmup, const std::string& between_runs) {
  spyre::sim::RunOptions o;
  o.bundle = bundle;
  o.fill = fill;
  o.arch_path = arch;
  o.arch_overrides = set;
  o.vf = vf;
  o.protocol = {warmup, between_runs_of(between_runs).value_or(spyre::sim::BetweenRuns::kBackToBack)};
  if (inputs) {
    for (const auto& [key, value] : *inputs) {
      const std::string name = py::str(key);
      o.input_arrays[name] = to_npy(name, value);
    }
  }
  return o;
}

py::dict outcome_dict(const spyre::sim::RunOutcome& outcome) {
  py::dict outputs;
  for (const auto& [name, values] : outcome.outputs)
    outputs[name.c_str()] = to_array(outcome.output_shapes.at(name), values);
  py::dict result;
  result["report"] = to_python(spyre::sim::report_to_json(outcome.report));
  result["outputs"] = outputs;
  result["expect_passed"] = !outcome.expect_failed;
  return result;
}

// Runs `work` with the GIL released (the libraries never touch Python, and a
// long simulation must not stop other Python threads) and returns its result.
template <typename Work>
auto without_gil(Work&& work) {
  py::gil_scoped_release release;
  return work();
}

// A torch-spyre kernel cache: each kernel as its own program, in run order.
py::dict run_cache(const spyre::sim::RunOptions& o, const std::string& order) {
  const spyre::sim::CacheRun cache = without_gil([&] { return spyre::sim::run_kernel_cache(o, order); });
  py::list kernels;
  bool passed = true;
  for (const auto& k : cache.kernels) {
    py::dict kernel = outcome_dict(k.outcome);
    kernel["name"] = k.name;
    passed &= !k.outcome.expect_failed;
    kernels.append(kernel);
  }
  py::dict result;
  result["report"] = to_python(spyre::sim::cache_report_to_json(cache));
  result["kernels"] = kernels;
  result["expect_passed"] = passed;
  return result;
}

py::dict run(const std::string& bundle, const std::optional<py::dict>& inputs, std::optional<float> fill,
             const std::string& expect, std::optional<double> rtol, std::optional<double> atol, const std::string& arch,
             const Strings& set, bool vf, int warmup, const std::string& between_runs, const std::string& order,
             int sample_repeats, const std::map<std::string, int64_t>& dims) {
  spyre::sim::RunOptions o = run_options(bundle, inputs, fill, arch, set, vf, warmup, between_runs);
  if (sample_repeats < 0) throw spyre::SpyreError("sample_repeats: " + std::to_string(sample_repeats) + " is negative");
  o.sample_repeats = sample_repeats;
  for (const auto& [name, value] : dims) {
    if (value < 1) throw spyre::SpyreError("dims: " + name + " = " + std::to_string(value) + " is not positive");
  }
  o.symbols = dims;
  o.expect_dir = expect;
  o.rtol = rtol;
  o.atol = atol;
  if (spyre::sim::is_kernel_cache(bundle)) {
    if (inputs) throw spyre::SpyreError(bundle + ": a kernel cache takes no input arrays (use fill)");
    return run_cache(o, order);
  }
  const spyre::sim::RunOutcome outcome = without_gil([&] { return spyre::sim::run_bundle(o); });
  return outcome_dict(outcome);
}

py::list check(const std::string& bundle, const std::string& arch, const Strings& set, bool vf) {
  spyre::sim::RunOptions o = run_options(bundle, std::nullopt, std::nullopt, arch, set, vf, 0, "");
  const std::vector<spyre::Hazard> hazards = without_gil([&] { return spyre::sim::run_bundle(o).report.hazards; });
  py::list out;
  for (const auto& h : hazards) {
    py::dict d;
    d["kind"] = h.kind;
    d["bundle"] = h.bundle;
    d["file"] = h.file;
    d["tensor"] = h.tensor;
    d["cores"] = h.cores;
    d["detail"] = h.detail;
    d["line"] = spyre::format_hazard(h);
    out.append(d);
  }
  return out;
}

py::dict compile(const std::string& output, const std::string& graph, const std::string& workload,
                 const std::vector<int64_t>& shape, int cores, const Strings& split, bool lx_planning,
                 const std::string& solver, const std::string& emit_io, uint64_t seed, const std::string& arch,
                 const Strings& set, const std::string& work_division, const std::string& model, int64_t layers,
                 const std::string& phase, int64_t seq, int64_t context, int64_t cards,
                 const std::string& input_layouts) {
  sc::CompileJob job;
  job.graph_path = graph;
  job.workload = workload;
  job.params.shape = shape;
  if (!shape.empty()) job.params.given.emplace_back("shape");
  // The whole-model options, as the CLI's --layers, --phase, --seq, --context.
  for (auto [value, option] :
       {std::pair{layers, "layers"}, {seq, "seq"}, {context, "context"}, {cards > 1 ? cards : 0, "cards"}}) {
    if (value > 0) job.params.given.emplace_back(option);
  }
  job.params.layers = layers;
  job.params.cards = cards;
  job.params.seq = seq;
  job.params.context = context;
  if (!phase.empty()) {
    job.params.phase = phase;
    job.params.given.emplace_back("phase");
  }
  if (!model.empty()) {
    if (!workload.empty() || !graph.empty())
      throw spyre::SpyreError("compile: model builds the model itself: give it without a workload or a graph");
    job.workload = "granite";
    job.params = sc::llm_config_params(model, job.params);
  }
  job.output_dir = output;
  job.emit_io_dir = emit_io;
  job.seed = seed;
  job.options.cores = cores;
  job.options.lx.enabled = lx_planning;
  if (!solver.empty()) job.options.lx.solver = solver;
  job.options.device = spyre::load_arch(arch, set).limits();
  for (const auto& s : split) sc::parse_split_override(s, job.options);
  job.options.work_division = work_division;
  job.options.input_layouts = input_layouts;
  // For work_division="model"; its times kept where the CLI keeps them (SPYRE_SIM_CACHE_DIR=none: nowhere).
  spyre::studies::SimulatedSplitCost split_cost(arch, set, 0, spyre::studies::default_split_cache_dir());
  if (job.options.bmm_by_model()) job.options.split_cost = &split_cost;
  if (job.graph_path.empty() == job.workload.empty())
    throw spyre::SpyreError("compile: give a graph file, a workload name or a model config");
  const sc::CompileOutcome outcome = without_gil([&] { return sc::run_compile_job(job); });
  py::dict result;
  result["output"] = output;
  result["decisions"] = outcome.decisions;
  return result;
}

// --forced-splits as the CLI spells it; "" is "auto" (each source's own).
std::optional<spyre::studies::ForcedSplits> forced_splits_of(const std::string& text) {
  return spyre::studies::parse_forced_splits(text.empty() ? "auto" : text);
}

py::dict validate(const std::string& table, const Strings& where, const std::string& arch, const Strings& set,
                  int warmup, const std::string& between_runs, int workers, const std::string& forced_splits) {
  spyre::studies::ValidateOptions o;
  o.table = table;
  o.tables = {table};
  o.where = where;
  o.arch_path = arch;
  o.arch_overrides = set;
  o.warmup = warmup;
  o.between_runs = between_runs_of(between_runs);
  o.workers = workers;
  o.forced_splits = forced_splits_of(forced_splits);
  // The rows run in forked processes that never touch Python.
  if (std::filesystem::path(table).extension() == ".csv")
    return to_python(without_gil([&] { return spyre::studies::run_validate(o); }).report);
  return to_python(without_gil([&] { return spyre::studies::run_validate_sources(o); }).report);
}

py::dict calibrate(const Strings& sources, const Strings& params, const std::string& output, double rank_weight,
                   int rows_per_source, int steps, bool leave_out, const std::string& arch, const Strings& set,
                   int workers, const std::string& forced_splits) {
  spyre::studies::CalibrateOptions o;
  o.validate.tables = sources;
  o.validate.arch_path = arch;
  o.validate.arch_overrides = set;
  o.validate.workers = workers;
  o.validate.forced_splits = forced_splits_of(forced_splits);
  o.params = params;
  o.output_dir = output;
  o.rank_weight = rank_weight;
  o.rows_per_source = rows_per_source;
  o.steps = steps;
  o.leave_out = leave_out;
  return to_python(without_gil([&] { return spyre::studies::run_calibrate(o); }).report);
}

py::dict sweep(const std::string& spec, const std::string& output, int workers, const std::string& arch, bool collect,
               bool progress) {
  spyre::studies::SweepOptions o;
  o.spec = spec;
  o.out_prefix = output;
  o.workers = workers;
  o.arch_path = arch;
  // The workers are forked processes that never touch Python.
  const spyre::studies::SweepOutcome outcome = without_gil([&] {
    std::ostringstream quiet;
    return collect ? spyre::studies::collect_sweep(o)
                   : spyre::studies::run_sweep(o, progress ? static_cast<std::ostream&>(std::cerr) : quiet);
  });
  py::list rows;
  for (const auto& row : outcome.rows) rows.append(to_python(spyre::studies::sweep_row_to_json(row)));
  py::dict result;
  result["points"] = outcome.points;
  result["ran"] = outcome.ran;
  result["skipped"] = outcome.skipped;
  result["failures"] = outcome.failures;
  result["csv"] = outcome.out_prefix + ".csv";
  result["json"] = outcome.out_prefix + ".json";
  result["rows"] = rows;
  return result;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "spyre-sim: run SuperDSC bundles on a model of the IBM Spyre card, compile graphs, check, validate";
  static py::exception<spyre::SpyreError> error(m, "SpyreError");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const spyre::SpyreError& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  m.def("run", &run,
        "Run a bundle, a compiled program or a torch-spyre kernel cache folder; inputs by name as arrays, or fill",
        py::arg("bundle"), py::kw_only(), py::arg("inputs") = py::none(), py::arg("fill") = py::none(),
        py::arg("expect") = "", py::arg("rtol") = py::none(), py::arg("atol") = py::none(), py::arg("arch") = "",
        py::arg("set") = Strings{}, py::arg("vf") = false, py::arg("warmup") = 0,
        py::arg("between_runs") = "back-to-back", py::arg("order") = "", py::arg("sample_repeats") = 0,
        py::arg("dims") = std::map<std::string, int64_t>{});
  m.def("check", &check, "Hazards of a bundle (empty: clean), as dicts", py::arg("bundle"), py::kw_only(),
        py::arg("arch") = "", py::arg("set") = Strings{}, py::arg("vf") = false);
  m.def("compile", &compile, "Compile a graph file or built-in workload into OUTPUT", py::arg("output"), py::kw_only(),
        py::arg("graph") = "", py::arg("workload") = "", py::arg("shape") = std::vector<int64_t>{},
        py::arg("cores") = 0, py::arg("split") = Strings{}, py::arg("lx_planning") = false, py::arg("solver") = "",
        py::arg("emit_io") = "", py::arg("seed") = 0, py::arg("arch") = "", py::arg("set") = Strings{},
        py::arg("work_division") = "model", py::arg("model") = "", py::arg("layers") = 0, py::arg("phase") = "",
        py::arg("seq") = 0, py::arg("context") = 0, py::arg("cards") = 1, py::arg("input_layouts") = "consumers");
  m.def("validate", &validate,
        "Run a table of measured kernels, or every source of a sources.json manifest or folder; the report as a dict",
        py::arg("table"), py::kw_only(), py::arg("where") = Strings{}, py::arg("arch") = "", py::arg("set") = Strings{},
        py::arg("warmup") = 1, py::arg("between_runs") = "", py::arg("workers") = 0, py::arg("forced_splits") = "");
  m.def("calibrate", &calibrate,
        "Fit arch parameters to measurement sources, each source also left out; calibration.json as a dict (the fit "
        "as an arch file in OUTPUT/arch.json)",
        py::arg("sources"), py::arg("params"), py::arg("output"), py::kw_only(), py::arg("rank_weight") = 0.0,
        py::arg("rows_per_source") = 40, py::arg("steps") = 2, py::arg("leave_out") = true, py::arg("arch") = "",
        py::arg("set") = Strings{}, py::arg("workers") = 0, py::arg("forced_splits") = "");
  m.def("sweep", &sweep,
        "Run a sweep spec locally (or collect its Slurm shards); results in OUTPUT.csv/.json and as dicts; "
        "finished points of an earlier run are skipped",
        py::arg("spec"), py::kw_only(), py::arg("output") = "", py::arg("workers") = 0, py::arg("arch") = "",
        py::arg("collect") = false, py::arg("progress") = false);
  m.def(
      "workloads",
      [] {
        py::dict out;
        for (const auto& w : sc::list_workloads()) out[w.name.c_str()] = w.description;
        return out;
      },
      "The built-in workloads and what they take");
}
