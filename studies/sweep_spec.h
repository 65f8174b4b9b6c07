#pragma once
// A what-if study as a file (`spyre-sim sweep SPEC`, docs/sweep.md): what to
// run (bundles, compiled programs, model graphs, built-in workloads with
// their compile options) and the grid of arch parameters and compile options
// to run it over. Reading the spec expands the grid into points, each with a
// hash of what it runs, so a re-run knows which points are done.
//
// {"name": "...",
//  "runs": [{"name"?, "bundle" | "graph" | "workload", "shape"?, "params"?,
//            "cores"?, "split"?, "lx_planning"?, "lx_stage"?, "solver"?, "work_division"?}],
//  "axes": [{"key": K, "values": [...]} | {"key": K, "range": {"from", "to", "step"}}
//           | {"zip": [axis, axis, ...]}],          crossed in order; a zip steps together
//  "keep": [metric, ...]?, "warmup": N?, "between_runs": "back-to-back" | "device-work"?}
// K is an arch parameter (any `--set` key) or compile.cores, compile.split,
// compile.lx_planning, compile.lx_stage, compile.solver, compile.work_division,
// compile.cards (tensor parallelism of the granite workload).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/json_node.h"
#include "sim/hw/measurement_protocol.h"

namespace spyre::studies {

struct SweepRun {
  std::string name;
  std::string bundle, graph, workload;  // exactly one; paths resolved against the spec's folder
  Json definition;                      // the run as the spec writes it (part of each point's hash)
};

struct SweepPoint {
  size_t index = 0;
  size_t run = 0;                                           // into SweepSpec::runs
  std::vector<std::pair<std::string, std::string>> values;  // axis key -> value as text, in axis order
  std::string hash;                                         // 16 hex digits
};

struct SweepSpec {
  std::string file, name;
  std::vector<SweepRun> runs;
  std::vector<std::string> axis_keys;  // result columns, in order
  std::vector<std::string> keep;       // metric columns kept (all when the spec names none)
  sim::MeasurementProtocol protocol;   // as run --warmup, --between-runs
  int sample_repeats = 0;              // as run --sample-repeats
  std::vector<SweepPoint> points;
};

// The metrics a sweep row can hold, in column order.
const std::vector<std::string>& sweep_metric_names();

// Throws SpyreError naming the file, the JSON path and the reason.
SweepSpec read_sweep_spec(const std::string& path);

}  // namespace spyre::studies
