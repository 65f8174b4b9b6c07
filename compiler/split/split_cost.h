#pragma once
// What a work-division search asks of a card model to rank the splits of a
// batchmatmul (matmul_split.h) and the divisions of other ops (op_split.h),
// and how it picks one from the answers. The compiler never runs a card model
// itself (docs/architecture.md): the CLI gives it one
// (studies/split_cost_sim.h) with --work-division model.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/split/matmul_split.h"

namespace spyre::compiler {

// What a card model says of one split: its kernel device time, or only a
// lower bound on it when the bound already exceeds a split it timed (the
// split cannot win, so it was not simulated); +infinity when it cannot run.
struct SplitTime {
  double kernel_us = 0;
  bool lower_bound = false;
  double bound_us = 0;  // the model's lower bound (0: none), what the search ordered and pruned by
};

// Splits whose times differ by less than this fraction are ties: the measured
// kernels repeat within ~1% on a pod (calibration/granite_matmul/README.md),
// so a finer difference is one no measurement could confirm.
constexpr double kSplitTimeTolerance = 0.01;

// What one division of a device op other than a batchmatmul moves, for a cost
// model's lower bound: the bytes its cores read from HBM, all together and
// the busiest core's, the input tensors' own bytes (what a cold run must
// fetch at least once), the bytes written, the busiest core's elements.
struct OpSplitLoad {
  int64_t cores = 1;
  double read_bytes = 0;
  double max_core_read_bytes = 0;
  double distinct_read_bytes = 0;
  double write_bytes = 0;
  double max_core_elements = 0;   // the busiest core's elements computed (a reduction's: of its input), sticks padded
  bool every_core_writes = true;  // false when a reduction dim is split: partial sums meet on the reduce ring first
};

// A device op other than a batchmatmul (pointwise ops, reductions, copies)
// and its legal divisions over the cores, as a work-division search asks a
// card model to time them: each division compiled as a program of that op
// alone, its operands in HBM in the layouts the graph gives them.
struct OpSplitQuery {
  std::string op;    // its opFuncName
  std::string unit;  // where it computes: "sfp" (the SFU) or "pt" (the PT array)
  std::string key;   // the op and its operands: two queries with one key time alike (across compiles too)
  std::vector<std::string> splits;  // each division as the decisions print it ("x=16 out=2")
  std::vector<OpSplitLoad> loads;   // per division
  // Division i's program: every file by its path relative to the program
  // directory (program_writer.h). Called where the model runs it.
  std::function<std::map<std::string, std::string>(size_t)> program;
};

// A card model that times core splits: of batchmatmuls, and of other ops.
class SplitCostModel {
 public:
  virtual ~SplitCostModel() = default;
  // One time per split, in order. Every split that could be the fastest or
  // tie with it is timed exactly: a lower bound is returned only where it is
  // more than kSplitTimeTolerance above an exact time.
  virtual std::vector<SplitTime> matmul_kernel_us(const MatmulShape& shape, const std::vector<MatmulSplit>& splits) = 0;
  // The same for the divisions of another op; empty when the model times
  // only matmuls (the op then keeps the default rule's division).
  virtual std::vector<SplitTime> op_kernel_us(const OpSplitQuery& /*query*/) { return {}; }
  // The rate at which the card moves HBM bytes an op could have kept in LX
  // (one write and one read back), in GB/s: LX chain scoring prices the
  // graph's HBM traffic with it.
  virtual double hbm_gbps() const = 0;
};

// The split a search takes from the times: the fastest, unless splits that
// tie with it (within kSplitTimeTolerance) use more cores: then the fastest of
// those with the most cores (a split that leaves cores idle must win by more
// than the model resolves). Indices into the splits (given by their cores);
// splits.size() when none was timed exactly.
struct SplitPick {
  size_t pick = 0, fastest = 0;
};
SplitPick pick_split(const std::vector<int64_t>& cores, const std::vector<SplitTime>& times);
SplitPick pick_split(const std::vector<MatmulSplit>& splits, const std::vector<SplitTime>& times);

}  // namespace spyre::compiler
