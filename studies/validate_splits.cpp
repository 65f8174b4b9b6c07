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

#include "compiler/codegen/program_writer.h"
#include "compiler/compiler.h"
#include "compiler/ir/workloads.h"
#include "runtime/arch_config.h"
#include "runtime/csv_table.h"
#include "runtime/error.h"
#include "runtime/text.h"
#include "runtime/user_files.h"
#include "sim/run_bundle.h"
#include "studies/measurement_sources.h"
#include "studies/scratch_dir.h"
#include "studies/worker_pool.h"

namespace spyre::studies {

namespace {

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

Json number_or_null(double v) { return std::isfinite(v) ? Json(sim::rounded(v, 4)) : Json(nullptr); }

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

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

// The CSV of every row: measured, simulated, error (and the source's name
// when there are several).
void write_rows_csv(const std::string& path, const std::vector<Validation>& sources) {
  std::ofstream out(path);
  const bool named = sources.size() > 1;
  out << (named ? "source_name," : "") << "line,op,shape,split,ran_as,lx,source,measured_us,simulated_us,error_pct\n";
  for (const auto& v : sources) {
    for (const auto& row : v.rows) {
      if (named) out << "\"" << v.name << "\",";
      out << row.line << ",\"" << row.op << "\",\"" << row.shape << "\"," << row.split << "," << row.ran_as << ","
          << (row.lx == "-" ? "" : row.lx) << ",\"" << row.source << "\"," << row.measured_us << ","
          << sim::rounded(row.simulated_us, 3) << "," << sim::rounded(100 * row.error(), 2) << "\n";
    }
  }
  if (!out) fail(path, "", "cannot write the CSV");
}

}  // namespace

std::vector<SourceEntries> read_sources(const std::vector<MeasurementSource>& sources, const ValidateOptions& options) {
  const ArchConfig arch = load_arch(options.arch_path, options.arch_overrides);
  std::vector<SourceEntries> all;
  for (const auto& source : sources) {
    SourceEntries s;
    s.validation.options = options;
    s.validation.name = source.name;
    s.validation.tables = source.tables;
    TableOptions table_options = options;
    if (!table_options.forced_splits) table_options.forced_splits = source.forced_splits;
    for (const auto& table : source.tables) {
      for (auto& e : read_measurement_table(table, table_options, arch).entries)
        s.entries.emplace_back(table, std::move(e));
    }
    all.push_back(std::move(s));
  }
  return all;
}

namespace {

// Reads every source's tables, runs their rows in one pool, and summarises
// each source. Throws SpyreError naming the table and line of the first row
// that failed.
std::vector<Validation> validate_each(const std::vector<MeasurementSource>& sources, const ValidateOptions& options) {
  std::vector<SourceEntries> all = read_sources(sources, options);
  std::vector<SimulationJob> jobs;
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t e = 0; e < all[i].entries.size(); ++e) {
      if (!all[i].entries[e].second.job) continue;
      jobs.push_back({&*all[i].entries[e].second.job, {}});
    }
  }
  // Rows are taken (and told to on_row) in the sources' order as the prefix
  // before them completes.
  std::vector<std::optional<Json>> results(jobs.size());
  size_t taken = 0;
  std::optional<std::string> error;
  size_t next_entry_source = 0, next_entry = 0;
  auto take_ready = [&] {
    while (!error && next_entry_source < all.size()) {
      SourceEntries& s = all[next_entry_source];
      if (next_entry == s.entries.size()) {
        ++next_entry_source;
        next_entry = 0;
        continue;
      }
      const auto& [table, entry] = s.entries[next_entry];
      if (!entry.job) {
        s.validation.skipped.push_back(entry.skipped);
        ++next_entry;
        continue;
      }
      if (!results[taken]) return;
      const Json& result = *results[taken];
      const int line = entry.job->row.line;
      if (result.contains("error")) {
        const std::string what = result.at("error").get<std::string>();
        error = what.rfind(table, 0) == 0 ? what : table + ": line " + std::to_string(line) + ": " + what;
      } else if (result.contains("skipped")) {
        s.validation.skipped.push_back({line, entry.job->row.op.empty() ? entry.job->row.shape : entry.job->row.op,
                                        "the compiler cannot make it: " + result.at("skipped").get<std::string>()});
      } else {
        ValidateRow row = entry.job->row;
        row.simulated_us = result.at("simulated_us").get<double>();
        if (result.contains("ran_as")) row.ran_as = result.at("ran_as").get<std::string>();
        if (options.on_row) options.on_row(row);
        s.validation.rows.push_back(row);
      }
      ++taken;
      ++next_entry;
    }
  };
  simulate_jobs(jobs, options, [&](size_t j, const Json& result) {
    results[j] = result;
    take_ready();
  });
  take_ready();
  if (error) throw SpyreError(*error);
  std::vector<Validation> out;
  for (auto& s : all) {
    Validation& v = s.validation;
    const std::string& first = v.tables.front();
    if (v.rows.empty() && !v.skipped.empty())
      fail(first, "line " + std::to_string(v.skipped[0].line), "no row could be run: " + v.skipped[0].reason);
    if (v.rows.empty()) fail(first, "--where", "no row is left to validate");
    summarize_validation(v);
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

std::vector<Json> simulate_jobs(const std::vector<SimulationJob>& jobs, const ValidateOptions& options,
                                const std::function<void(size_t, const Json&)>& done) {
  std::vector<Json> results(jobs.size());
  ScratchDir scratch("validate");
  WorkerPoolOptions pool;
  pool.workers = options.workers > 0 ? options.workers : static_cast<int>(std::thread::hardware_concurrency());
  run_in_worker_pool(
      jobs.size(), pool,
      [&](size_t j) {
        const std::string dir = scratch.file("row" + std::to_string(j));
        return json_job_line(dir, [&] {
          std::vector<std::string> overrides = options.arch_overrides;
          overrides.insert(overrides.end(), jobs[j].overrides.begin(), jobs[j].overrides.end());
          const ArchConfig arch = load_arch(options.arch_path, overrides);
          return simulate_row_job(*jobs[j].job, jobs[j].overrides, arch, dir);
        });
      },
      [&](size_t j, const std::string* line, const std::string& failure) {
        results[j] = line != nullptr ? Json::parse(*line) : Json{{"error", failure}};
        if (done) done(j, results[j]);
      });
  return results;
}

Validation run_validate(const ValidateOptions& options) {
  if (!options.report_path.empty()) check_output_file(options.report_path, "--report");
  if (!options.csv_path.empty()) check_output_file(options.csv_path, "--csv");
  auto v = std::move(validate_each({table_source(options.table)}, options).front());
  if (!options.report_path.empty()) write_json_file(options.report_path, v.report);
  if (!options.csv_path.empty()) write_rows_csv(options.csv_path, {v});
  return v;
}

std::string explain_row(const ValidateOptions& options, int line) {
  const auto all = read_sources({table_source(options.table)}, options);
  const RowJob* job = nullptr;
  for (const auto& [table, entry] : all.front().entries) {
    if (entry.job && entry.job->row.line == line) job = &*entry.job;
    if (!entry.job && entry.skipped.line == line)
      fail(options.table, "--explain " + std::to_string(line), "the row is skipped: " + entry.skipped.reason);
  }
  if (job == nullptr) {
    fail(options.table, "--explain " + std::to_string(line),
         "no row on that line" + std::string(options.where.empty() ? "" : " that --where keeps"));
  }
  const ArchConfig arch = load_arch(options.arch_path, options.arch_overrides);
  ScratchDir scratch("explain");
  std::vector<sim::KernelReport> kernels;
  const Json result = simulate_row_job(*job, {}, arch, scratch.file("row"), &kernels);
  if (result.contains("skipped"))
    fail(options.table, "--explain " + std::to_string(line),
         "the compiler cannot make it: " + result.at("skipped").get<std::string>());
  ValidateRow row = job->row;
  row.simulated_us = result.at("simulated_us").get<double>();
  if (result.contains("ran_as")) row.ran_as = result.at("ran_as").get<std::string>();
  std::ostringstream out;
  char text[400];
  out << "line " << line << " of " << options.table << ": " << row.shape << ", split " << row.split
      << (row.ran_as.empty() ? "" : " (ran as " + row.ran_as + ")") << ", lx " << row.lx << ", "
      << (row.source == "compiled" ? "compiled" : "bundle " + row.source) << "\n";
  std::snprintf(text, sizeof text, "measured %.1f us, simulated %.1f us (%+.1f%%)%s\n\n", row.measured_us,
                row.simulated_us, 100 * row.error(),
                job->bundle_latency ? ", whole-bundle latency" : ", kernel device time");
  out << text;
  out << "what bounds each kernel: its time on the core that finished last, by what that core was doing\n"
         "(lpddr5/dma: a transfer open, split by LPDDR5's busy share; pt/sfu: compute alone; ring; idle; "
         "barrier: done, waiting for the others)\n";
  for (const auto& k : kernels) {
    std::snprintf(text, sizeof text, "\n  %-12s %-14s %3d cores  %10.1f us  launch %.1f us  core %d bound by %s: %s\n",
                  k.file.c_str(), k.op.c_str(), k.cores, k.end_us - k.start_us, k.bound.launch_us,
                  k.bound.critical_core, k.bound.bound_by.c_str(), sim::bound_text(k.bound.shares).c_str());
    out << text;
    for (const auto& c : k.bound.cores) {
      std::snprintf(text, sizeof text, "    core %2d  done at %10.1f us  by %-7s %s\n", c.core, c.end_us,
                    c.bound_by.c_str(), sim::bound_text(c.shares).c_str());
      out << text;
    }
  }
  return out.str();
}

SourcesValidation run_validate_sources(const ValidateOptions& options) {
  if (!options.report_path.empty()) check_output_file(options.report_path, "--report");
  if (!options.csv_path.empty()) check_output_file(options.csv_path, "--csv");
  SourcesValidation out;
  out.sources = validate_each(load_measurement_sources(options.tables), options);
  Json sources = Json::array();
  for (const auto& v : out.sources) sources.push_back(v.report);
  out.report = {{"validate", options.tables}, {"sources", sources}};
  if (!options.report_path.empty()) write_json_file(options.report_path, out.report);
  if (!options.csv_path.empty()) write_rows_csv(options.csv_path, out.sources);
  return out;
}

namespace {

// Rows grouped by shape at one LX setting, in the table's order.
void group_rows(Validation& v) {
  std::map<std::pair<std::string, std::string>, size_t> group_of;
  for (size_t i = 0; i < v.rows.size(); ++i) {
    const auto& row = v.rows[i];
    auto [it, added] = group_of.emplace(std::make_pair(row.shape, row.lx), v.groups.size());
    if (added) v.groups.push_back({row.shape, row.lx, {}, 0, 0, 0});
    v.groups[it->second].rows.push_back(i);
  }
}

// Errors over every row and per op.
void summarize_errors(Validation& v) {
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
  std::vector<double> signed_errors;
  for (const auto& row : v.rows) signed_errors.push_back(row.error());
  s.median_error = median(signed_errors);
}

// Per group: rank correlation, the model's pick and the device's best; per LX
// setting and overall: median Spearman and the picks' cost over the best.
void rank_groups(Validation& v) {
  ValidateSummary& s = v.summary;
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
  std::vector<double> rhos;
  double picks = 0, best = 0;
  for (const auto& g : v.groups) {
    if (std::isfinite(g.spearman)) rhos.push_back(g.spearman);
    if (g.rows.size() < 2) continue;
    picks += v.rows[g.pick].measured_us;
    best += v.rows[g.best].measured_us;
  }
  s.median_spearman = median(rhos);
  s.picks_over_best = best > 0 ? picks / best - 1 : std::numeric_limits<double>::quiet_NaN();
}

// The report (--report): rows, skipped rows, groups and the summary.
Json validation_report(const Validation& v) {
  const ValidateOptions& options = v.options;
  const ValidateSummary& s = v.summary;
  Json rows = Json::array(), groups = Json::array();
  for (const auto& row : v.rows) {
    rows.push_back({{"line", row.line},
                    {"op", row.op},
                    {"shape", row.shape},
                    {"split", row.split},
                    {"ran_as", row.ran_as.empty() ? Json(nullptr) : Json(row.ran_as)},
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
  return {{"validate", v.tables.size() == 1 ? Json(v.tables.front()) : Json(v.tables)},
          {"source", v.name},
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
            {"median_error_pct", sim::rounded(100 * s.median_error, 2)},
            {"median_spearman", number_or_null(s.median_spearman)},
            {"picks_over_best_pct", number_or_null(100 * s.picks_over_best)},
            {"within_10_pct", s.within_10},
            {"within_20_pct", s.within_20},
            {"within_25_pct", s.within_25},
            {"ops", ops},
            {"ranking", ranking}}}};
}

}  // namespace

void summarize_validation(Validation& v) {
  group_rows(v);
  summarize_errors(v);
  rank_groups(v);
  v.report = validation_report(v);
}

std::string validate_row_line(const ValidateRow& row) {
  char line[320];
  std::snprintf(line, sizeof line, "  %-36s %-9s lx %-4s %-8s measured %9.1f us  simulated %9.1f us  %+7.1f%%%s\n",
                row.shape.c_str(), row.split.c_str(), row.lx.c_str(), row.source == "compiled" ? "compiled" : "bundle",
                row.measured_us, row.simulated_us, 100 * row.error(),
                row.ran_as.empty() ? "" : ("  (ran as " + row.ran_as + ")").c_str());
  return line;
}

std::string sources_summary_table(const SourcesValidation& v) {
  std::ostringstream out;
  char line[320];
  std::snprintf(line, sizeof line, "\n%-22s %5s %7s %10s %9s %10s %9s %8s\n", "source", "rows", "skipped", "median |e|",
                "median e", "within 20%", "spearman", "picks");
  out << line;
  for (const auto& s : v.sources) {
    const ValidateSummary& m = s.summary;
    char rho[16] = "-", regret[16] = "-";
    if (std::isfinite(m.median_spearman)) std::snprintf(rho, sizeof rho, "%+.2f", m.median_spearman);
    if (std::isfinite(m.picks_over_best)) std::snprintf(regret, sizeof regret, "%+.1f%%", 100 * m.picks_over_best);
    std::snprintf(line, sizeof line, "%-22s %5zu %7zu %9.1f%% %+8.1f%% %9.0f%% %9s %8s\n", s.name.c_str(), m.rows,
                  s.skipped.size(), 100 * m.median_abs_error, 100 * m.median_error,
                  100.0 * m.within_20 / static_cast<double>(m.rows), rho, regret);
    out << line;
  }
  return out.str();
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
