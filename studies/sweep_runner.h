#pragma once
// Running a sweep (sweep_spec.h) on this machine: each point in a forked
// worker process (N at a time; a point that crashes takes only its worker
// down), its row appended to PREFIX.jsonl as it finishes. A re-run skips the
// points whose rows are there (by hash), so Ctrl-C and re-running resume.
// At the end PREFIX.csv and PREFIX.json hold one row per point, in point
// order, whatever order they finished in.

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "studies/sweep_results.h"
#include "studies/sweep_spec.h"

namespace spyre::studies {

struct SweepOptions {
  std::string spec;
  std::string out_prefix;     // PREFIX.jsonl / .csv / .json; empty: the spec's name in the working directory
  int workers = 0;            // 0: the machine's cores
  std::string arch_path;      // the card every point starts from; empty: built-in
  bool progress_bar = false;  // a redrawn bar (a terminal); otherwise a line per point
};

struct SweepOutcome {
  std::string out_prefix;
  size_t points = 0, ran = 0, skipped = 0;
  std::vector<SweepRow> rows;         // every point, in point order
  std::vector<std::string> failures;  // "point 7 (softmax, lx.size_bytes=...): message"
};

// One point, in this process. Never throws: errors go into the row.
SweepRow run_sweep_point(const SweepSpec& spec, const SweepPoint& point, const std::string& arch_path,
                         const std::string& scratch_dir);

// Runs the points, each in a forked worker, `workers` at a time; appends
// each row to the journal as it finishes and reports progress. Returns the
// rows in the order they finished.
std::vector<SweepRow> run_sweep_points(const SweepSpec& spec, const std::vector<const SweepPoint*>& points,
                                       const std::string& journal_path, int workers, const std::string& arch_path,
                                       bool progress_bar, std::ostream& progress);

// Throws SpyreError for a bad spec or output path (before anything runs).
SweepOutcome run_sweep(const SweepOptions& options, std::ostream& progress);

// Writes PREFIX.csv and PREFIX.json from what the journals hold (local rows
// and Slurm shards) without running anything; points that have not run are
// "missing" rows and count as failures.
SweepOutcome collect_sweep(const SweepOptions& options);

// The results prefix of the options (the spec's name when not given), its
// three files checked as writable. Throws SpyreError.
std::string sweep_prefix(const SweepOptions& options, const SweepSpec& spec);

}  // namespace spyre::studies
