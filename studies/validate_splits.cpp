#include "studies/validate_splits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <thread>

#include "compiler/compiler.h"
#include "compiler/program_writer.h"
#include "compiler/workloads.h"
#include "runtime/arch_config.h"
#include "runtime/csv_table.h"
#include "runtime/error.h"
#include "runtime/text.h"
#include "runtime/user_files.h"
#include "sim/run_bundle.h"
#include "studies/matmul_split.h"
#include "studies/scratch_dir.h"
#include "studies/sweep_op_graph.h"
#include "studies/worker_pool.h"

namespace spyre::studies {

namespace {

const std::vector<std::string> kRequiredColumns = {"B",       "M",       "N",       "K",          "split_b",
                                                   "split_m", "split_n", "split_k", "measured_us"};

std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> out(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) out[order[k]] = (static_cast<double>(i) + static_cast<double>(j)) / 2.0;
    i = j + 1;
  }
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
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

// The row's own bundle: `kernel` or `bundle`, relative to the table's folder
// or its kernels/ folder (splits.csv names kernels/<name> or <name>).
std::string row_bundle(const CsvTable& table, size_t row) {
  for (const char* column : {"bundle", "kernel"}) {
    const std::string name = table.text(row, column);
    if (name.empty()) continue;
    const std::filesystem::path base = std::filesystem::path(table.path()).parent_path();
    for (const auto& candidate : {std::filesystem::path(name), base / name, base / "kernels" / name}) {
      std::error_code ec;
      if ((candidate.is_absolute() || candidate != std::filesystem::path(name)) &&
          std::filesystem::is_directory(candidate, ec))
        return candidate.string();
    }
    table.fail_cell(row, column, "no bundle directory '" + name + "' next to the table or in its kernels/ folder");
  }
  return "";
}

// A row the compiler cannot make (a split it refuses): skipped and listed,
// not the end of the run — the card did run it, the model cannot.
struct RowNotCompiled {
  std::string reason;
};

std::string shape_name(const CsvTable& table, size_t row) {
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

Json number_or_null(double v) { return std::isfinite(v) ? Json(sim::rounded(v, 4)) : Json(nullptr); }

}  // namespace

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (a.size() != b.size() || a.size() < 3) return nan;
  const auto ra = ranks(a), rb = ranks(b);
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / ra.size();
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / rb.size();
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : nan;
}

namespace {

// Runs a compiled or given bundle; its kernels' device time.
double simulate_us(sim::RunOptions run) {
  double us = 0;
  for (const auto& k : sim::run_bundle(run).report.kernels) us += k.end_us - k.start_us;
  return us;
}

sim::RunOptions run_options(const ValidateOptions& options) {
  sim::RunOptions run;
  run.arch_path = options.arch_path;
  run.arch_overrides = options.arch_overrides;
  run.warmup = options.warmup;
  return run;
}

// One row ready to run: read from the table, its cells checked (here, before
// any row runs), and what a worker needs to simulate it.
struct RowJob {
  ValidateRow row;                                            // all but simulated_us
  sim::RunOptions run;                                        // the row's LX fraction; its own bundle, if it has one
  std::optional<std::pair<MatmulShape, MatmulSplit>> matmul;  // a split row without a bundle: compiled
  std::vector<SweepProgram> programs;                         // a sweep row: compiled on `cores`, run in turn
  int cores = 0;
  bool lx_planning = false;
};

// What the card did between the row's timed runs: --between-runs, else
// device work where the table logs a memset per repetition (memset_us).
sim::BetweenRuns row_between_runs(const CsvTable& table, size_t r, const ValidateOptions& options) {
  if (options.between_runs) return *options.between_runs;
  if (!table.has("memset_us") || table.text(r, "memset_us").empty()) return sim::BetweenRuns::kBackToBack;
  return table.number(r, "memset_us") > 0 ? sim::BetweenRuns::kDeviceWork : sim::BetweenRuns::kBackToBack;
}

// A matmul split row: its own bundle or the shape compiled with the split.
RowJob prepare_split_row(const CsvTable& table, size_t r, const ValidateOptions& options, const ArchConfig& arch) {
  RowJob job;
  ValidateRow& row = job.row;
  row.line = table.line(r);
  row.op = table.text(r, "op");
  row.shape = shape_name(table, r);
  row.split = table.text(r, "split_b") + "_" + table.text(r, "split_m") + "_" + table.text(r, "split_n") + "_" +
              table.text(r, "split_k");
  row.measured_us = table.number(r, "measured_us");
  if (row.measured_us <= 0) table.fail_cell(r, "measured_us", "a device time must be positive");
  job.run = run_options(options);
  row.between_runs = job.run.between_runs = row_between_runs(table, r, options);
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
  return job;
}

// The sweep's time column: kernel_us_median (its export), else measured_us.
std::string sweep_time_column(const CsvTable& table) {
  if (table.has("kernel_us_median")) return "kernel_us_median";
  if (table.has("measured_us")) return "measured_us";
  fail(table.path(), "line 1", "no column 'kernel_us_median' or 'measured_us' (the measured device time)");
}

// A streaming op row: its programs, compiled on its cores and run in turn.
RowJob prepare_sweep_row(const CsvTable& table, size_t r, std::vector<SweepProgram> programs,
                         const ValidateOptions& options, const ArchConfig& arch) {
  RowJob job;
  ValidateRow& row = job.row;
  row.line = table.line(r);
  row.op = table.text(r, "op");
  row.shape = row.op + " " + table.text(r, "rows") + "x" + table.text(r, "cols");
  const int64_t cores = table.integer(r, "cores", 1);
  if (cores > arch.cores) table.fail_cell(r, "cores", "the card has " + std::to_string(arch.cores) + " cores");
  row.split = std::to_string(cores) + (cores == 1 ? " core" : " cores");
  const std::string time = sweep_time_column(table);
  row.measured_us = table.number(r, time);
  if (row.measured_us <= 0) table.fail_cell(r, time, "a device time must be positive");
  const std::string lx = table.text(r, "lx");
  if (!lx.empty() && lx != "0" && lx != "1") table.fail_cell(r, "lx", "must be 0 or 1 (LX planning off or on)");
  row.lx = lx == "1" ? "on" : "off";
  row.source = "compiled";
  job.run = run_options(options);
  row.between_runs = job.run.between_runs = row_between_runs(table, r, options);
  job.programs = std::move(programs);
  job.cores = static_cast<int>(cores);
  job.lx_planning = lx == "1";
  return job;
}

// Compiles what the row needs under `dir` (removed after) and runs it: the
// simulated device time. Throws RowNotCompiled for a row the compiler refuses.
double simulate_row(const RowJob& job, const ArchConfig& arch, const std::string& dir) {
  if (!job.matmul && job.programs.empty()) return simulate_us(job.run);
  std::vector<sim::RunOptions> runs;  // each program, run in turn
  if (job.matmul) {
    try {
      compile_matmul(job.matmul->first, &job.matmul->second, job.matmul->second.cores(), arch.limits(), dir);
    } catch (const SpyreError& e) {
      throw RowNotCompiled{e.what()};
    }
    runs.push_back(job.run);
    runs.back().bundle = dir;
  }
  for (size_t p = 0; p < job.programs.size(); ++p) {
    compiler::CompileOptions compile;
    compile.device = arch.limits();
    compile.cores = job.cores;
    compile.lx.enabled = job.lx_planning && !job.programs[p].hbm_intermediates;
    compiler::Graph compiled;
    try {
      compiled = compiler::compile(job.programs[p].graph, compile);
    } catch (const SpyreError& e) {
      throw RowNotCompiled{e.what()};
    }
    runs.push_back(job.run);
    runs.back().bundle = (std::filesystem::path(dir) / std::to_string(p)).string();
    compiler::write_program_dir(runs.back().bundle,
                                compiler::program_files(compiled, compiler::resolve_options(compile)));
  }
  double us = 0;
  for (const auto& run : runs) us += simulate_us(run);
  return us;
}

// One row in a worker: {"simulated_us"}, {"skipped": why} or {"error": message}.
std::string run_row_job(const RowJob& job, const ArchConfig& arch, const std::string& dir) {
  return json_job_line(dir, [&]() -> Json {
    try {
      return {{"simulated_us", simulate_row(job, arch, dir)}};
    } catch (const RowNotCompiled& e) {
      return {{"skipped", e.reason}};
    }
  });
}

// A message about the row on `line`, naming the table and the line.
std::string row_message(const CsvTable& table, int line, const std::string& what) {
  return what.rfind(table.path(), 0) == 0 ? what : table.path() + ": line " + std::to_string(line) + ": " + what;
}

// True for a "failed" cell that says so (the sweep marks failed runs).
bool failed_measurement(const CsvTable& table, size_t r) {
  const std::string f = table.text(r, "failed");
  return f == "True" || f == "true" || f == "1";
}

}  // namespace

Validation run_validate(const ValidateOptions& options) {
  Validation v;
  v.options = options;
  if (!options.report_path.empty()) check_output_file(options.report_path, "--report");
  if (!options.csv_path.empty()) check_output_file(options.csv_path, "--csv");
  const CsvTable table = CsvTable::read(options.table);
  // A sweep export names its shape by rows and cols; a split table has split_* columns.
  const bool sweep = table.has("op") && table.has("rows") && table.has("cols") && !table.has("split_m");
  if (sweep) {
    table.require({"op", "rows", "cols", "cores"});
    sweep_time_column(table);
  } else {
    table.require(kRequiredColumns);
  }
  const auto where = parse_where(options.where, table);
  const ArchConfig arch = load_arch(options.arch_path, options.arch_overrides);

  // The kept rows in the table's order: a job to run, or skipped already.
  struct Entry {
    std::optional<RowJob> job;
    SkippedRow skipped;
  };
  std::vector<Entry> entries;
  for (size_t r = 0; r < table.rows(); ++r) {
    if (!std::all_of(where.begin(), where.end(), [&](const auto& w) { return table.text(r, w.first) == w.second; }))
      continue;
    const std::string op = table.has("op") ? table.text(r, "op") : shape_name(table, r);
    try {
      if (!sweep) {
        entries.push_back({prepare_split_row(table, r, options, arch), {}});
        continue;
      }
      if (failed_measurement(table, r)) {
        entries.push_back({std::nullopt, {table.line(r), op, "the measurement failed (column failed)"}});
        continue;
      }
      auto programs = sweep_op_programs(op, table.integer(r, "rows", 1), table.integer(r, "cols", 1));
      if (!programs) {
        entries.push_back(
            {std::nullopt, {table.line(r), op, "no graph for this op (validate runs " + sweep_op_names() + ")"}});
        continue;
      }
      entries.push_back({prepare_sweep_row(table, r, std::move(*programs), options, arch), {}});
    } catch (const SpyreError& e) {
      throw SpyreError(row_message(table, table.line(r), e.what()));
    }
  }

  // The jobs run in worker processes; their rows are taken (and reported to
  // on_row) in the table's order as they complete, up to the first error.
  std::vector<size_t> job_entry;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].job) job_entry.push_back(i);
  }
  std::vector<std::optional<Json>> results(entries.size());
  size_t taken = 0;
  std::optional<std::string> error;
  auto take_ready = [&] {
    for (; taken < entries.size() && !error; ++taken) {
      Entry& entry = entries[taken];
      if (!entry.job) {
        v.skipped.push_back(entry.skipped);
        continue;
      }
      if (!results[taken]) return;
      const Json& result = *results[taken];
      const int line = entry.job->row.line;
      if (result.contains("error")) {
        error = row_message(table, line, result.at("error").get<std::string>());
      } else if (result.contains("skipped")) {
        v.skipped.push_back({line, entry.job->row.op.empty() ? entry.job->row.shape : entry.job->row.op,
                             "the compiler cannot make it: " + result.at("skipped").get<std::string>()});
      } else {
        ValidateRow row = entry.job->row;
        row.simulated_us = result.at("simulated_us").get<double>();
        if (options.on_row) options.on_row(row);
        v.rows.push_back(row);
      }
    }
  };
  ScratchDir scratch("validate");
  WorkerPoolOptions pool;
  pool.workers = options.workers > 0 ? options.workers : static_cast<int>(std::thread::hardware_concurrency());
  run_in_worker_pool(
      job_entry.size(), pool,
      [&](size_t j) {
        const RowJob& job = *entries[job_entry[j]].job;
        return run_row_job(job, arch, scratch.file("row" + std::to_string(job.row.line)));
      },
      [&](size_t j, const std::string* line, const std::string& failure) {
        results[job_entry[j]] = line != nullptr ? Json::parse(*line) : Json{{"error", failure}};
        take_ready();
      });
  take_ready();
  if (error) throw SpyreError(*error);
  if (v.rows.empty() && !v.skipped.empty())
    fail(options.table, "line " + std::to_string(v.skipped[0].line), "no row could be run: " + v.skipped[0].reason);
  if (v.rows.empty()) fail(options.table, "--where", "no row is left to validate");

  // Groups: one shape at one LX setting, in the table's order.
  std::map<std::pair<std::string, std::string>, size_t> group_of;
  for (size_t i = 0; i < v.rows.size(); ++i) {
    const auto& row = v.rows[i];
    auto [it, added] = group_of.emplace(std::make_pair(row.shape, row.lx), v.groups.size());
    if (added) v.groups.push_back({row.shape, row.lx, {}, 0, 0, 0});
    v.groups[it->second].rows.push_back(i);
  }
  ValidateSummary& s = v.summary;
  std::vector<double> errors;
  for (const auto& row : v.rows) {
    const double e = std::fabs(row.error());
    errors.push_back(e);
    s.within_10 += e <= 0.10;
    s.within_20 += e <= 0.20;
    s.within_25 += e <= 0.25;
  }
  s.rows = v.rows.size();
  s.median_abs_error = median(errors);
  for (const auto& row : v.rows) {
    if (row.op.empty()) continue;
    auto it = std::find_if(s.ops.begin(), s.ops.end(), [&](const auto& o) { return o.op == row.op; });
    if (it == s.ops.end()) it = s.ops.insert(s.ops.end(), OpSummary{row.op});
    it->rows++;
    it->within_10 += std::fabs(row.error()) <= 0.10;
    it->within_25 += std::fabs(row.error()) <= 0.25;
  }
  for (auto& o : s.ops) {
    std::vector<double> abs_errors, signed_errors;
    for (const auto& row : v.rows) {
      if (row.op != o.op) continue;
      abs_errors.push_back(std::fabs(row.error()));
      signed_errors.push_back(row.error());
    }
    o.median_abs_error = median(abs_errors);
    o.median_error = median(signed_errors);
  }
  for (auto& g : v.groups) {
    std::vector<double> simulated, measured;
    for (size_t i : g.rows) {
      simulated.push_back(v.rows[i].simulated_us);
      measured.push_back(v.rows[i].measured_us);
    }
    g.spearman = spearman(simulated, measured);
    g.pick = g.rows[std::min_element(simulated.begin(), simulated.end()) - simulated.begin()];
    g.best = g.rows[std::min_element(measured.begin(), measured.end()) - measured.begin()];
  }
  for (const auto& g : v.groups) {
    if (g.rows.size() < 2) continue;
    auto it = std::find_if(s.ranking.begin(), s.ranking.end(), [&](const auto& r) { return r.lx == g.lx; });
    if (it == s.ranking.end()) it = s.ranking.insert(s.ranking.end(), RankingSummary{g.lx, 0, 0, 0, 0});
    it->shapes++;
    it->picks_us += v.rows[g.pick].measured_us;
    it->best_us += v.rows[g.best].measured_us;
  }
  for (auto& r : s.ranking) {
    std::vector<double> rhos;
    for (const auto& g : v.groups) {
      if (g.lx == r.lx && std::isfinite(g.spearman)) rhos.push_back(g.spearman);
    }
    r.median_spearman = median(rhos);
  }

  Json rows = Json::array(), groups = Json::array();
  for (const auto& row : v.rows) {
    rows.push_back({{"line", row.line},
                    {"op", row.op},
                    {"shape", row.shape},
                    {"split", row.split},
                    {"source", row.source},
                    {"lx", row.lx},
                    {"lx_fraction", row.lx_fraction ? Json(*row.lx_fraction) : Json(nullptr)},
                    {"between_runs", sim::to_string(row.between_runs)},
                    {"measured_us", row.measured_us},
                    {"simulated_us", sim::rounded(row.simulated_us, 3)},
                    {"error_pct", sim::rounded(100 * row.error(), 2)}});
  }
  for (const auto& g : v.groups) {
    const auto& pick = v.rows[g.pick];
    const auto& best = v.rows[g.best];
    groups.push_back({{"shape", g.shape},
                      {"lx_fraction", g.lx},
                      {"splits", g.rows.size()},
                      {"spearman", number_or_null(g.spearman)},
                      {"model_pick", pick.split},
                      {"model_pick_measured_us", pick.measured_us},
                      {"device_best", best.split},
                      {"device_best_measured_us", best.measured_us},
                      {"regret_pct", sim::rounded(100 * (pick.measured_us / best.measured_us - 1), 2)}});
  }
  Json ops = Json::array(), skipped = Json::array();
  for (const auto& o : s.ops) {
    ops.push_back({{"op", o.op},
                   {"rows", o.rows},
                   {"median_abs_error_pct", sim::rounded(100 * o.median_abs_error, 2)},
                   {"median_error_pct", sim::rounded(100 * o.median_error, 2)},
                   {"within_10_pct", o.within_10},
                   {"within_25_pct", o.within_25}});
  }
  for (const auto& k : v.skipped) skipped.push_back({{"line", k.line}, {"op", k.op}, {"reason", k.reason}});
  Json ranking = Json::array();
  for (const auto& r : s.ranking) {
    ranking.push_back({{"lx_fraction", r.lx},
                       {"shapes", r.shapes},
                       {"median_spearman", number_or_null(r.median_spearman)},
                       {"model_picks_measured_us", sim::rounded(r.picks_us, 2)},
                       {"device_best_measured_us", sim::rounded(r.best_us, 2)},
                       {"picks_over_best_pct", sim::rounded(100 * (r.picks_us / r.best_us - 1), 2)}});
  }
  v.report = {{"validate", options.table},
              {"warmup", options.warmup},
              {"between_runs", options.between_runs ? Json(sim::to_string(*options.between_runs)) : Json("per row")},
              {"arch", options.arch_path.empty() ? "built-in" : options.arch_path},
              {"arch_overrides", options.arch_overrides},
              {"where", options.where},
              {"rows", rows},
              {"skipped", skipped},
              {"groups", groups},
              {"summary",
               {{"rows", s.rows},
                {"median_abs_error_pct", sim::rounded(100 * s.median_abs_error, 2)},
                {"within_10_pct", s.within_10},
                {"within_20_pct", s.within_20},
                {"within_25_pct", s.within_25},
                {"ops", ops},
                {"ranking", ranking}}}};
  if (!options.report_path.empty()) {
    std::ofstream out(options.report_path);
    out << v.report.dump(2) << "\n";
    if (!out) fail(options.report_path, "", "cannot write the report");
  }
  if (!options.csv_path.empty()) {
    std::ofstream out(options.csv_path);
    out << "line,op,shape,split,lx,source,measured_us,simulated_us,error_pct\n";
    for (const auto& row : v.rows) {
      out << row.line << ",\"" << row.op << "\",\"" << row.shape << "\"," << row.split << ","
          << (row.lx == "-" ? "" : row.lx) << ",\"" << row.source << "\"," << row.measured_us << ","
          << sim::rounded(row.simulated_us, 3) << "," << sim::rounded(100 * row.error(), 2) << "\n";
    }
    if (!out) fail(options.csv_path, "", "cannot write the CSV");
  }
  return v;
}

std::string validate_row_line(const ValidateRow& row) {
  char line[256];
  std::snprintf(line, sizeof line, "  %-36s %-9s lx %-4s %-8s measured %9.1f us  simulated %9.1f us  %+7.1f%%\n",
                row.shape.c_str(), row.split.c_str(), row.lx.c_str(), row.source == "compiled" ? "compiled" : "bundle",
                row.measured_us, row.simulated_us, 100 * row.error());
  return line;
}

std::string validate_table(const Validation& v) {
  std::ostringstream out;
  char line[256];
  const bool ranked = std::any_of(v.groups.begin(), v.groups.end(), [](const auto& g) { return g.rows.size() > 1; });
  if (ranked)
    out << "\nper shape: splits ranked by the model vs the card (Spearman), the model's fastest split and its "
           "measured cost over the device-best\n";
  if (ranked)
    std::snprintf(line, sizeof line, "  %-36s %4s %6s %8s  %-9s %10s  %-9s %10s %8s\n", "shape", "lx", "splits",
                  "spearman", "pick", "measured", "best", "measured", "regret");
  if (ranked) out << line;
  for (const auto& g : v.groups) {
    if (g.rows.size() < 2) continue;  // nothing to rank
    const auto& pick = v.rows[g.pick];
    const auto& best = v.rows[g.best];
    char rho[16] = "-";
    if (std::isfinite(g.spearman)) std::snprintf(rho, sizeof rho, "%+.2f", g.spearman);
    std::snprintf(line, sizeof line, "  %-36s %4s %6zu %8s  %-9s %10.1f  %-9s %10.1f %+7.1f%%\n", g.shape.c_str(),
                  g.lx.c_str(), g.rows.size(), rho, pick.split.c_str(), pick.measured_us, best.split.c_str(),
                  best.measured_us, 100 * (pick.measured_us / best.measured_us - 1));
    out << line;
  }
  const ValidateSummary& s = v.summary;
  if (!s.ops.empty()) {
    out << "\nper op: median error (+: the model is slow)\n";
    std::snprintf(line, sizeof line, "  %-24s %5s %10s %10s %10s %10s\n", "op", "rows", "median |e|", "median e",
                  "within 10%", "within 25%");
    out << line;
    for (const auto& o : s.ops) {
      std::snprintf(line, sizeof line, "  %-24s %5zu %9.1f%% %+9.1f%% %10zu %10zu\n", o.op.c_str(), o.rows,
                    100 * o.median_abs_error, 100 * o.median_error, o.within_10, o.within_25);
      out << line;
    }
  }
  for (const auto& k : v.skipped) out << "skipped line " << k.line << " (" << k.op << "): " << k.reason << "\n";
  const double n = static_cast<double>(s.rows);
  std::snprintf(line, sizeof line,
                "\n%zu rows: median |error| %.1f%%; within 10%% %zu (%.0f%%), 20%% %zu (%.0f%%), 25%% %zu (%.0f%%)\n",
                s.rows, 100 * s.median_abs_error, s.within_10, 100 * s.within_10 / n, s.within_20,
                100 * s.within_20 / n, s.within_25, 100 * s.within_25 / n);
  out << line;
  for (const auto& r : s.ranking) {
    char rho[16] = "-";
    if (std::isfinite(r.median_spearman)) std::snprintf(rho, sizeof rho, "%+.2f", r.median_spearman);
    std::snprintf(line, sizeof line,
                  "lx %s, %zu shapes: median Spearman %s; the model's picks %.1f us measured vs device-best %.1f us: "
                  "%+.1f%%\n",
                  r.lx.c_str(), r.shapes, rho, r.picks_us, r.best_us, 100 * (r.picks_us / r.best_us - 1));
    out << line;
  }
  return out.str();
}

}  // namespace spyre::studies
