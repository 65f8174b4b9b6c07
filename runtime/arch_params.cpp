// The parameter table: every hardware parameter of the card model, declared
// once. Each row names the struct field (its JSON path), unit, default,
// accepted range, source and, for calibrated values, the value before
// calibration. models/arch/spyre.json is generated from it
// (`spyre-sim arch --json`); docs/references.md says what "seed 000" etc. are.

#include "runtime/arch_config.h"

namespace spyre {

// Designated initializers for one field: its path is the field's own name.
#define SPYRE_FIELD(field)                                                                             \
  .path = #field, .set = [](ArchConfig& a, double v) { a.field = static_cast<decltype(a.field)>(v); }, \
  .get = [](const ArchConfig& a) { return static_cast<double>(a.field); }

const std::vector<ArchParam>& arch_params() {
  static const std::vector<ArchParam> table = {
      // the card
      {SPYRE_FIELD(cores), .unit = "cores", .value = 32, .min = 1, .max = 1024, .integer = true,
       .source = "torch-spyre docs (seed 002): 32-core dataflow processor; SENCORES range 1-32 (seed 001)"},
      {SPYRE_FIELD(clock_ghz), .unit = "GHz", .value = 1.5, .min = 0.01, .max = 100, .integer = false,
       .source = "derived: 98.3 TFLOPS fp16 / (32 cores x 2 corelets x 8x8 PEs x 8-way SIMD x 2 FLOP/MAC) = 1.5 GHz"},
      {SPYRE_FIELD(corelets_per_core), .unit = "corelets", .value = 2, .min = 1, .max = 64, .integer = true,
       .source = "seed 002 fig. 1a: each core has two corelets sharing one LX"},

      // pt
      {SPYRE_FIELD(pt.pe_rows), .unit = "PEs", .value = 8, .min = 1, .max = 1024, .integer = true,
       .source = "seed 002 fig. 1a: 8x8 systolic PE array per corelet"},
      {SPYRE_FIELD(pt.pe_cols), .unit = "PEs", .value = 8, .min = 1, .max = 1024, .integer = true,
       .source = "seed 002 fig. 1a: 8x8 systolic PE array per corelet"},
      {SPYRE_FIELD(pt.simd_lanes), .unit = "fp16 MACs per PE per cycle", .value = 8, .min = 1, .max = 1024,
       .integer = true,
       .source = "public Spyre figures: 8-way fp16 SIMD per PE (gives 1536 MAC/ns/core peak at 1.5 GHz)"},
      {SPYRE_FIELD(pt.efficiency), .unit = "fraction of peak", .value = 0.614, .min = 1e-4, .max = 1, .integer = false,
       .source = "calibrated (docs/calibration.md): prefill Granite projections at their compute-bound splits "
                 "(calibration/granite_matmul, fit on prefill rows; decode rows never bind it); torch-spyre's cost "
                 "model says ~1140/1536 = 0.742",
       .before_calibration = 0.742},
      {SPYRE_FIELD(pt.split_k_rate), .unit = "fraction of pt.efficiency", .value = 0.5, .min = 1e-4, .max = 1,
       .integer = false,
       .source = "calibrated (docs/calibration.md): a projection whose contraction dim is split over cores computes "
                 "at about half the rate (prefill Q/O 1_4_4_2 548 us vs 1_4_8_1 317 us, calibration/granite_matmul); "
                 "cause not known",
       .before_calibration = 1.0},
      {SPYRE_FIELD(pt.large_block_rate), .unit = "fraction of pt.efficiency", .value = 0.5, .min = 1e-4, .max = 1,
       .integer = false,
       .source = "calibrated (docs/calibration.md): a projection block of at least large_block_rows x "
                 "large_block_cols per core (twice each when K is split) computes at about half the rate: measured "
                 "time over peak-rate time falls in bands near 1.7, 3.2 and 6.7 (calibration/granite_matmul); cause "
                 "not known",
       .before_calibration = 1.0},
      {SPYRE_FIELD(pt.large_block_rows), .unit = "rows per core", .value = 256, .min = 1, .max = 1e12, .integer = true,
       .source = "calibrated with pt.large_block_rate: prefill Q/O 1_2_16_1 (256 rows) runs in the slow band, "
                 "1_4_8_1 (128) does not"},
      {SPYRE_FIELD(pt.large_block_cols), .unit = "columns per core", .value = 128, .min = 1, .max = 1e12,
       .integer = true,
       .source = "calibrated with pt.large_block_rate: prefill K/V 1_2_16_1 (64 columns) runs in the fast band, "
                 "Q/O 1_2_16_1 (256) does not"},
      {SPYRE_FIELD(pt.large_block_staging_bytes), .unit = "bytes of staging space", .value = 419328, .min = 1,
       .max = 1e15, .integer = true,
       .source = "the staging space of calibration/granite_matmul's LX-0.2 rows, where pt.large_block_rows and "
                 "_cols were measured; a larger staging space (DXP_LX_FRAC_AVAIL) moves both edges up in proportion, "
                 "the band being the backend's blocking at that space. Not fitted; tested on "
                 "calibration/gpt_oss_prefill (LX 1.0, held out): its 32-core blocks of 256 x 256 and 512 x 128 "
                 "run at the fast band's rate (Q proj 1_2_16_1 241 us, 1_1_32_1 279, 1_4_8_1 235); the GPT-OSS "
                 "split rows go 24.9 -> 23.0% median |error|, Spearman +0.38 -> +0.52, the Granite rows do not "
                 "move (docs/calibration.md)"},
      {SPYRE_FIELD(pt.output_stick_ns), .unit = "ns per output stick at the whole LX", .value = 105.0, .min = 0,
       .max = 1e9, .integer = false,
       .source = "calibrated (docs/calibration.md): a batched matmul spends ~0.5-0.6 us per output stick at "
                 "DXP_LX_FRAC_AVAIL 0.2 and a quarter of it at 0.8 (attention bmms, calibration/granite_matmul); "
                 "scaled by lx.size_bytes / staging space, shared by the cores of a K split "
                 "(pt.split_k_output_exponent); cause not known",
       .before_calibration = 0.0},
      {SPYRE_FIELD(pt.output_stick_k), .unit = "contraction elements per core", .value = 128, .min = 1, .max = 1e12,
       .integer = true,
       .source = "calibrated with pt.output_stick_ns: a core whose contraction is shorter pays proportionally less "
                 "per output stick (QK^T split 2 ways over K)"},
      {SPYRE_FIELD(pt.one_stick_output_factor), .unit = "x pt.output_stick_ns", .value = 0.68, .min = 0, .max = 1e3,
       .integer = false,
       .source = "calibrated (docs/calibration.md): a core whose output block is one stick wide (64 columns) "
                 "drains its sticks faster: measured over pairs of attention bmm splits with the same sticks per "
                 "core, 64 columns against 128, median ratio 0.69 (0.57-0.93, 6 pairs, QK^T and attn@V)",
       .before_calibration = 1.0},
      {SPYRE_FIELD(pt.split_k_output_exponent), .unit = "exponent", .value = 0.75, .min = 0, .max = 4, .integer = false,
       .source = "calibrated (docs/calibration.md): the cores of a K split drain each its partial sticks at "
                 "1/split_k^0.75 of the cost: per output stick, the measured K-split attention bmms run at "
                 "split_k^-0.6 (attn@V, whole sticks of K per core) to split_k^-1.6 (QK^T, which also halves k "
                 "per core) of the unsplit splits with the same core grid; 0.75 scored best of 0.5/0.75/0.85/1 "
                 "on the 263 Granite rows (was 0.5 until the DMA descriptor streaming)"},
      {SPYRE_FIELD(pt.bmm_keep_b_lx_fraction), .unit = "fraction of LX", .value = 0.5, .min = 0, .max = 2,
       .integer = false,
       .source = "calibration/granite_matmul: at DXP_LX_FRAC_AVAIL 0.2 the card streams a batched matmul's B again "
                 "for every 8-row pass (decode attn@V 16_1_2_1 133 us measured, 127 re-streamed, 72 kept), at 0.8 "
                 "it keeps it (prefill QK^T 4_1_8_1, 4 passes, 731 us, the same as 1_4_8_1's one pass); the "
                 "switch lies between the two (unmeasured), 0.5 is its middle. Tested on "
                 "calibration/gpt_oss_prefill (LX 1.0, not used to set it): attn@V 26.4 -> 4.0% median |error| "
                 "(42 rows), QK^T 29.9 -> 22.7%; Granite 8.7 -> 8.5% (docs/calibration.md)"},
      {SPYRE_FIELD(pt.elementwise_elems_per_cycle), .unit = "elements/cycle/corelet", .value = 64, .min = 1,
       .max = 1 << 20, .integer = true,
       .source = "assumption: a non-matmul op on the PT array streams one 64-element stick per cycle"},

      // sfu
      {SPYRE_FIELD(sfu.lanes), .unit = "elements/cycle/corelet", .value = 192, .min = 1, .max = 1 << 20,
       .integer = true,
       .source = "calibrated (docs/calibration.md): fit to the seed-000 softmax rows: one 512x1024 pass in 0.91 us per "
                 "core; the public sources give no SFU width",
       .before_calibration = 64},
      {SPYRE_FIELD(sfu.cycles_simple), .unit = "cycles/vector", .value = 1.0, .min = 0.01, .max = 1e6, .integer = false,
       .source = "assumption: add, mul, compare, select, copy issue one vector per cycle"},
      {SPYRE_FIELD(sfu.cycles_divide), .unit = "cycles/vector", .value = 1.0, .min = 0.01, .max = 1e6, .integer = false,
       .source = "calibrated (docs/calibration.md): fit to the seed-000 softmax rows (realdiv)",
       .before_calibration = 2.0},
      {SPYRE_FIELD(sfu.cycles_transcendental), .unit = "cycles/vector", .value = 4.0, .min = 0.01, .max = 1e6,
       .integer = false,
       .source = "assumption: exp, log, sigmoid, tanh, gelu, silu, softplus use a multi-step approximation"},
      {SPYRE_FIELD(sfu.cycles_reduce), .unit = "cycles/vector", .value = 1.0, .min = 0.01, .max = 1e6, .integer = false,
       .source = "assumption: reductions accumulate one input vector per cycle"},
      {SPYRE_FIELD(sfu.cycles_reduce_stick), .unit = "cycles/vector", .value = 69.0, .min = 0.01, .max = 1e6,
       .integer = false,
       .source = "calibrated (docs/calibration.md): amax over the stick dim on 1, 2 and 4 cores, where it is "
                 "compute-bound (12 rows of calibration/add_bcast_sweep_records.csv): median |error| 3.6% (67 "
                 "until the compute followed its loads as they land, fitted on the one-core 4096x2048 row alone)",
       .before_calibration = 1.0},
      {SPYRE_FIELD(sfu.topk_k_per_core), .unit = "results per core", .value = 4, .min = 1, .max = 1 << 20,
       .integer = true,
       .source = "torch-spyre work_division.py (_TOPK_MAX_K_PER_CORE): the topk hardware op produces at most 4 of "
                 "its k results per core, so k is split over cores; a kernel asking more is refused"},

      // lx
      {SPYRE_FIELD(lx.size_bytes), .unit = "bytes per core", .value = 2097152, .min = 4096, .max = 1e12,
       .integer = true, .source = "seed 000: 2 MB LX scratchpad per core"},
      {SPYRE_FIELD(lx.alignment_bytes), .unit = "bytes", .value = 128, .min = 1, .max = 1 << 20, .integer = true,
       .source = "seed 000: 128-byte (stick) alignment"},
      {SPYRE_FIELD(lx.backend_reserved_fraction), .unit = "fraction", .value = 0.2, .min = 0.001, .max = 1.0,
       .integer = false,
       .source = "seed 000 and calibration/granite_matmul: the backend may use this fraction of LX for its own tiles "
                 "(DXP_LX_FRAC_AVAIL, torch-spyre's default 0.2; 1.0 when LX planning is off); HBM operands stream "
                 "through it, the rest is torch-spyre's to plan"},
      {SPYRE_FIELD(lx.ports), .unit = "ports", .value = 2, .min = 1, .max = 64, .integer = true,
       .source = "assumption: one LX port per corelet"},
      {SPYRE_FIELD(lx.port_bytes_per_cycle), .unit = "bytes/cycle/port", .value = 512, .min = 1, .max = 1 << 20,
       .integer = true,
       .source = "calibrated (docs/calibration.md): LX must carry DMA in, DMA out and SFU traffic at the calibrated "
                 "per-core rates; no public figure",
       .before_calibration = 128},

      // dma
      {SPYRE_FIELD(dma.port_gbps), .unit = "GB/s per core", .value = 1000.0, .min = 0.001, .max = 1e6, .integer = false,
       .source =
           "calibrated (docs/calibration.md): a core path that does not limit the cache-hit rate; DRAM reads are "
           "limited by lpddr5.latency_ns and reads in flight instead (one core: add 4096x4096 -6%, measured 67 GB/s)",
       .before_calibration = 67.0},
      {SPYRE_FIELD(dma.request_bytes), .unit = "bytes", .value = 2048, .min = 128, .max = 1 << 30, .integer = true,
       .source = "assumption: DMA requests of 16 sticks"},
      {SPYRE_FIELD(dma.max_outstanding), .unit = "requests", .value = 16, .min = 1, .max = 1 << 20, .integer = true,
       .source = "assumption: the engine holds max_outstanding x request_bytes (32 KiB) of open reads (its return "
                 "buffer): 16 full requests or more short ones; a request's space frees when it completes"},
      {SPYRE_FIELD(dma.run_ns), .unit = "ns per run", .value = 21.6, .min = 0, .max = 1e9, .integer = false,
       .source = "calibrated (docs/calibration.md): a strided transfer's runs are started one per run_ns, so 128-byte "
                 "runs move ~5.9 GB/s per engine (the attention bmms' weight streams at LX 0.2 vs 0.8, "
                 "calibration/granite_matmul; decode QK^T 1_32_1_1: 256-byte runs at 21.5 ns each)",
       .before_calibration = 0.0},
      {SPYRE_FIELD(dma.setup_ns), .unit = "ns per transfer", .value = 50.0, .min = 0, .max = 1e9, .integer = false,
       .source = "assumption: descriptor setup per tile transfer"},
      {SPYRE_FIELD(dma.compute_follows_data), .unit = "0/1", .value = 1, .min = 0, .max = 1, .integer = true,
       .source = "calibrated (docs/calibration.md, Streaming tails): 1 = a tile's compute consumes its loads in "
                 "order as they land, so a DMA-bound core finishes its last tile's compute shortly after the last "
                 "bytes (seed 002: the backend double-buffers; the model's tiles are half the staging space, "
                 "coarser than the backend's own); the sweep's 32-core amax rows leave ~5 us after 155 GB/s of "
                 "reads where waiting for whole tiles leaves the last tile's reduce (7.6 us on amax 2048x2048, "
                 "calibration/add_bcast_sweep_records.csv); 0 = compute waits for the whole tile",
       .before_calibration = 0.0},
      {SPYRE_FIELD(dma.write_fence_ns), .unit = "ns per SDSC that writes HBM", .value = 500.0, .min = 0, .max = 1e9,
       .integer = false,
       .source = "calibrated (docs/calibration.md): fit to the seed-000 softmax rows: a kernel that wrote HBM waits "
                 "for its writes to be visible",
       .before_calibration = 0.0},

      // cache
      {SPYRE_FIELD(cache.bytes), .unit = "bytes", .value = 8388608, .min = 0, .max = 1e12, .integer = true,
       .source = "calibrated (docs/calibration.md): a memory-side cache that holds softmax 512x1024 (4 MiB per "
                 "iteration) makes the seed-000 rows reachable; a hypothesis, not a documented Spyre block",
       .before_calibration = 0},
      {SPYRE_FIELD(cache.line_bytes), .unit = "bytes", .value = 2048, .min = 128, .max = 1 << 30, .integer = true,
       .source = "calibration hypothesis: one DMA request per line"},
      {SPYRE_FIELD(cache.gbps), .unit = "GB/s shared", .value = 1400.0, .min = 0.001, .max = 1e7, .integer = false,
       .source = "calibrated (docs/calibration.md): shared-read delivery, all cores together: the prefill Granite "
                 "projections split 16 or 32 ways over rows (every core streams the same weight) take 1.0-1.39 TB/s "
                 "of core reads (calibration/granite_matmul); checked on the decode rows held out"},
      {SPYRE_FIELD(cache.hit_latency_ns), .unit = "ns", .value = 60.0, .min = 0, .max = 1e6, .integer = false,
       .source = "calibrated (docs/calibration.md): with dma.max_outstanding x request_bytes it bounds one core at "
                 "~540 GB/s from the cache"},
      {SPYRE_FIELD(cache.write_allocate), .unit = "0/1", .value = 1, .min = 0, .max = 1, .integer = true,
       .source = "calibration hypothesis (docs/calibration.md): 1 = a write to a line not held allocates it dirty "
                 "(the seed-000 softmax rows need written intermediates absorbed); 0 = write-around, which with "
                 "posted writes and cold sweep kernels fits the sweep's mid-size rows but flips two Granite picks"},

      // lpddr5
      {SPYRE_FIELD(lpddr5.channels), .unit = "channels", .value = 8, .min = 1, .max = 1024, .integer = true,
       .source = "assumption: 204.8 GB/s = 8 channels x 25.6 GB/s (LPDDR5-6400, 32-bit channels)"},
      {SPYRE_FIELD(lpddr5.peak_gbps), .unit = "GB/s", .value = 204.8, .min = 0.001, .max = 1e6, .integer = false,
       .source = "public: LPDDR5 204.8 GB/s peak per card"},
      {SPYRE_FIELD(lpddr5.read_gbps), .unit = "GB/s", .value = 150.0, .min = 0.001, .max = 1e6, .integer = false,
       .source = "torch-spyre cost model (2026): ~150 GB/s sustained read-only"},
      {SPYRE_FIELD(lpddr5.write_gbps), .unit = "GB/s", .value = 146.0, .min = 0.001, .max = 1e6, .integer = false,
       .source = "torch-spyre cost model (2026): write ~146 GB/s (min-based estimate)"},
      {SPYRE_FIELD(lpddr5.turnaround_ns), .unit = "ns per read/write bus turnaround", .value = 24.0, .min = 0,
       .max = 1e6, .integer = false,
       .source = "assumption: a read-to-write plus a write-to-read turnaround cost 2 x 24 ns; how often they come is "
                 "mixed_batch_bytes"},
      {SPYRE_FIELD(lpddr5.latency_ns), .unit = "ns", .value = 490.0, .min = 0, .max = 1e6, .integer = false,
       .source =
           "calibrated (docs/calibration.md): loaded latency seen by a core: 32 KiB in flight (dma.max_outstanding "
           "x request_bytes) / 490 ns = 67 GB/s, one core reading DRAM as measured (add 4096x4096 on 1 core); "
           "400 until a tile's descriptors streamed back to back",
       .before_calibration = 120.0},
      {SPYRE_FIELD(lpddr5.write_ack_ns), .unit = "ns", .value = -1.0, .min = -1, .max = 1e6, .integer = false,
       .source = "assumption: -1 = a write completes latency_ns after its data reaches the channel; >= 0 = posted "
                 "writes, acknowledged this long after the controller admits them"},
      {SPYRE_FIELD(lpddr5.raw_read_extra), .unit = "x a read's channel time", .value = 0.8, .min = 0, .max = 100,
       .integer = false,
       .source = "calibrated (docs/calibration.md, Read-after-write): a chain of dependent adds runs 13-43% slower per "
                 "add than add_indep2 moving the same bytes (calibration/add_bcast_sweep_records.csv), ~3.4 us per MiB "
                 "plus a part per run; fitted with raw_run_ns on the chain rows (0.7-0.9 x 80-130 ns give chain "
                 "family medians of 1.8-11%; 0.6 x 100 ns until the barrier stopped growing with the cores); cause "
                 "not known",
       .before_calibration = 0.0},
      {SPYRE_FIELD(lpddr5.raw_run_ns), .unit = "ns per run", .value = 115.0, .min = 0, .max = 1e6, .integer = false,
       .source = "calibrated with lpddr5.raw_read_extra (docs/calibration.md, Read-after-write): the chains' extra per "
                 "add falls with the length of a core's runs (2 KiB: 9-12 us per MiB, 8 KiB: 4.6-4.9, 32 KiB: "
                 "3.7-3.8); cause not known",
       .before_calibration = 0.0},
      {SPYRE_FIELD(lpddr5.access_ns), .unit = "ns per access", .value = 29.2, .min = 0, .max = 1e6, .integer = false,
       .source = "derived, not fitted (docs/calibration.md, Short runs): each access (a DMA request, or the contiguous "
                 "part of one the cache fills, writes back or writes around it) takes this much channel time besides "
                 "its bytes; the bytes take the rest of what a dma.request_bytes access needs at read_gbps / "
                 "write_gbps, never above peak_gbps: 2048 B x 8 channels x (1/150 - 1/204.8) GB/s = 29.2 ns, the "
                 "largest value the 204.8 GB/s peak allows (LPDDR5's row activate + precharge, tRCD + tRP ~ 36 ns, "
                 "partly hidden). Tested, never fitted, on the fused SwiGLU decode kernels whose weights are read in "
                 "256-byte (down) and 1 KiB (gate/up) runs per core (../bundles/torch-spyre/swiglu): -62% -> +10%, "
                 "-35% -> -18%",
       .before_calibration = 0.0},
      {SPYRE_FIELD(lpddr5.interleave_bytes), .unit = "bytes", .value = 256, .min = 32, .max = 1 << 30, .integer = true,
       .source = "assumption: addresses interleave across channels every 256 bytes"},
      {SPYRE_FIELD(lpddr5.mixed_batch_bytes), .unit = "bytes per channel", .value = 2700, .min = 32, .max = 1 << 30,
       .integer = true,
       .source = "calibrated (docs/calibration.md): bytes a channel serves, reads and writes together, between two "
                 "pairs of bus turnarounds while both directions are active, so every byte of mixed traffic carries "
                 "2 x turnaround_ns / 2700 whatever the read:write mix: the card moves 1 read + 1 write (bcast, "
                 "bcastcol), 2 + 1 (add) and 3-6 + 1 (addN with LX) at 113-125 GB/s alike on 32 cores "
                 "(calibration/add_bcast_sweep_records.csv); its add, add_indep2, bcast and bcastcol rows on 32 "
                 "cores with 30 MB or more: median error 0.0%. Was 1024 bytes of writes only, which made 1R+1W "
                 "103 GB/s, 12% below 2R+1W",
       .before_calibration = 1024},
      {SPYRE_FIELD(lpddr5.mixed_window_ns), .unit = "ns", .value = 5000.0, .min = 1, .max = 1e9, .integer = false,
       .source = "calibrated (docs/calibration.md): how long a channel's past traffic counts toward its read/write "
                 "mix. With one batch's time (~200 ns) a kernel whose cores read and write in phases came out "
                 "14-23% faster on 4-8 cores than on 32 (add 4096x4096), where the card moves mixed traffic at "
                 "96-115 GB/s from 2 to 32 cores (calibration/add_bcast_sweep_records.csv); over 5 us the "
                 "kernel's mix is what counts"},
      {SPYRE_FIELD(lpddr5.mixed_full_share), .unit = "fraction", .value = 0.333, .min = 0.001, .max = 0.5,
       .integer = false,
       .source = "calibrated (docs/calibration.md): the card moves 1 read + 1 write and 2 reads + 1 write at the "
                 "same rate (bcast/bcastcol 116-118 GB/s, add 114-115 on 32 cores, "
                 "calibration/add_bcast_sweep_records.csv), so traffic whose minority direction is a third or "
                 "more is fully mixed; sparser writes (amax's results, a matmul's outputs) carry proportionally "
                 "fewer turnarounds"},
      {SPYRE_FIELD(lpddr5.queue_depth_chunks), .unit = "interleave chunks per channel", .value = 32, .min = 1,
       .max = 1 << 20, .integer = true,
       .source =
           "assumption: a 32-entry command queue per channel; beyond it the controller pushes back on the initiators"},

      // data_ring
      {SPYRE_FIELD(data_ring.bytes_per_cycle), .unit = "bytes/cycle per direction per hop", .value = 128, .min = 1,
       .max = 1 << 20, .integer = true, .source = "seed 002: bi-directional ring at 128 B/cycle per direction"},
      {SPYRE_FIELD(data_ring.hop_latency_cycles), .unit = "cycles", .value = 4.0, .min = 0, .max = 1e6,
       .integer = false, .source = "assumption"},

      // reduce_ring
      {SPYRE_FIELD(reduce_ring.bytes_per_cycle), .unit = "bytes/cycle per direction per hop", .value = 128, .min = 1,
       .max = 1 << 20, .integer = true, .source = "seed 000 (reduce-sum ring) with the data ring's width, seed 002"},
      {SPYRE_FIELD(reduce_ring.hop_latency_cycles), .unit = "cycles", .value = 4.0, .min = 0, .max = 1e6,
       .integer = false, .source = "assumption"},

      // host_link
      {SPYRE_FIELD(host_link.gbps), .unit = "GB/s per direction", .value = 50.0, .min = 0.001, .max = 1e6,
       .integer = false, .source = "PCIe gen5 x16: 63 GB/s raw per direction, ~80% achievable (assumption)"},
      {SPYRE_FIELD(host_link.latency_us), .unit = "us per transfer", .value = 1.0, .min = 0, .max = 1e6,
       .integer = false, .source = "assumption"},

      // card_link
      {SPYRE_FIELD(card_link.gbps), .unit = "GB/s per card per direction", .value = 50.0, .min = 0.001, .max = 1e6,
       .integer = false,
       .source = "the host link's PCIe gen5 x16 (63 GB/s raw per direction, ~80% achievable, assumption): each card "
                 "of an ensemble reaches the others through its own x16 port"},
      {SPYRE_FIELD(card_link.latency_us), .unit = "us per transfer", .value = 2.0, .min = 0, .max = 1e6,
       .integer = false,
       .source = "assumption: the host link's 1 us plus a PCIe switch hop and the peer's completion signal"},
      {SPYRE_FIELD(card_link.peer_to_peer), .unit = "0/1", .value = 1, .min = 0, .max = 1, .integer = true,
       .source = "assumption: torch-spyre's spyreccl backend (closed spyre_comms transport) moves collectives "
                 "between up to 8 cards; 1 = a ring over the switch (each card sends and receives 2 (N-1)/N of the "
                 "tensor), 0 = every card sends its tensor to the host, which sums and sends the result back"},
      {SPYRE_FIELD(card_link.host_reduce_gbps), .unit = "GB/s of input summed", .value = 20.0, .min = 0.001, .max = 1e6,
       .integer = false,
       .source = "assumption: a host core summing fp16 tensors (convert, add, convert) with peer_to_peer 0"},

      // launch
      {SPYRE_FIELD(launch.bundle_overhead_us), .unit = "us per bundle launch", .value = 11.0, .min = 0, .max = 1e9,
       .integer = false,
       .source = "calibrated (docs/calibration.md): fit to the seed-000 softmax rows (was a 15 us placeholder)",
       .before_calibration = 15.0},
      {SPYRE_FIELD(launch.sdsc_overhead_ns), .unit = "ns per SDSC", .value = 0.0, .min = 0, .max = 1e12,
       .integer = false,
       .source = "calibrated (docs/calibration.md): fit to the seed-000 softmax rows: dispatch is within the other "
                 "per-kernel costs",
       .before_calibration = 500.0},
      {SPYRE_FIELD(launch.barrier_ns), .unit = "ns per SDSC on more than one core", .value = 2700.0, .min = 0,
       .max = 1e12, .integer = false,
       .source = "calibrated (docs/calibration.md, Streaming tails): the 4-core softmax row is slower than one core "
                 "by 2.7 us per SDSC (seed 000); the same on 32 cores: the sweep's 32-core amax rows leave ~5 us "
                 "beyond 155 GB/s with the barrier in it, and bcast 512x512 takes 8.8 us "
                 "(calibration/add_bcast_sweep_records.csv). Was 1.35 us per level of a log2(cores) tree (6.75 us "
                 "on 32 cores), which those rows contradict. Once per iteration of a coarse-tiling loop, not per "
                 "SDSC of its body: the sweep's row softmax under coarse tiling grows ~2.9 us per iteration of 6 "
                 "SDSCs at 32 cores (calibration/more_sweeps/softmax_row_tiling.csv, 2048 x 128-512 rows, tiles "
                 "1-16); that source's untiled small rows (12.4 us for 5 SDSCs at 2048 x 128) want no barrier at "
                 "all, in conflict with seed 000 (not resolved)",
       .before_calibration = 0.0},

      // address
      {SPYRE_FIELD(address.segment_bytes), .unit = "bytes", .value = 17179869184, .min = 4096, .max = 9e18,
       .integer = true, .source = "torch-spyre bundles: kernel argument i lives at 0x400000000 x i"},
      {SPYRE_FIELD(address.segments), .unit = "segments", .value = 8, .min = 1, .max = 64, .integer = true,
       .source = "torch-spyre bundles: 8 segments, segment 7 holds the program"},
      {SPYRE_FIELD(address.program_segment), .unit = "segment", .value = 7, .min = 0, .max = 63, .integer = true,
       .source = "torch-spyre bundles: segment 7 holds the program"},
      {SPYRE_FIELD(address.span_limit_bytes), .unit = "bytes", .value = 268435456, .min = 4096, .max = 9e18,
       .integer = true, .source = "seed 001: a core addresses at most 256 MB per tensor"},
  };
  return table;
}

#undef SPYRE_FIELD

}  // namespace spyre
