#pragma once
// Every hardware parameter of the card model. Each is declared once, in the
// table of arch_params.cpp (name, unit, default, range, source and, for a
// calibrated value, what it was before calibration); the struct below, the
// built-in card, models/arch/spyre.json, its schema and `spyre-sim arch` all
// come from that table. An arch JSON file gives every value with its source;
// --set path=value overrides any of them for what-if studies.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/json_node.h"
#include "runtime/program.h"

namespace spyre {

struct ArchConfig {
  ArchConfig();  // the built-in card: every parameter at its table default

  std::string name;
  int cores;
  double clock_ghz;
  int corelets_per_core;

  struct Pt {
    int pe_rows, pe_cols, simd_lanes;
    double efficiency;
    double split_k_rate, large_block_rate;  // PT rate factors of a projection's block
    int64_t large_block_rows, large_block_cols;
    int64_t large_block_staging_bytes;  // the staging space the rows and columns hold at; they grow with it
    double output_stick_ns;             // a batched matmul's output drain per stick
    int64_t output_stick_k;
    double one_stick_output_factor;  // the drain per stick of a core whose output block is one stick wide
    double split_k_output_exponent;  // a K split's cores drain their sticks over split_k to this power
    double bmm_keep_b_lx_fraction;   // from this backend LX fraction a bmm keeps its B tile across row passes
    int elementwise_elems_per_cycle;
  } pt;

  struct Sfu {
    int lanes;
    double cycles_simple, cycles_divide, cycles_transcendental, cycles_reduce, cycles_reduce_stick;
    int topk_k_per_core;  // the most of a topk's k results one core's search produces
  } sfu;

  struct Lx {
    int64_t size_bytes;
    int alignment_bytes;
    double backend_reserved_fraction;
    int ports;
    int port_bytes_per_cycle;
  } lx;

  struct Dma {
    double port_gbps;
    int64_t request_bytes;
    int max_outstanding;
    double run_ns;  // the engine starts one run (contiguous part of a strided transfer) per run_ns
    double setup_ns;
    double write_fence_ns;     // a kernel that wrote HBM waits this long after its last store
    int compute_follows_data;  // 1: a tile's compute consumes its loads as they land; 0: after the last
  } dma;

  struct Cache {
    int64_t bytes;  // 0: no memory-side cache
    int64_t line_bytes;
    double gbps;
    double hit_latency_ns;
    int write_allocate;  // 0: a write to a line the cache does not hold goes to LPDDR5 (write-around)
  } cache;

  struct Lpddr5 {
    int channels;
    double peak_gbps, read_gbps, write_gbps;
    double turnaround_ns, latency_ns;
    double write_ack_ns;    // < 0: writes complete like reads (latency after the data); else posted
    double raw_read_extra;  // extra channel time of reading bytes the cores wrote, x a read's
    double raw_run_ns;      // and per run of such a read
    double access_ns;       // channel time of one access (request) besides its bytes
    int64_t interleave_bytes;
    int64_t mixed_batch_bytes;  // reads and writes served per pair of turnarounds
    double mixed_window_ns;     // time constant of a channel's recent read/write mix
    double mixed_full_share;    // minority share from which traffic is fully mixed
    int64_t queue_depth_chunks;
  } lpddr5;

  struct Ring {
    int bytes_per_cycle;
    double hop_latency_cycles;
  } data_ring, reduce_ring;

  struct HostLink {
    double gbps;
    double latency_us;
  } host_link;

  // The links between the cards of a tensor-parallel ensemble (--cards N):
  // each card's PCIe port, and how collectives use it.
  struct CardLink {
    double gbps;              // per card, per direction
    double latency_us;        // per transfer: DMA setup, the switch, the peer's doorbell
    int peer_to_peer;         // 1: cards exchange over the PCIe switch (ring collectives); 0: through the host
    double host_reduce_gbps;  // peer_to_peer 0: the host sums the cards' tensors at this rate
  } card_link;

  struct Launch {
    double bundle_overhead_us;
    double sdsc_overhead_ns;
    double barrier_ns;  // cross-core barrier after an SDSC on more than one core
  } launch;

  struct Address {
    int64_t segment_bytes;
    int segments;
    int program_segment;
    int64_t span_limit_bytes;
  } address;

  std::string source_file;             // path, or "built-in"
  std::vector<std::string> overrides;  // --set path=value, as applied

  double cycle_ns() const { return 1.0 / clock_ghz; }
  int64_t staging_bytes() const;  // LX the backend reserves: operand staging space
  DeviceLimits limits() const;
  Json to_json() const;  // resolved values, for reports
};

// One row of the parameter table.
struct ArchParam {
  const char* path;  // "lpddr5.read_gbps": the JSON path and the struct field
  void (*set)(ArchConfig&, double);
  double (*get)(const ArchConfig&);
  const char* unit;
  double value;  // the built-in card's
  double min, max;
  bool integer;
  const char* source;  // where the value comes from
  // Calibrated values: the value the model had before calibration
  // (docs/calibration.md); the hand-derived timing tests use these so they
  // check mechanisms, not the fit.
  std::optional<double> before_calibration = std::nullopt;
};

// The table, in the order spyre.json lists the parameters.
const std::vector<ArchParam>& arch_params();
const ArchParam* find_arch_param(const std::string& path);

// Loads an arch file (empty path: the built-in card) and applies
// "path=value" overrides. Unknown parameters, missing sources, bad values and
// out-of-range values are SpyreErrors naming the file and parameter.
ArchConfig load_arch(const std::string& path, const std::vector<std::string>& overrides);

// Every parameter's _source, by path, after the overrides.
std::map<std::string, std::string> arch_sources(const std::string& path, const std::vector<std::string>& overrides);
// Every parameter as "path = value unit  (source)", for `spyre-sim arch`.
std::vector<std::string> describe_arch(const std::string& path, const std::vector<std::string>& overrides);

// The built-in card as an arch file: the text of models/arch/spyre.json.
std::string builtin_arch_json();
// The arch `path` (empty: built-in) with `overrides` applied and the
// parameters of `replaced` given a new value and source, as an arch file
// (`calibrate` writes its fit so). Throws SpyreError for an unknown
// parameter or a value outside its range.
std::string arch_file_json(const std::string& path, const std::vector<std::string>& overrides,
                           const std::map<std::string, std::pair<double, std::string>>& replaced,
                           const std::string& description);
// A JSON Schema of arch files (models/arch/spyre.schema.json): every
// parameter with its unit, range and whether it is an integer.
std::string arch_json_schema();

// "path=value" for every calibrated parameter at its value before calibration.
std::vector<std::string> uncalibrated_overrides();

}  // namespace spyre
