#pragma once
// Every hardware parameter of the card model, loaded from an arch JSON
// (models/arch/spyre.json) where each value carries its unit and source.
// --set path=value overrides any of them for what-if studies.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/json_node.h"
#include "runtime/program.h"

namespace spyre {

struct ArchConfig {
  std::string name;
  int cores = 32;
  double clock_ghz = 1.5;
  int corelets_per_core = 2;

  struct Pt {
    int pe_rows = 8, pe_cols = 8, simd_lanes = 8;
    double efficiency = 0.742;
    double strided_efficiency = 0.104;
    int elementwise_elems_per_cycle = 64;
  } pt;

  struct Sfu {
    int lanes = 64;
    double cycles_simple = 1, cycles_divide = 2, cycles_transcendental = 4, cycles_reduce = 1, cycles_reduce_stick = 1;
  } sfu;

  struct Lx {
    int64_t size_bytes = 2097152;
    int alignment_bytes = 128;
    double backend_reserved_fraction = 0.2;
    int ports = 2;
    int port_bytes_per_cycle = 128;
  } lx;

  struct Dma {
    double port_gbps = 67;
    int64_t request_bytes = 2048;
    int max_outstanding = 16;
    double setup_ns = 50;
    double write_fence_ns = 0;  // a kernel that wrote HBM waits this long after its last store
  } dma;

  struct Cache {
    int64_t bytes = 0;  // 0: no memory-side cache
    int64_t line_bytes = 2048;
    double gbps = 1000;
    double hit_latency_ns = 60;
  } cache;

  struct Lpddr5 {
    int channels = 8;
    double peak_gbps = 204.8, read_gbps = 150, write_gbps = 146;
    double turnaround_ns = 24, latency_ns = 120;
    double write_ack_ns = -1;  // < 0: writes complete like reads (latency after the data); else posted, acknowledged this long after admission
    int64_t interleave_bytes = 256;
    int64_t write_batch_bytes = 1024;
    int64_t queue_depth_chunks = 32;
  } lpddr5;

  struct Ring {
    int bytes_per_cycle = 128;
    double hop_latency_cycles = 4;
  } data_ring, reduce_ring;

  struct HostLink {
    double gbps = 50;
    double latency_us = 1;
  } host_link;

  struct Launch {
    double bundle_overhead_us = 15;
    double sdsc_overhead_ns = 500;
    double barrier_ns_per_level = 0;  // cross-core barrier after an SDSC: per level of a log2(cores) tree
  } launch;

  struct Address {
    int64_t segment_bytes = int64_t{1} << 34;
    int segments = 8;
    int program_segment = 7;
    int64_t span_limit_bytes = int64_t{1} << 28;
  } address;

  std::string source_file;             // path, or "built-in"
  std::vector<std::string> overrides;  // --set path=value, as applied

  double cycle_ns() const { return 1.0 / clock_ghz; }
  int64_t staging_bytes() const;  // LX the backend reserves: operand staging space
  DeviceLimits limits() const;
  Json to_json() const;           // resolved values, for reports
};

// Loads an arch file (empty path: the built-in spyre.json) and applies
// "path=value" overrides. Unknown parameters, missing sources, bad values and
// out-of-range values are SpyreErrors naming the file and parameter.
ArchConfig load_arch(const std::string& path, const std::vector<std::string>& overrides);

// Every parameter as "path = value unit  (source)", for `spyre-sim arch`.
std::vector<std::string> describe_arch(const std::string& path, const std::vector<std::string>& overrides);

}  // namespace spyre
