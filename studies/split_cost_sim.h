#pragma once
// The card model as the compiler's split cost (compiler::SplitCostModel,
// --work-division model): a shape's splits are timed as `study splits`
// times them (each compiled alone and run on the card model, in worker
// processes), once per shape: a decoder layer's repeated projections cost
// one study.

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

  std::vector<double> matmul_kernel_us(const compiler::MatmulShape& shape,
                                       const std::vector<compiler::MatmulSplit>& splits) override;

  int studies_run() const { return studies_run_; }

 private:
  std::string arch_path_;
  std::vector<std::string> arch_overrides_;
  int workers_;
  int studies_run_ = 0;
  std::map<std::string, std::map<std::string, double>> times_;  // shape/max cores -> split -> kernel us
};

}  // namespace spyre::studies
