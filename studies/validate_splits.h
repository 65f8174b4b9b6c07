#pragma once
// `spyre-sim validate`: the card model against measured kernel times, one
// table (measurement_rows.h: matmul splits, streaming op records, kernels,
// softmax stages) or several sources (measurement_sources.h) at once.
// Reported: each row's error, per op the median error, and per shape (and LX
// setting) the rank correlation of simulated vs measured time over its splits
// (or core counts) and the measured cost of the one the model ranks fastest —
// whether the model can choose a split, not only predict a time.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/json_node.h"
#include "studies/measurement_rows.h"
#include "studies/measurement_sources.h"

namespace spyre::studies {

struct ValidateOptions : TableOptions {
  std::string table;                               // the CSV (run_validate)
  std::vector<std::string> tables;                 // run_validate_sources: CSVs, sources.json manifests or folders
  std::string report_path;                         // JSON
  std::string csv_path;                            // one row per measurement: measured, simulated, error
  int workers = 0;                                 // processes running rows at once; 0: one per hardware thread
  std::function<void(const ValidateRow&)> on_row;  // called for each row run, in the table's order
};

// Rows of one shape at one LX setting: the splits the model must rank.
struct ValidateGroup {
  std::string shape;
  std::string lx;  // as the CSV writes it ("0.2"), "-" without the column
  std::vector<size_t> rows;
  double spearman = 0;        // NaN with fewer than 3 rows or no spread
  size_t pick = 0, best = 0;  // the model's fastest split and the measured fastest (row indices)
};

// How well the model ranks splits, over the shapes measured at one LX fraction.
struct RankingSummary {
  std::string lx;
  size_t shapes = 0;                 // groups with 2 or more splits
  double median_spearman = 0;        // over groups with a finite correlation (NaN: none)
  double picks_us = 0, best_us = 0;  // measured time of the model's picks and of the device-best, summed
};

// The errors of one op (the `op` column), e.g. one family of the sweep.
struct OpSummary {
  std::string op;
  size_t rows = 0;
  double median_abs_error = 0, median_error = 0;  // signed: + the model is slow
  size_t within_10 = 0, within_25 = 0;
};

struct ValidateSummary {
  size_t rows = 0;
  double median_abs_error = 0, median_error = 0;  // signed: + the model is slow
  size_t within_10 = 0, within_20 = 0, within_25 = 0;
  // Over every LX setting: the median of the shapes' correlations (NaN: none)
  // and the measured cost of the model's picks over the device-best (NaN: no
  // shape with two or more rows).
  double median_spearman = 0, picks_over_best = 0;
  std::vector<RankingSummary> ranking;  // one per LX setting, in the table's order
  std::vector<OpSummary> ops;           // in the table's order; empty without an `op` column
};

struct Validation {
  ValidateOptions options;
  std::string name;                 // the source's name (a table's file name without .csv)
  std::vector<std::string> tables;  // the source's tables
  std::vector<ValidateRow> rows;
  std::vector<SkippedRow> skipped;
  std::vector<ValidateGroup> groups;
  ValidateSummary summary;
  Json report;
};

// Throws SpyreError (one line: file, line, column, reason) for a bad table, a
// row that cannot be run, or a table none of whose rows the compiler can make.
Validation run_validate(const ValidateOptions& options);

// Every source of `options.tables` (measurement_sources.h), its rows run in
// one pool of workers: one Validation per source, and a report of them all.
struct SourcesValidation {
  std::vector<Validation> sources;
  Json report;
};
SourcesValidation run_validate_sources(const ValidateOptions& options);
// A line per source: rows, median |error|, within 20%, ranking.
std::string sources_summary_table(const SourcesValidation& v);

// The rows' errors summarised: per op, per shape (Spearman, picks) and overall
// (v.rows and v.skipped given; v.groups, v.summary and v.report filled).
void summarize_validation(Validation& v);
// One source's tables read: its rows in order, each with its table, and its
// Validation with options, name and tables set.
struct SourceEntries {
  Validation validation;
  std::vector<std::pair<std::string, TableEntry>> entries;  // table path, entry
};
std::vector<SourceEntries> read_sources(const std::vector<MeasurementSource>& sources, const ValidateOptions& options);

// A row to simulate with these --set overrides after the job's own.
struct SimulationJob {
  const RowJob* job = nullptr;
  std::vector<std::string> overrides;
};
// Runs jobs in a pool of `workers` processes (0: one per hardware thread):
// each job's result (simulate_row_job), or {"error": message}. `done` (may be
// empty) is given each job's index and result as it ends, in the order they end.
std::vector<Json> simulate_jobs(const std::vector<SimulationJob>& jobs, const ValidateOptions& options,
                                const std::function<void(size_t, const Json&)>& done = {});

// `validate --explain LINE`: the row on that line of options.table run here,
// next to its measurement: each kernel's time and what bounds it, on its
// slowest core and on every core (sim/report/kernel_bounds.h). Throws
// SpyreError for a line that holds no row, or a row skipped (with why).
std::string explain_row(const ValidateOptions& options, int line);

// The per-shape table and the summary; validate_row_line: one row's line.
std::string validate_table(const Validation& v);
std::string validate_row_line(const ValidateRow& row);
// Spearman rank correlation (ties share their mean rank); NaN when undefined.
double spearman(const std::vector<double>& a, const std::vector<double>& b);
double median(std::vector<double> values);  // NaN when empty

}  // namespace spyre::studies
