#pragma once
// `spyre-sim study splits`: every legal core split of one matmul or batched
// matmul (matmul_split.h), each compiled and run on the card model, ranked
// by kernel device time beside its bytes, LX use and engine busy time, with
// the compiler's own pick marked. The comparison a compiler engineer wants
// before changing a work-division rule.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/arch_config.h"
#include "runtime/json_fwd.h"
#include "studies/matmul_split.h"

namespace spyre::studies {

struct SplitStudyOptions {
  MatmulShape shape;
  int64_t max_cores = 32;
  std::string arch_path;  // empty: built-in
  std::vector<std::string> arch_overrides;
  int warmup = 1;   // as validate: profilers time repeated runs
  int workers = 0;  // 0: the machine's cores
};

struct SplitStudyRow {
  MatmulSplit split;
  bool compiler_pick = false;  // the split `compile` chooses on max_cores cores
  std::string error;           // empty: it ran
  double kernel_us = 0;
  double hbm_read_bytes = 0, hbm_write_bytes = 0, dram_read_bytes = 0;
  double lx_peak_bytes = 0;
  double pt_busy_pct = 0;  // mean over the cores the split uses
};

struct SplitStudy {
  SplitStudyOptions options;
  MatmulSplit compiler_pick;
  std::vector<SplitStudyRow> rows;  // fastest first; failed candidates last
};

// Throws SpyreError for a bad shape or arch.
SplitStudy run_split_study(const SplitStudyOptions& options);

// One split (null: the compiler's own division) compiled into `dir` and run
// on the card model, as a worker process answers: the row's numbers as one
// JSON line, or {"error": ...}; `dir` is removed either way.
std::string run_matmul_split(const SplitStudyOptions& options, const MatmulSplit* split, const DeviceLimits& device,
                             const std::string& dir);
// That line as a row of `split`.
SplitStudyRow split_study_row(const MatmulSplit& split, const Json& line);

// What no split can beat on the card model: its cores' PT arrays at their
// peak MAC rate; the operand bytes the memory-side cache cannot hold (a warm
// run may find that much there) at the LPDDR5 peak; and every core's own
// operand slices through the cache's shared delivery (cache.gbps). The model
// never runs a resource above its peak, so the kernel time is at least this
// (tests check it on every split they run; on the 263 measured splits the
// closest any simulated time comes is 0.5% above it).
double matmul_split_lower_bound_us(const MatmulShape& shape, const MatmulSplit& split, const ArchConfig& arch);

std::string split_study_table(const SplitStudy& study);
std::string split_study_csv(const SplitStudy& study);

}  // namespace spyre::studies
