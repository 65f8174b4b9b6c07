#pragma once
// A sweep's results on disk. Each point that ran is one JSON line in a
// journal: PREFIX.jsonl for points run here, PREFIX.slurm/shard-*.jsonl for
// points run by Slurm array tasks (sweep_slurm.h). Whatever ran them, the
// results are PREFIX.csv (deterministic: no wall time, so a Slurm collect and
// a local run of the same points are byte-identical) and PREFIX.json (the
// same rows with each point's wall time), one row per point in point order.

#include <cstddef>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/json_node.h"
#include "studies/sweep_spec.h"

namespace spyre::studies {

struct SweepRow {
  size_t point = 0;
  std::string hash, run;
  std::vector<std::pair<std::string, std::string>> values;  // the point's axis values
  std::string status = "ok";                                // ok | error | missing (no result yet)
  std::string error;                                        // the one-line message
  std::map<std::string, double> metrics;                    // sweep_metric_names()
  double wall_s = 0;
};

Json sweep_row_to_json(const SweepRow& row);
SweepRow sweep_row_from_json(const Json& j);

// A row as one journal line (no newline).
std::string sweep_row_line(const SweepRow& row);

// Opens a journal to append to; if its last line was cut short by a kill,
// the next row starts a new line. Throws SpyreError.
std::ofstream open_sweep_journal(const std::string& path);

// Appends one finished row (one line, flushed); a write that fails (a full
// disk) is an error naming the journal.
void append_sweep_row(std::ofstream& journal, const SweepRow& row, const std::string& path);

// Every row in the journals of PREFIX (local and Slurm shards), by point
// hash; an ok row wins over an error row of the same point. A line cut short
// by a kill is skipped: its point runs again.
std::map<std::string, SweepRow> read_sweep_results(const std::string& prefix);

// The Slurm shards' folder of PREFIX.
std::string sweep_slurm_dir(const std::string& prefix);

// "point 7 (softmax, lx.size_bytes=1048576)"
std::string describe_sweep_row(const SweepRow& row);

// A row for a point that has not run: its parameters, no metrics.
SweepRow sweep_row_of(const SweepSpec& spec, const SweepPoint& point);

// The spec's rows in point order, from the results (points without a row are
// "missing"); writes PREFIX.csv and PREFIX.json.
std::vector<SweepRow> write_sweep_results(const SweepSpec& spec, const std::map<std::string, SweepRow>& results,
                                          const std::string& prefix);

}  // namespace spyre::studies
