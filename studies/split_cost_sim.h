#pragma once
// The card model as the compiler's split cost (compiler::SplitCostModel,
// --work-division model): batchmatmul splits are timed as `study splits`
// times them, the divisions of other ops as the compiler gives them (each
// the op alone, compiled); every candidate runs on the card model in worker
// processes, in order of a lower bound on its time; once a time is below the
// bound of every candidate left, those are not simulated (they cannot win).
// Times are kept per shape or op: a decoder layer's repeated projections
// and norms are simulated once. The worker processes are forked once, on the
// first simulation, and serve every search of the compile (worker_pool.h).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/split/split_cost.h"
#include "runtime/arch_config.h"
#include "studies/scratch_dir.h"
#include "studies/split_time_store.h"
#include "studies/study_splits.h"
#include "studies/worker_pool.h"

namespace spyre::studies {

class SimulatedSplitCost : public compiler::SplitCostModel {
 public:
  // The card every split runs on (empty path: built-in), as `run --arch --set`.
  // `cache_dir`: the split-time store's folder (split_time_store.h; empty: none).
  SimulatedSplitCost(std::string arch_path, std::vector<std::string> arch_overrides, int workers = 0,
                     std::string cache_dir = "");
  ~SimulatedSplitCost() override;

  std::vector<compiler::SplitTime> matmul_kernel_us(const compiler::MatmulShape& shape,
                                                    const std::vector<compiler::MatmulSplit>& splits) override;
  std::vector<compiler::SplitTime> op_kernel_us(const compiler::OpSplitQuery& query) override;

  // LPDDR5's sustained rate in the slower direction (lpddr5.read_gbps,
  // lpddr5.write_gbps): an intermediate that misses LX is written and read back.
  double hbm_gbps() const override;

  size_t simulated() const { return simulated_; }
  // Times read from the split-time store instead of simulated.
  size_t stored() const { return stored_; }
  // Worker processes forked so far.
  size_t workers_started() const { return pool_ ? pool_->started() : 0; }

 private:
  // Branch and bound over candidates `names` of the shape or op `key` with
  // lower bounds `bound`: `simulate` times the given candidates (indices)
  // exactly; times are kept by key and name across calls (and in the store).
  std::vector<compiler::SplitTime> search(
      const std::string& key, const std::vector<std::string>& names, const std::vector<double>& bound,
      const std::function<std::vector<double>(const std::vector<size_t>&)>& simulate);
  // Kernel device times of the requests (a matmul split, or a program folder
  // this process wrote) in the worker processes; +infinity where one fails.
  std::vector<double> run_requests(const std::vector<std::string>& requests);
  // A worker's answer to one request.
  std::string answer(const std::string& request) const;
  // A fresh folder for one candidate's program, in this model's scratch folder.
  std::string next_dir();

  std::string arch_path_;
  std::vector<std::string> arch_overrides_;
  int workers_;
  size_t simulated_ = 0, stored_ = 0;
  std::string cache_dir_;
  std::unique_ptr<SplitTimeStore> store_;  // opened on the first search
  size_t programs_ = 0;                    // program folders written, for their names
  std::unique_ptr<ScratchDir> scratch_;
  std::unique_ptr<WorkerPool> pool_;
  std::map<std::string, std::map<std::string, double>> times_;  // shape or op key -> split -> kernel us
};

// What no division of a pointwise op, reduction or copy can beat on the card
// model: the input bytes the memory-side cache cannot hold at the LPDDR5
// peak; all core reads through the cache's shared delivery (cache.gbps); the
// busiest core's reads with its DMA engine's bytes in flight answered at the
// cache's hit latency; the busiest core's elements at its compute rate (op:
// the opFuncName, unit: "sfp" or "pt"); then the write fence and the cores' barrier, which follow
// the last core's work. Tests check it on every division they run.
double op_split_lower_bound_us(const std::string& op, const std::string& unit, const compiler::OpSplitLoad& load,
                               const ArchConfig& arch);

}  // namespace spyre::studies
