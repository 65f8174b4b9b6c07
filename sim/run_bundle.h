#pragma once
// `spyre-sim run` as a library call: load a bundle, bind .npy inputs, simulate,
// write outputs, compare with references, write the report and trace.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/npy.h"
#include "runtime/symbol_binding.h"
#include "sim/hw/measurement_protocol.h"
#include "sim/report/run_report.h"

namespace spyre::sim {

struct RunOptions {
  std::string bundle;
  std::string inputs_dir;                        // functional mode: <arg>.npy per input
  std::optional<float> fill;                     // functional mode: every input filled with this value
  std::map<std::string, NpyArray> input_arrays;  // functional mode: inputs given in memory, by name
  std::string outputs_dir;                       // write <arg>.npy per output
  std::string output_dtype = "f4";               // "f4" (exact device values) or "f2"
  std::string expect_dir;                        // compare outputs with <arg>.npy references
  // --expect tolerances: by default from the output's dtype and the reference
  // (tolerance.h), or DIR/tolerance.json when --emit-io wrote one; these override.
  std::optional<double> rtol, atol;
  std::string expect_dtype;  // judge every output as this dtype (bf16, fp16, ...); empty: its own
  std::string report_path, trace_path;
  std::string arch_path;  // empty: built-in spyre.json
  std::vector<std::string> arch_overrides;
  bool vf = false;                  // LX wiped at every bundle boundary (VF multi-tenancy)
  MeasurementProtocol protocol;     // runs before the measured one (steady state), and between them
  int sample_repeats = 0;           // --sample-repeats (SimulateOptions::sample_repeats)
  SymbolValues symbols;             // --dim NAME=VALUE: symbolic dims bound (runtime/symbol_binding.h)
  bool unknown_symbols_ok = false;  // a kernel cache's kernel: a symbol it lacks is another kernel's
};

struct RunOutcome {
  RunReport report;
  std::map<std::string, std::vector<float>> outputs;          // functional mode only
  std::map<std::string, std::vector<int64_t>> output_shapes;  // each output's host shape
  bool expect_failed = false;
};

// Throws SpyreError for bad input (one line naming file, field and reason).
RunOutcome run_bundle(const RunOptions& options);

}  // namespace spyre::sim
