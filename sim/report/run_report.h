#pragma once
// What a run computed, in one structure: written as JSON (--report) and as
// the table `spyre-sim run` prints. Same input gives the same report, byte
// for byte: no wall-clock or host-dependent values go in.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "runtime/hazard.h"
#include "runtime/host_io.h"

#include "runtime/json_node.h"
#include "runtime/sdsc.h"
#include "sim/hw/measurement_protocol.h"

namespace spyre::sim {

// What bounds a kernel on one core (sim/report/kernel_bounds.h): its time
// by what it was doing, each a fraction of the kernel's window.
struct CoreBound {
  int core = 0;
  double end_us = 0;                     // from the kernel's start
  std::map<std::string, double> shares;  // lpddr5, dma, pt, sfu, ring, idle, barrier
  std::string bound_by;                  // the largest share
};

struct KernelBound {
  double launch_us = 0;
  int critical_core = -1;  // the last to finish
  std::string bound_by;    // its largest share
  std::map<std::string, double> shares;
  std::vector<CoreBound> cores;
};

struct KernelReport {
  std::string bundle, file, op, unit;
  int cores = 0;
  double start_us = 0, end_us = 0;
  int64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
  int tiles = 0;    // most tiles any core ran
  double macs = 0;  // batchmatmul multiply-accumulates
  KernelBound bound;
  // run --sample-repeats: the kernel (bundle/file) whose timing and counters
  // this one took instead of being simulated; empty: simulated.
  std::string timing_of;
  // Dims a symbol sizes at run time (Sdsc::symbolic_dims): the kernel ran at their maximum.
  std::vector<SymbolicDim> symbolic_dims;
};

// A collective between bundles (--cards N): this card's side of it.
struct CollectiveReport {
  std::string op, tensor;  // "all_reduce", the tensor summed over the cards
  int after_bundle = 0;
  int64_t bytes = 0;  // the tensor's bytes on each card
  double start_us = 0, end_us = 0;
};

struct CoreReport {
  int core = 0;
  double pt_busy_pct = 0, sfu_busy_pct = 0, dma_in_busy_pct = 0, dma_out_busy_pct = 0;
  int64_t lx_high_water_bytes = 0;  // highest LX byte the program's tensors use
  int64_t staging_peak_bytes = 0;   // backend staging space the tiling used
  int64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
};

struct TensorReport {
  std::string name, role, format;  // role: input, output, inout
  std::vector<std::string> dims;
  std::vector<int64_t> shape;
  int64_t address = 0, device_bytes = 0;
  std::string layout;
};

// One hardware block's counters over the measured iteration (those not zero).
struct BlockReport {
  std::string block;  // SystemC name: "card.core3.dma_in"
  std::map<std::string, double> counters;
};

// A physical invariant (sim/report/invariants.h): value <= limit must hold,
// both in the unit the name gives.
struct InvariantCheck {
  std::string name;  // "card.lpddr5: bytes read and written / peak_gbps <= window (ns)"
  double value = 0, limit = 0;
  bool holds() const;
};

struct RunReport {
  std::string bundle;
  std::string mode;  // "functional" or "timing"
  Json arch;
  double latency_us = 0;  // first launch to last barrier
  // From the measured iteration's start to the end of the run (the outputs'
  // download included): the window the blocks' counters cover.
  double measured_window_ns = 0;
  int64_t cycles = 0;
  bool lx_wiped_at_bundles = false;  // run --vf
  MeasurementProtocol protocol;      // run --warmup, --between-runs (sim/hw/measurement_protocol.h)
  int sample_repeats = 0;            // run --sample-repeats (sim/schedule/kernel_twins.h); 0: every kernel simulated
  int64_t cache_hit_bytes = 0, cache_miss_bytes = 0, cache_writeback_bytes = 0;  // memory-side cache (cache.bytes > 0)
  int64_t dram_read_bytes = 0, dram_write_bytes = 0;                             // what reached LPDDR5
  int64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
  int64_t host_upload_bytes = 0, host_download_bytes = 0;
  double host_upload_us = 0, host_download_us = 0;
  double lpddr5_achieved_gbps = 0, lpddr5_utilization = 0;
  int64_t lpddr5_turnarounds = 0;
  int64_t data_ring_bytes = 0, reduce_ring_bytes = 0;
  std::vector<KernelReport> kernels;
  int cards = 1;                              // the ensemble this program is one card of (--cards)
  std::vector<CollectiveReport> collectives;  // between its bundles, in order
  int64_t card_link_sent_bytes = 0, card_link_received_bytes = 0;
  std::vector<CoreReport> cores;  // cores the program uses
  std::vector<TensorReport> tensors;
  std::vector<BlockReport> blocks;  // every block that did something
  std::vector<Hazard> hazards;
  std::vector<InvariantCheck> invariants;  // every one checked; a violation is a model defect
  std::vector<Comparison> comparisons;     // --expect
};

Json report_to_json(const RunReport& report);
// A kernel's shares in a fixed order, for tables: "lpddr5 71%, pt 20%, barrier 6%" (shares of 1% and more).
std::string bound_text(const std::map<std::string, double>& shares);
Json bound_to_json(const KernelBound& bound);
// Fixed decimals keep reports byte-identical across runs and readable in diffs.
double rounded(double value, int decimals);
std::string report_table(const RunReport& report);

}  // namespace spyre::sim
