#include "sim/report/invariants.h"

#include <algorithm>

#include "sim/hw/statistics.h"

namespace spyre::sim {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A block's statistic in the report (named by its declaration, sim/hw/statistics.h).
bool has(const BlockReport& b, const Statistic& stat) { return b.counters.count(stat.name) > 0; }
double counter(const BlockReport& b, const Statistic& stat) {
  const auto it = b.counters.find(stat.name);
  return it == b.counters.end() ? 0.0 : it->second;
}

}  // namespace

bool InvariantCheck::holds() const {
  // Rounding of time to SystemC's 1 ps and of rates: a relative slack of 1e-6.
  return value <= limit * (1 + 1e-6) + 1e-6;
}

std::vector<InvariantCheck> physical_invariants(const RunReport& r, const ArchConfig& arch) {
  std::vector<InvariantCheck> out;
  const double window = r.measured_window_ns;
  const double dram_read = static_cast<double>(r.dram_read_bytes);
  const double dram_write = static_cast<double>(r.dram_write_bytes);
  out.push_back({"card.lpddr5: bytes read and written / peak_gbps <= window (ns)",
                 (dram_read + dram_write) / arch.lpddr5.peak_gbps, window});
  out.push_back(
      {"card.cache: bytes filled <= bytes read from LPDDR5", static_cast<double>(r.cache_miss_bytes), dram_read});
  if (arch.cache.bytes > 0) {
    out.push_back({"card.cache: bytes hit / cache.gbps <= window (ns)",
                   static_cast<double>(r.cache_hit_bytes) / arch.cache.gbps, window});
  }
  for (const auto& b : r.blocks) {
    if (b.block == "card.host_link") continue;  // works before and after the measured iteration
    if (has(b, stats::kBusyNs)) out.push_back({b.block + ": busy <= window (ns)", counter(b, stats::kBusyNs), window});
    if (has(b, stats::kChannelBusyNs))
      out.push_back({b.block + ": channel busy <= channels x window (ns)", counter(b, stats::kChannelBusyNs),
                     arch.lpddr5.channels * window});
    if (ends_with(b.block, ".dma_in") || ends_with(b.block, ".dma_out"))
      out.push_back(
          {b.block + ": bytes / dma.port_gbps <= window (ns)", counter(b, stats::kBytes) / arch.dma.port_gbps, window});
    if (ends_with(b.block, ".lx")) {
      const double bytes_per_ns = arch.lx.ports * arch.lx.port_bytes_per_cycle * arch.clock_ghz;
      out.push_back(
          {b.block + ": bytes / LX port rate <= window (ns)", counter(b, stats::kBytes) / bytes_per_ns, window});
    }
    if (has(b, stats::kSentBytes) || has(b, stats::kReceivedBytes)) {
      // Each direction of the card's port: its bytes at the link rate fit in the time it was busy.
      const double busy = counter(b, stats::kBusyNs);
      out.push_back({b.block + ": bytes sent / card_link.gbps <= busy (ns)",
                     counter(b, stats::kSentBytes) / arch.card_link.gbps, busy});
      out.push_back({b.block + ": bytes received / card_link.gbps <= busy (ns)",
                     counter(b, stats::kReceivedBytes) / arch.card_link.gbps, busy});
    }
    if (has(b, stats::kBytesXHops)) {
      const auto& ring = ends_with(b.block, "reduce_ring") ? arch.reduce_ring : arch.data_ring;
      const double bytes_per_ns = static_cast<double>(ring.bytes_per_cycle) * arch.clock_ghz * arch.cores;
      out.push_back({b.block + ": bytes x hops / (links x link rate) <= window (ns)",
                     counter(b, stats::kBytesXHops) / bytes_per_ns, window});
    }
  }
  // The PT arrays: a kernel's MACs at the arrays' peak take no longer than the kernel.
  const double macs_per_ns_per_core = static_cast<double>(arch.corelets_per_core) * arch.pt.pe_rows * arch.pt.pe_cols *
                                      arch.pt.simd_lanes * arch.clock_ghz;
  for (const auto& k : r.kernels) {
    if (k.macs <= 0 || k.cores <= 0) continue;
    out.push_back({"kernel " + k.file + ": MACs / PT peak <= kernel time (ns)",
                   static_cast<double>(k.macs) / (macs_per_ns_per_core * k.cores), (k.end_us - k.start_us) * 1000.0});
  }
  return out;
}

}  // namespace spyre::sim
