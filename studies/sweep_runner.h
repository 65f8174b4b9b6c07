#pragma once
// Running a sweep (sweep_spec.h) on this machine: each point in a forked
// worker process (N at a time; a point that crashes takes only its worker
// down), its row appended to PREFIX.jsonl as it finishes. A re-run skips the
// points whose rows are there (by hash), so Ctrl-C and re-running resume.
// At the end PREFIX.csv and PREFIX.json hold one row per point, in point
// order, whatever order they finished in.

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "studies/sweep_spec.h"

namespace spyre::studies {

struct SweepRow {
  size_t point = 0;
  std::string hash, run;
  std::vector<std::pair<std::string, std::string>> values;  // the point's axis values
  std::string status = "ok";                                // ok | error
  std::string error;                                        // the one-line message
  std::map<std::string, double> metrics;                    // sweep_metric_names()
  double wall_s = 0;
};

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

// Throws SpyreError for a bad spec or output path (before anything runs).
SweepOutcome run_sweep(const SweepOptions& options, std::ostream& progress);

}  // namespace spyre::studies
