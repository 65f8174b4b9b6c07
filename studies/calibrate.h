#pragma once
// `spyre-sim calibrate`: fits named arch parameters to measurement sources
// (measurement_sources.h) and shows how well each source is predicted when
// it is left out of the fit, so over-fitting is visible.
//
// Method (a design of experiments and a separable surrogate, then real runs):
// 1. Each parameter's range (--param path=lo:hi, else half to twice its
//    value) is sampled at `steps` points each side of its value, one
//    parameter at a time, the others at their values (2 x steps x P + 1
//    points); every row of the fit's sample is simulated at each point.
// 2. Per row, log(time) is modelled as its value at the start plus, per
//    parameter, the piecewise-linear change along that parameter's samples.
// 3. Each fit (all sources; and all but one, for every source) minimises
//    its objective over the ranges on that model by coordinate search: per
//    source, the mean |log(simulated / measured)| over its sample rows plus
//    rank_weight x (1 - the mean Spearman of its shapes' rows), the sources
//    weighted alike.
// 4. Real runs, on every row: the start (before), the all-sources fit (in
//    fit) and each leave-one-out fit on the source it left out (left out).
// Every simulated time is appended to OUTPUT/evaluations.jsonl as it ends; a
// re-run with the same sources and options takes them from there (resume).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/json_node.h"
#include "studies/validate_splits.h"

namespace spyre::studies {

struct CalibrateOptions {
  ValidateOptions validate;          // tables (the sources), arch, --set, warmup, between runs, forced splits, workers
  std::vector<std::string> params;   // "path" or "path=lo:hi"
  std::string output_dir;            // arch.json, calibration.json, calibration.md, evaluations.jsonl
  double rank_weight = 0;            // weight of (1 - Spearman) in each source's objective
  int rows_per_source = 40;          // rows of each source the fit samples (spread over its shapes); 0: every row
  int steps = 2;                     // samples each side of a parameter's value
  bool leave_out = true;             // also fit without each source in turn
  std::ostream* progress = nullptr;  // a progress line per batch of runs
};

struct CalibratedParam {
  std::string path;
  double start = 0, lo = 0, hi = 0;
  bool log_scale = true;  // sampled and searched in log space (positive ranges)
  bool integer = false;
  std::string unit, source;  // the start value's
};

// One source's rows at one parameter point.
struct SourceScore {
  size_t rows = 0;
  double median_abs_error = 0, median_error = 0, within_20 = 0;  // within_20: a fraction
  double spearman = 0;                                           // median over its ranked shapes; NaN: none
  double picks_over_best = 0;                                    // the model's picks over the device-best; NaN: none
};

struct CalibrationSource {
  std::string name;
  size_t rows = 0, fit_rows = 0;  // every row that ran, and the fit's sample
  SourceScore before, in_fit, left_out;
};

struct CalibrationFit {
  std::string name;               // "all sources", "without NAME"
  std::string left_out;           // the source it leaves out; "" for all sources
  std::vector<double> values;     // per parameter
  double modelled_objective = 0;  // the surrogate's objective at `values`
  double modelled_start = 0;      // and at the start
};

struct Calibration {
  std::vector<CalibratedParam> params;
  std::vector<CalibrationFit> fits;  // all sources first, then one per left-out source
  std::vector<CalibrationSource> sources;
  size_t simulations = 0, cached = 0;  // runs this call made, and taken from evaluations.jsonl
  Json report;
  std::string arch_json;  // the all-sources fit as an arch file
};

// Throws SpyreError (one line) for a bad parameter, range or source, a row
// that fails, or an evaluations.jsonl written for other sources or options.
Calibration run_calibrate(const CalibrateOptions& options);
// The per-source table (before, in the fit, left out) and the fitted values.
std::string calibration_table(const Calibration& c);
// The same as Markdown, for docs/calibration.md.
std::string calibration_markdown(const Calibration& c);

}  // namespace spyre::studies
