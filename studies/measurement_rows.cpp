#include "studies/measurement_rows.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "compiler/codegen/program_writer.h"
#include "compiler/compiler.h"
#include "compiler/ir/workloads.h"
#include "runtime/csv_table.h"
#include "runtime/error.h"

namespace spyre::studies {

namespace {

enum class TableKind { kSplits, kSweep, kKernels, kSoftmaxStages };

const std::vector<std::string> kSplitColumns = {"B",       "M",       "N",       "K",          "split_b",
                                                "split_m", "split_n", "split_k", "measured_us"};

TableKind table_kind(const CsvTable& table) {
  if (table.has("split_m") || table.has("B")) {
    table.require(kSplitColumns);
    return TableKind::kSplits;
  }
  if (table.has("lx_stage")) {
    table.require({"rows", "cols", "dim", "lx_stage", "cores", "measured_us"});
    return TableKind::kSoftmaxStages;
  }
  if (table.has("op") && table.has("rows") && table.has("cols")) {
    table.require({"op", "rows", "cols", "cores"});
    return TableKind::kSweep;
  }
  if (table.has("kernel") || table.has("bundle")) return TableKind::kKernels;
  fail(table.path(), "line 1",
       "not a measurement table: expected matmul splits (B,M,N,K,split_b..split_k,measured_us), streaming op records "
       "(op,rows,cols,cores,kernel_us_median), kernels (kernel,measured_us) or softmax stages "
       "(rows,cols,dim,lx_stage,cores,measured_us)");
}

// The measured time column: the first of `names` the table has.
std::string time_column(const CsvTable& table, const std::vector<std::string>& names) {
  for (const auto& n : names) {
    if (table.has(n)) return n;
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "'" : " or '") + n + "'";
  fail(table.path(), "line 1", "no column " + list + " (the measured device time)");
}

double measured(const CsvTable& table, size_t r, const std::string& column) {
  const double us = table.number(r, column);
  if (us <= 0) table.fail_cell(r, column, "a device time must be positive");
  return us;
}

// COLUMN=VALUE filters of --where.
std::vector<std::pair<std::string, std::string>> parse_where(const std::vector<std::string>& where,
                                                             const CsvTable& table) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& w : where) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0) fail("", "--where " + w, "expected COLUMN=VALUE");
    const std::string column = w.substr(0, eq);
    if (!table.has(column)) fail(table.path(), "--where " + w, "the table has no column '" + column + "'");
    out.emplace_back(column, w.substr(eq + 1));
  }
  return out;
}

// The row's own bundle: `kernel` or `bundle`, relative to the table's folder,
// its kernels/ folder or, with a `case` column, the case's folder
// (splits.csv names kernels/<name> or <name>; swiglu/MEASURED.csv <case>/<kernel>).
std::string row_bundle(const CsvTable& table, size_t row) {
  for (const char* column : {"bundle", "kernel"}) {
    const std::string name = table.text(row, column);
    if (name.empty()) continue;
    const std::filesystem::path base = std::filesystem::path(table.path()).parent_path();
    std::vector<std::filesystem::path> candidates = {name, base / name, base / "kernels" / name};
    if (!table.text(row, "case").empty()) candidates.push_back(base / table.text(row, "case") / name);
    for (const auto& candidate : candidates) {
      std::error_code ec;
      if ((candidate.is_absolute() || candidate != std::filesystem::path(name)) &&
          std::filesystem::is_directory(candidate, ec))
        return candidate.string();
    }
    table.fail_cell(row, column,
                    "no bundle directory '" + name + "' next to the table, in its kernels/ folder or its case's");
  }
  return "";
}

std::string split_shape_name(const CsvTable& table, size_t row) {
  std::string name;
  for (const char* column : {"phase", "op"}) {
    const std::string t = table.text(row, column);
    if (!t.empty()) name += t + " ";
  }
  return name + table.text(row, "B") + "x" + table.text(row, "M") + "x" + table.text(row, "N") + "x" +
         table.text(row, "K");
}

// "0.2" as the CSV would write it; "-" for a row without one.
std::string lx_text(const std::optional<double>& f) {
  if (!f) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%g", *f);
  return text;
}

sim::RunOptions run_options(const TableOptions& options) {
  sim::RunOptions run;
  run.arch_path = options.arch_path;
  run.arch_overrides = options.arch_overrides;
  run.protocol.warmup = options.warmup;
  return run;
}

// What the card did between the row's timed runs: --between-runs, else
// device work where the table logs a memset per repetition (memset_us).
sim::BetweenRuns row_between_runs(const CsvTable& table, size_t r, const TableOptions& options) {
  if (options.between_runs) return *options.between_runs;
  if (!table.has("memset_us") || table.text(r, "memset_us").empty()) return sim::BetweenRuns::kBackToBack;
  return table.number(r, "memset_us") > 0 ? sim::BetweenRuns::kDeviceWork : sim::BetweenRuns::kBackToBack;
}

// A job with the parts every kind shares.
RowJob new_job(const CsvTable& table, size_t r, const TableOptions& options) {
  RowJob job;
  job.row.line = table.line(r);
  job.row.op = table.text(r, "op");
  job.row.source = "compiled";
  job.row.lx = "-";
  job.run = run_options(options);
  job.row.between_runs = job.run.protocol.between_runs = row_between_runs(table, r, options);
  return job;
}

// A matmul split row: its own bundle or the shape compiled with the split.
RowJob split_row(const CsvTable& table, size_t r, const TableOptions& options, const ArchConfig& arch) {
  RowJob job = new_job(table, r, options);
  ValidateRow& row = job.row;
  row.shape = split_shape_name(table, r);
  row.split = table.text(r, "split_b") + "_" + table.text(r, "split_m") + "_" + table.text(r, "split_n") + "_" +
              table.text(r, "split_k");
  row.measured_us = measured(table, r, "measured_us");
  if (!table.text(r, "lx_fraction").empty()) {
    const double f = table.number(r, "lx_fraction");
    if (!(f > 0 && f <= 1)) table.fail_cell(r, "lx_fraction", "must be in (0, 1] (DXP_LX_FRAC_AVAIL)");
    row.lx_fraction = f;
    job.run.arch_overrides.push_back("lx.backend_reserved_fraction=" + table.text(r, "lx_fraction"));
  }
  row.lx = lx_text(row.lx_fraction);
  job.run.bundle = row_bundle(table, r);
  row.source = job.run.bundle;
  if (!job.run.bundle.empty()) return job;
  row.source = "compiled";
  const MatmulShape shape{table.integer(r, "B", 1), table.integer(r, "M", 1), table.integer(r, "K", 1),
                          table.integer(r, "N", 1)};
  const MatmulSplit split{table.integer(r, "split_b", 1), table.integer(r, "split_m", 1),
                          table.integer(r, "split_n", 1), table.integer(r, "split_k", 1)};
  if (shape.b == 1 && split.b > 1) table.fail_cell(r, "split_b", "B is 1: nothing to split");
  if (split.cores() > arch.cores)
    table.fail_cell(
        r, "split_b",
        "the splits use " + std::to_string(split.cores()) + " cores; the card has " + std::to_string(arch.cores));
  job.matmul.emplace(shape, split);
  job.emitted_split = options.forced_splits == ForcedSplits::kAsEmitted;  // unset: as given
  return job;
}

// A streaming op row: its programs, compiled on its cores and run in turn.
RowJob sweep_row(const CsvTable& table, size_t r, std::vector<SweepProgram> programs, const TableOptions& options,
                 const ArchConfig& arch) {
  RowJob job = new_job(table, r, options);
  ValidateRow& row = job.row;
  row.shape = row.op + " " + table.text(r, "rows") + "x" + table.text(r, "cols");
  const int64_t cores = table.integer(r, "cores", 1);
  if (cores > arch.cores) table.fail_cell(r, "cores", "the card has " + std::to_string(arch.cores) + " cores");
  row.split = std::to_string(cores) + (cores == 1 ? " core" : " cores");
  row.measured_us = measured(table, r, time_column(table, {"kernel_us_median", "measured_us"}));
  const std::string lx = table.text(r, "lx");
  if (!lx.empty() && lx != "0" && lx != "1") table.fail_cell(r, "lx", "must be 0 or 1 (LX planning off or on)");
  row.lx = lx == "1" ? "on" : "off";
  job.programs = std::move(programs);
  job.cores = static_cast<int>(cores);
  job.lx_planning = lx == "1";
  return job;
}

// A real bundle and its measured kernel time.
RowJob kernel_row(const CsvTable& table, size_t r, const TableOptions& options) {
  RowJob job = new_job(table, r, options);
  ValidateRow& row = job.row;
  const std::string name = table.text(r, table.has("bundle") ? "bundle" : "kernel");
  if (name.empty()) table.fail_cell(r, table.has("bundle") ? "bundle" : "kernel", "names no bundle");
  row.shape = table.text(r, "case").empty() ? name : table.text(r, "case") + " " + name;
  if (row.op.empty()) row.op = table.text(r, "case");
  row.split = "as emitted";
  row.measured_us = measured(table, r, time_column(table, {"measured_kernel_us", "measured_us"}));
  job.run.bundle = row_bundle(table, r);
  row.source = job.run.bundle;
  return job;
}

// Seed 000's softmax at one LX planning stage (0: planning off).
RowJob softmax_stage_row(const CsvTable& table, size_t r, const TableOptions& options, const ArchConfig& arch) {
  RowJob job = new_job(table, r, options);
  ValidateRow& row = job.row;
  const int64_t rows = table.integer(r, "rows", 1), cols = table.integer(r, "cols", 1);
  const int64_t stage = table.integer(r, "lx_stage", 0);
  if (stage == 1 || stage > 4) table.fail_cell(r, "lx_stage", "must be 0 (planning off) or a stage 2..4 (seed 000)");
  const int64_t cores = table.integer(r, "cores", 1);
  if (cores > arch.cores) table.fail_cell(r, "cores", "the card has " + std::to_string(arch.cores) + " cores");
  compiler::WorkloadParams params;
  params.shape = {rows, cols};
  params.dim = table.integer(r, "dim", 0);
  params.dtype = compiler::DType::F16;
  if (row.op.empty()) row.op = "softmax";
  row.shape = "softmax " + std::to_string(rows) + "x" + std::to_string(cols) + " dim " + table.text(r, "dim") +
              (stage == 0 ? " baseline" : " stage " + std::to_string(stage));
  row.split = std::to_string(cores) + (cores == 1 ? " core" : " cores");
  row.lx = stage == 0 ? "off" : "on";
  row.measured_us = measured(table, r, "measured_us");
  try {
    job.programs.push_back({compiler::build_workload("softmax", params)});
  } catch (const SpyreError& e) {
    table.fail_cell(r, "rows", e.what());
  }
  job.cores = static_cast<int>(cores);
  job.lx_planning = stage > 0;
  job.lx_stage = stage > 0 ? static_cast<int>(stage) : 4;
  job.bundle_latency = true;
  return job;
}

// True for a "failed" cell that says so (the sweep marks failed runs).
bool failed_measurement(const CsvTable& table, size_t r) {
  const std::string f = table.text(r, "failed");
  return f == "True" || f == "true" || f == "1";
}

// The row of a sweep export: a job, or skipped with the reason.
TableEntry sweep_entry(const CsvTable& table, size_t r, const TableOptions& options, const ArchConfig& arch) {
  const std::string op = table.text(r, "op");
  if (failed_measurement(table, r))
    return {std::nullopt, {table.line(r), op, "the measurement failed (column failed)"}};
  const int64_t tiles = table.text(r, "tiles").empty() ? 0 : table.integer(r, "tiles", 0);
  if (const auto why = sweep_op_unsupported(op)) return {std::nullopt, {table.line(r), op, *why}};
  auto programs = sweep_op_programs(op, table.integer(r, "rows", 1), table.integer(r, "cols", 1), tiles);
  if (!programs)
    return {std::nullopt, {table.line(r), op, "no graph for this op (validate runs " + sweep_op_names() + ")"}};
  return {sweep_row(table, r, std::move(*programs), options, arch), {}};
}

// A message about the row on `line`, naming the table and the line.
std::string row_message(const CsvTable& table, int line, const std::string& what) {
  return what.rfind(table.path(), 0) == 0 ? what : table.path() + ": line " + std::to_string(line) + ": " + what;
}

// Runs a bundle; its kernels' device time, or its whole latency.
double simulate_us(const sim::RunOptions& run, bool bundle_latency, std::vector<sim::KernelReport>* kernels) {
  const sim::RunReport report = sim::run_bundle(run).report;
  if (kernels) kernels->insert(kernels->end(), report.kernels.begin(), report.kernels.end());
  if (bundle_latency) return report.latency_us;
  double us = 0;
  for (const auto& k : report.kernels) us += k.end_us - k.start_us;
  return us;
}

// The split torch-spyre's planner of the sweeps' era emitted for a forced
// one (ForcedSplits): the forced split if its parts divide their dims and it
// uses no fewer cores than the default division, else the default division.
MatmulSplit emitted_split(const MatmulShape& shape, const MatmulSplit& forced, const ArchConfig& arch,
                          const std::string& dir) {
  const MatmulSplit fallback = compile_matmul(shape, nullptr, arch.cores, arch.limits(), dir);
  const auto legal = matmul_split_candidates(shape, arch.cores);
  const bool divides = std::find(legal.begin(), legal.end(), forced) != legal.end();
  return divides && forced.cores() >= fallback.cores() ? forced : fallback;
}

}  // namespace

std::optional<ForcedSplits> parse_forced_splits(const std::string& text) {
  if (text == "auto") return std::nullopt;
  if (text == "as-emitted") return ForcedSplits::kAsEmitted;
  if (text == "as-given") return ForcedSplits::kAsGiven;
  fail("", "--forced-splits", "expected auto, as-emitted or as-given, got '" + text + "'");
}

MeasurementTable read_measurement_table(const std::string& path, const TableOptions& options, const ArchConfig& arch) {
  const CsvTable table = CsvTable::read(path);
  const TableKind kind = table_kind(table);
  if (kind == TableKind::kSweep) time_column(table, {"kernel_us_median", "measured_us"});
  if (kind == TableKind::kKernels) time_column(table, {"measured_kernel_us", "measured_us"});
  const auto where = parse_where(options.where, table);
  MeasurementTable out;
  out.path = path;
  for (size_t r = 0; r < table.rows(); ++r) {
    if (!std::all_of(where.begin(), where.end(), [&](const auto& w) { return table.text(r, w.first) == w.second; }))
      continue;
    try {
      switch (kind) {
        case TableKind::kSplits:
          out.entries.push_back({split_row(table, r, options, arch), {}});
          break;
        case TableKind::kSweep:
          out.entries.push_back(sweep_entry(table, r, options, arch));
          break;
        case TableKind::kKernels:
          out.entries.push_back({kernel_row(table, r, options), {}});
          break;
        case TableKind::kSoftmaxStages:
          out.entries.push_back({softmax_stage_row(table, r, options, arch), {}});
          break;
      }
    } catch (const SpyreError& e) {
      throw SpyreError(row_message(table, table.line(r), e.what()));
    }
  }
  return out;
}

Json simulate_row_job(const RowJob& job, const std::vector<std::string>& extra_overrides, const ArchConfig& arch,
                      const std::string& dir, std::vector<sim::KernelReport>* kernels) {
  std::vector<sim::RunOptions> runs;  // each program, run in turn
  std::string ran_as;
  try {
    if (job.matmul) {
      const auto& [shape, forced] = *job.matmul;
      const MatmulSplit split = job.emitted_split ? emitted_split(shape, forced, arch, dir) : forced;
      if (!(split == forced)) ran_as = split.text();
      compile_matmul(shape, &split, split.cores(), arch.limits(), dir);
      runs.push_back(job.run);
      runs.back().bundle = dir;
    }
    for (size_t p = 0; p < job.programs.size(); ++p) {
      compiler::CompileOptions compile;
      compile.device = arch.limits();
      compile.cores = job.cores;
      compile.lx.enabled = job.lx_planning && !job.programs[p].hbm_intermediates;
      compile.lx.stage = job.lx_stage;
      const compiler::Graph compiled = compiler::compile(job.programs[p].graph, compile);
      runs.push_back(job.run);
      runs.back().bundle = (std::filesystem::path(dir) / std::to_string(p)).string();
      compiler::write_program_dir(runs.back().bundle,
                                  compiler::program_files(compiled, compiler::resolve_options(compile)));
    }
  } catch (const SpyreError& e) {
    return {{"skipped", e.what()}};
  }
  if (runs.empty()) runs.push_back(job.run);  // the row's own bundle
  double us = 0;
  for (auto& run : runs) {
    run.arch_overrides.insert(run.arch_overrides.end(), extra_overrides.begin(), extra_overrides.end());
    us += simulate_us(run, job.bundle_latency, kernels);
  }
  Json result = {{"simulated_us", us}};
  if (!ran_as.empty()) result["ran_as"] = ran_as;
  return result;
}

}  // namespace spyre::studies
