#pragma once
// Measured kernel times read from a table into rows the card model can run:
// what `validate` compares and `calibrate` fits. Four kinds of CSV, told apart
// by their columns (docs/calibration.md, "Measurement tables"):
// - matmul splits (B, M, N, K, split_b..split_k, measured_us; optionally
//   phase, op, lx_fraction, kernel|bundle): a matmul or batched matmul with a
//   forced core split, run from its own SDSC or compiled with that split;
// - streaming op records (op, rows, cols, cores, kernel_us_median or
//   measured_us; optionally lx, tiles, failed, memset_us): one of the
//   cost-model sweep's ops (sweep_op_graph.h) compiled on its cores;
// - kernels (kernel, measured_kernel_us or measured_us; optionally case):
//   real bundles, each run as it is;
// - softmax stages (rows, cols, dim, lx_stage, cores, measured_us): seed
//   000's softmax compiled at an LX planning stage; these compare the whole
//   bundle's latency, as the seed timed a launch loop.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"
#include "runtime/arch_config.h"
#include "runtime/json_node.h"
#include "sim/hw/measurement_protocol.h"
#include "sim/run_bundle.h"
#include "studies/matmul_split.h"
#include "studies/sweep_op_graph.h"

namespace spyre::studies {

struct ValidateRow {
  int line = 0;        // in the CSV
  std::string op;      // the `op` column ("MLP down", "bcast"); "" without one
  std::string shape;   // "decode Q/O proj 1x64x4096x4096", "bcast 2048x1024"
  std::string split;   // "1_4_8_1" (b_m_n_k), "32 cores"
  std::string ran_as;  // the split that ran when torch-spyre would not emit `split` (ForcedSplits); "" otherwise
  std::string source;  // the bundle directory, or "compiled"
  std::string lx;      // the LX setting as the CSV writes it: a fraction ("0.2"), "on"/"off" (planning), "-"
  std::optional<double> lx_fraction;
  sim::BetweenRuns between_runs = sim::BetweenRuns::kBackToBack;  // the measurement's protocol
  double measured_us = 0, simulated_us = 0;
  double error() const { return simulated_us / measured_us - 1.0; }
};

// A row not run, and why (an op without a graph, a failed measurement, a
// split the compiler refuses).
struct SkippedRow {
  int line = 0;
  std::string op, reason;
};

// What a compiled split row runs. torch-spyre's matmul planner of
// 2026-06-03..24 (work_division.py, the era of the Granite and GPT-OSS split
// sweeps, which forced each split by patching its cost function) only
// considered splits whose parts divide their dims and never traded down to
// fewer cores than its default division: any other forced split was
// silently compiled as the default. The GPT-OSS sweep shows it: its splits
// on fewer than 32 cores all take the time of 1_32_1_1 to within 1%.
enum class ForcedSplits {
  kAsEmitted,  // the split torch-spyre emitted: the default division where it would not emit the forced one
  kAsGiven,    // the forced split as written
};
// "as-emitted", "as-given"; "auto": unset (each source's own).
std::optional<ForcedSplits> parse_forced_splits(const std::string& text);

// How a table's rows are read and run.
struct TableOptions {
  std::string arch_path;                    // empty: built-in
  std::vector<std::string> arch_overrides;  // --set, every row
  // Rows kept: COLUMN=VALUE, all must hold (e.g. phase=decode).
  std::vector<std::string> where;
  // Timed iterations before the measured one: profilers report repeated
  // runs (steady state), so the default is 1; 0 measures a cold start.
  int warmup = 1;
  // What the card did between the timed runs; unset: each row's own, from
  // its table: device work where it logs a memset between repetitions
  // (memset_us > 0, the sweep profiler's export), else back to back.
  std::optional<sim::BetweenRuns> between_runs;
  // Unset: the source's own (measurement_sources.h), else as given.
  std::optional<ForcedSplits> forced_splits;
};

// One row ready to run: read from the table, its cells checked, and what a
// worker needs to simulate it.
struct RowJob {
  ValidateRow row;                                            // all but simulated_us
  sim::RunOptions run;                                        // the row's LX fraction; its own bundle, if it has one
  std::optional<std::pair<MatmulShape, MatmulSplit>> matmul;  // a split row without a bundle: compiled
  bool emitted_split = false;                                 // ForcedSplits::kAsEmitted applies to `matmul`
  std::vector<SweepProgram> programs;                         // compiled on `cores` and run in turn
  int cores = 0;
  bool lx_planning = false;
  int lx_stage = 4;             // the LX planning stage of `programs` (seed 000's softmax stages)
  bool bundle_latency = false;  // compare the whole bundle's latency, not its kernels' device time
};

// A table's kept rows in its order: a job to run, or skipped already.
struct TableEntry {
  std::optional<RowJob> job;
  SkippedRow skipped;
};

struct MeasurementTable {
  std::string path;
  std::vector<TableEntry> entries;
};

// Throws SpyreError (one line: file, line, column, reason) for an unreadable
// table, a kind it cannot tell, a bad cell.
MeasurementTable read_measurement_table(const std::string& path, const TableOptions& options, const ArchConfig& arch);

// Runs one row with `arch` (its --set overrides already in the job's run
// options, `extra_overrides` after them; `arch` must be what they give),
// compiling what it needs under `dir`: {"simulated_us", "ran_as"?} or
// {"skipped": why} for a row the compiler refuses. Throws SpyreError for a
// failure of the row itself.
// With `kernels`, each run's kernel reports (times, bytes, what bounds them)
// are appended there.
Json simulate_row_job(const RowJob& job, const std::vector<std::string>& extra_overrides, const ArchConfig& arch,
                      const std::string& dir, std::vector<sim::KernelReport>* kernels = nullptr);

}  // namespace spyre::studies
