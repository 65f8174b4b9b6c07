#pragma once
// The per-core schedule of one SDSC execution, as the backend (Deeptools)
// would run it: HBM operands stream through the LX staging space (the
// backend-reserved part of LX) in tiles, double buffered, so loading tile
// i+1, computing tile i and storing tile i-1 overlap; LX-resident operands
// cost no HBM traffic. The SystemC modules replay this schedule with
// contention; this file only decides the work.
//
// Tiling rules (approximations, documented in docs/model.md):
// - elementwise/copy/reduction: streamed operands are cut into equal tiles so
//   two tiles' worth of every streamed operand fits the staging space;
//   broadcast operands (a dim of scale -1/-2) are loaded once and kept;
//   reduction outputs are stored after the last tile.
// - batchmatmul: output-stationary blocking (rows x columns x contraction)
//   chosen to move the fewest HBM bytes with double-buffered input blocks
//   and an fp32 accumulator in staging.
// - a reduced dim split over cores adds a reduce-sum ring phase; SHUFFLE adds
//   a data-ring phase.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/arch_config.h"
#include "runtime/program.h"

namespace spyre::sim {

struct Transfer {
  int64_t address = 0;  // first HBM byte
  int64_t bytes = 0;
  // The HBM byte runs (address, bytes) a strided transfer moves, in order;
  // empty: one contiguous run from `address`.
  std::vector<std::pair<int64_t, int64_t>> runs;
};

struct Tile {
  std::vector<Transfer> loads;   // HBM -> LX staging
  std::vector<Transfer> stores;  // LX staging -> HBM
  double pt_cycles = 0;          // per corelet (work split across the corelets)
  double sfu_cycles = 0;
  int64_t lx_bytes = 0;  // operand bytes compute moves through the LX ports
};

struct RingTransfer {
  int src_core = 0, dst_core = 0;
  int64_t bytes = 0;
};

struct CoreWork {
  int core = 0;
  std::vector<Tile> tiles;
  int reduce_group = -1;               // index into KernelWork::reduce_groups
  std::vector<Transfer> final_stores;  // after the ring phase (group leader only)
  int64_t staging_bytes = 0;           // staging space the tiling uses
  int64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
};

struct ReduceGroup {
  std::vector<int> cores;  // in ring order; partials flow through all of them
  int64_t bytes = 0;       // partial result bytes per core
};

struct KernelWork {
  int kernel = 0;  // index into Program::kernels
  std::vector<CoreWork> cores;
  std::vector<ReduceGroup> reduce_groups;
  std::vector<RingTransfer> shuffle;   // data-ring transfers of a SHUFFLE
  std::vector<RingTransfer> relayout;  // before compute: LX inputs held under another division
  int64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
  double compute_macs = 0;  // for reports
};

KernelWork plan_kernel(const Program& program, int kernel_index, const ArchConfig& arch);

// Output-stationary matmul blocking, exposed for tests: block counts along
// rows (m), columns (n) and contraction (k), and the HBM bytes they move.
struct MatmulBlocking {
  int64_t bm = 1, bn = 1, bk = 1;
  bool a_resident = false;  // the A row panel stays in staging across column blocks
  int64_t traffic = 0;
};
MatmulBlocking choose_matmul_blocking(int64_t a_bytes, int64_t b_bytes, int64_t c_bytes, int64_t m_units,
                                      int64_t n_units, int64_t k_units, int64_t staging_bytes);

// The PT array's MACs per cycle (both corelets) on one core's matmul block:
// pt.efficiency, and for a projection (not batched) pt.split_k_rate when the
// contraction is split over cores and pt.large_block_rate when the block is
// at least pt.large_block_rows x pt.large_block_cols (twice each with K split).
double matmul_macs_per_cycle(const ArchConfig& arch, bool batched, bool split_k, int64_t m, int64_t n);

// SFU cycles per vector of sfu.lanes elements for an op's cost class (sfu.cycles_*).
double sfu_cycles_per_vector(const ArchConfig& arch, SfuCost cost);

// SFU cycles (per corelet) a batched matmul's core spends per output stick:
// pt.output_stick_ns scaled by LX size over the staging space, by the core's
// contraction length up to pt.output_stick_k and by pt.one_stick_output_factor
// when the core's output block is one stick wide, over split_k to the power
// pt.split_k_output_exponent when split_k cores produce partials of the same
// stick (fitted, docs/calibration.md).
double output_stick_cycles(const ArchConfig& arch, int64_t n_per_core, int64_t k_per_core, int64_t split_k);

}  // namespace spyre::sim
