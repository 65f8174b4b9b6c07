#pragma once
// `spyre-sim validate`: the card model against measured kernel times. Two
// kinds of CSV:
// - matmul splits (the columns of calibration/granite_matmul/splits.csv): each
//   row is a matmul or batched matmul with a core split and its measured
//   device time; it runs its own SDSC (a `kernel` or `bundle` directory) or,
//   without one, the shape compiled with that split;
// - streaming op records (the columns op, rows, cols, cores, lx and
//   kernel_us_median of calibration/add_bcast_sweep_records.csv): each row is
//   one of the sweep's ops (studies/sweep_op_graph.h) compiled on its cores,
//   with LX planning when lx is 1.
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
#include "sim/hw/between_runs.h"

namespace spyre::studies {

struct ValidateRow {
  int line = 0;        // in the CSV
  std::string op;      // the `op` column ("MLP down", "bcast"); "" without one
  std::string shape;   // "decode Q/O proj 1x64x4096x4096", "bcast 2048x1024"
  std::string split;   // "1_4_8_1" (b_m_n_k), "32 cores"
  std::string source;  // the bundle directory, or "compiled"
  std::string lx;      // the LX setting as the CSV writes it: a fraction ("0.2"), "on"/"off" (planning), "-"
  std::optional<double> lx_fraction;
  sim::BetweenRuns between_runs = sim::BetweenRuns::kBackToBack;  // the measurement's protocol
  double measured_us = 0, simulated_us = 0;
  double error() const { return simulated_us / measured_us - 1.0; }
};

struct ValidateOptions {
  std::string table;                        // the CSV
  std::string arch_path;                    // empty: built-in
  std::vector<std::string> arch_overrides;  // --set, every row
  // Rows kept: COLUMN=VALUE, all must hold (e.g. phase=decode) — to check a
  // model on rows held out of a fit.
  std::vector<std::string> where;
  // Timed iterations before the measured one: profilers report repeated
  // runs (steady state), so the default is 1; 0 measures a cold start.
  int warmup = 1;
  // What the card did between the timed runs; unset: each row's own, from
  // its table: device work where it logs a memset between repetitions
  // (memset_us > 0, the sweep profiler's export), else back to back.
  std::optional<sim::BetweenRuns> between_runs;
  std::string report_path;                         // JSON
  std::string csv_path;                            // one row per measurement: measured, simulated, error
  int workers = 0;                                 // processes running rows at once; 0: one per hardware thread
  std::function<void(const ValidateRow&)> on_row;  // called for each row run, in the table's order
};

// A row not run, and why (an op without a graph, a failed measurement, a
// split the compiler refuses).
struct SkippedRow {
  int line = 0;
  std::string op, reason;
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
  double median_abs_error = 0;
  size_t within_10 = 0, within_20 = 0, within_25 = 0;
  std::vector<RankingSummary> ranking;  // one per LX setting, in the table's order
  std::vector<OpSummary> ops;           // in the table's order; empty without an `op` column
};

struct Validation {
  ValidateOptions options;
  std::vector<ValidateRow> rows;
  std::vector<SkippedRow> skipped;
  std::vector<ValidateGroup> groups;
  ValidateSummary summary;
  Json report;
};

// Throws SpyreError (one line: file, line, column, reason) for a bad table, a
// row that cannot be run, or a table none of whose rows the compiler can make.
Validation run_validate(const ValidateOptions& options);
// The per-shape table and the summary; validate_row_line: one row's line.
std::string validate_table(const Validation& v);
std::string validate_row_line(const ValidateRow& row);
// Spearman rank correlation (ties share their mean rank); NaN when undefined.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace spyre::studies
