#pragma once
// The card model as the compiler's split cost (compiler::SplitCostModel,
// --work-division model): splits are timed as `study splits` times them
// (each compiled alone and run on the card model, in worker processes), in
// order of a lower bound on their time (study_splits.h); once a split's time
// is below the bound of every split left, those are not simulated (they
// cannot win). Times are kept per shape: a decoder layer's repeated
// projections are simulated once.

#include <map>
#include <string>
#include <vector>

#include "compiler/matmul_split.h"
#include "studies/study_splits.h"

namespace spyre::studies {

class SimulatedSplitCost : public compiler::SplitCostModel {
 public:
  // The card every split runs on (empty path: built-in), as `run --arch --set`.
  SimulatedSplitCost(std::string arch_path, std::vector<std::string> arch_overrides, int workers = 0);

  std::vector<compiler::SplitTime> matmul_kernel_us(const compiler::MatmulShape& shape,
                                                    const std::vector<compiler::MatmulSplit>& splits) override;

  // LPDDR5's sustained rate in the slower direction (lpddr5.read_gbps,
  // lpddr5.write_gbps): an intermediate that misses LX is written and read back.
  double hbm_gbps() const override;

  size_t simulated() const { return simulated_; }

 private:
  std::string arch_path_;
  std::vector<std::string> arch_overrides_;
  int workers_;
  size_t simulated_ = 0;
  std::map<std::string, std::map<std::string, double>> times_;  // shape -> split -> kernel us
};

}  // namespace spyre::studies
