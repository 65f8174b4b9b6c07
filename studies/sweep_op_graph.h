#pragma once
// The streaming kernels of torch-spyre's cost-model sweep
// (calibration/add_bcast_sweep_records.csv: columns op, rows, cols) as model
// graphs, so `validate` can run a profiler export of them. Each op names what
// the sweep's harness ran on fp16 [rows, cols] tensors:
//   add         y = a + b
//   addN        ((a + b) + c) + ... over N inputs (N = 3..9), one program:
//               the intermediates go through HBM unless LX planning keeps them
//   addN_sep    the same chain as N - 1 programs, one add each (separate
//               launches: every intermediate goes through HBM)
//   add_indep2  y = a + b and z = c + d, one program
//   amax        y = amax(a, dim=-1, keepdim=True)
//   bcast       y = a + b, b of shape [1, cols]
//   bcastcol    y = a + b, b of shape [rows, 1]

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/graph.h"

namespace spyre::studies {

// A program the row runs `runs` times, one after another.
struct SweepProgram {
  compiler::Graph graph;
  int runs = 1;
};

// The programs of one row, in order; nullopt for an op not listed above.
std::optional<std::vector<SweepProgram>> sweep_op_programs(const std::string& op, int64_t rows, int64_t cols);
// "add, addN, ..." for messages.
std::string sweep_op_names();

}  // namespace spyre::studies
