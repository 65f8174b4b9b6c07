#pragma once
// The streaming kernels of torch-spyre's cost-model sweep
// (calibration/add_bcast_sweep_records.csv: columns op, rows, cols) as model
// graphs, so `validate` can run a profiler export of them. Each op names what
// the sweep's harness ran on fp16 [rows, cols] tensors:
//   add         y = a + b
//   addN        ((a + b) + c) + ... over N inputs (N = 3..9), one program:
//               the intermediates go through HBM unless LX planning keeps them
//   addN_sep    the same chain as N - 1 launches, one add each: every
//               intermediate goes through HBM, and each add reads the one the
//               add before it wrote. Run as the chain's program without LX
//               planning (a launch's device time is its SDSCs'; launch
//               overhead is not device time).
//   add_indep2  y = a + b and z = c + d, one program
//   amax        y = amax(a, dim=-1, keepdim=True)
//   bcast       y = a + b, b of shape [1, cols]
//   bcastcol    y = a + b, b of shape [rows, 1]
//   mulbcast    y = a * b, b of shape [1, cols]
//   neg         y = -a (relu, sigmoid, exp: the same with those)
//   mul         y = a * b, both [rows, cols]
//   copy        y = a + 1.0 (the harness's "copy" adds a scalar)
//   gelu        y = gelu(a) (the erf form)
//   read, sumrow  y = a.sum(dim=-1): the harness runs the same code for both
//   write       y = b + c, b of shape [1, cols] and c of shape [rows, 1]: an
//               outer sum that writes [rows, cols] from two small inputs
//   ctsum, sumcol  y = a.sum(dim=0) (ctamax, ctamin: amax, amin)
//   mean        y = a.mean(dim=-1)
//   transpose   y = a.transpose(0, 1).contiguous()
//   softmax_row_tiling  y = softmax(a, dim=-1)
//   cat0        y = torch.cat([a, a], 0): an expand of a over a new leading
//               dim of 2, materialized (Inductor's decomposition of a cat of
//               one tensor repeated); cat1 the same over a new dim 1
// (torch-spyre's cost-model harness, tools/cost_model and profile_ops.py.)
// Rows with `tiles` > 1 ran under coarse tiling of dim 0 (the harness's
// spyre_hint(num_tiles_per_dim=...)): the op runs as `tiles` loop iterations
// over row tiles (for ctsum, the dim it reduces).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace spyre::studies {

// A program of the row.
struct SweepProgram {
  compiler::Graph graph;
  bool hbm_intermediates = false;  // compiled without LX planning whatever the row's lx
};

// The programs of one row, in order; nullopt for an op not listed above.
// tiles > 1: every op coarse-tiled over dim 0 (the rows).
std::optional<std::vector<SweepProgram>> sweep_op_programs(const std::string& op, int64_t rows, int64_t cols,
                                                           int64_t tiles = 0);
// Why a row of a known op cannot be run as measured; nullopt when it can.
std::optional<std::string> sweep_op_unsupported(const std::string& op);
// "add, addN, ..." for messages.
std::string sweep_op_names();

}  // namespace spyre::studies
