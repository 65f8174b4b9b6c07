#pragma once
// `spyre-sim study softmax-lx`: the seed's softmax scratchpad study (seed
// 000, "Optimizations on softmax"). Softmax over dim 0 of an (M, N) fp16
// tensor, compiled five ways — baseline (no LX), stage 2 (reduction outputs
// in LX), stage 3 (+ pointwise outputs in place), stage 4 (+ the input cloned
// into LX), and stage 4 on several cores — each run on the card model. Rows
// carry the HBM bytes the card moved beside the seed's formulas and, for the
// seed's shape, its measured medians.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/json_node.h"

namespace spyre::studies {

struct SoftmaxStudyOptions {
  int64_t rows = 512, cols = 1024;  // M, N
  int multi_cores = 4;              // the last row's cores
  std::string solver = "best";
  std::string arch_path;  // empty: built-in
  std::vector<std::string> arch_overrides;
  std::string report_path;  // JSON
  int warmup = 1;           // iterations before the measured one: the seed measured after warm-up
};

struct SoftmaxStudyRow {
  std::string stage;  // baseline, stage2, stage3, stage4
  int cores = 1;
  int lx_buffers = 0, lx_candidates = 0;
  int64_t lx_peak_bytes = 0;  // per core
  int64_t hbm_bytes = 0;      // counted by the card model
  int64_t formula_bytes = 0;  // the seed's element passes x 2 bytes
  double latency_us = 0;
  std::optional<double> measured_us;  // the seed's median, where it has one
};

struct SoftmaxStudy {
  SoftmaxStudyOptions options;
  std::vector<SoftmaxStudyRow> rows;
  Json report;
};

// Throws SpyreError for a shape the study cannot run (not a whole number of
// sticks, more cores than the card has).
SoftmaxStudy run_softmax_study(const SoftmaxStudyOptions& options);
std::string softmax_study_table(const SoftmaxStudy& study);

}  // namespace spyre::studies
