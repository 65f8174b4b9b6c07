#include "sim/report/run_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace spyre::sim {

double rounded(double value, int decimals) {
  double scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  return static_cast<double>(static_cast<long long>(value * scale + (value >= 0 ? 0.5 : -0.5))) / scale;
}

namespace {

std::string fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string pad(const std::string& s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::string bound_text(const std::map<std::string, double>& shares) {
  std::string text;
  for (const char* name : {"lpddr5", "dma", "pt", "sfu", "ring", "idle", "barrier"}) {
    const auto it = shares.find(name);
    if (it == shares.end() || it->second < 0.01) continue;
    char part[40];
    std::snprintf(part, sizeof part, "%s%s %.0f%%", text.empty() ? "" : ", ", name, 100 * it->second);
    text += part;
  }
  return text;
}

Json bound_to_json(const KernelBound& b) {
  auto shares = [](const std::map<std::string, double>& m) {
    Json j = Json::object();
    for (const auto& [name, share] : m) j[name] = rounded(100 * share, 2);
    return j;
  };
  Json cores = Json::array();
  for (const auto& c : b.cores) {
    cores.push_back(
        {{"core", c.core}, {"end_us", rounded(c.end_us, 4)}, {"by", c.bound_by}, {"shares_pct", shares(c.shares)}});
  }
  return {{"by", b.bound_by},
          {"critical_core", b.critical_core},
          {"launch_us", rounded(b.launch_us, 4)},
          {"shares_pct", shares(b.shares)},
          {"cores", cores}};
}

namespace {

Json hbm_json(const RunReport& r) {
  return {{"read_bytes", r.hbm_read_bytes},
          {"write_bytes", r.hbm_write_bytes},
          {"total_bytes", r.hbm_read_bytes + r.hbm_write_bytes},
          {"achieved_gbps", rounded(r.lpddr5_achieved_gbps, 3)},
          {"lpddr5_busy_fraction", rounded(r.lpddr5_utilization, 4)},
          {"turnarounds", r.lpddr5_turnarounds},
          {"dram_read_bytes", r.dram_read_bytes},
          {"dram_write_bytes", r.dram_write_bytes},
          {"cache_hit_bytes", r.cache_hit_bytes},
          {"cache_miss_bytes", r.cache_miss_bytes},
          {"cache_writeback_bytes", r.cache_writeback_bytes}};
}

// Per core, as arrays: LX high water and staging peaks.
Json lx_json(const RunReport& r) {
  Json lx_peak = Json::array(), staging = Json::array();
  for (const auto& c : r.cores) {
    lx_peak.push_back(c.lx_high_water_bytes);
    staging.push_back(c.staging_peak_bytes);
  }
  return {{"peak_bytes_per_core", lx_peak}, {"staging_peak_bytes_per_core", staging}};
}

// Per core: busy shares, LX, HBM bytes.
Json engines_json(const RunReport& r) {
  Json cores = Json::array();
  for (const auto& c : r.cores) {
    cores.push_back({{"core", c.core},
                     {"pt_busy_pct", rounded(c.pt_busy_pct, 2)},
                     {"sfu_busy_pct", rounded(c.sfu_busy_pct, 2)},
                     {"dma_in_busy_pct", rounded(c.dma_in_busy_pct, 2)},
                     {"dma_out_busy_pct", rounded(c.dma_out_busy_pct, 2)},
                     {"lx_high_water_bytes", c.lx_high_water_bytes},
                     {"staging_peak_bytes", c.staging_peak_bytes},
                     {"hbm_read_bytes", c.hbm_read_bytes},
                     {"hbm_write_bytes", c.hbm_write_bytes}});
  }
  return cores;
}

// Kernels that took a twin's timing (run --sample-repeats).
int64_t sampled_kernels(const RunReport& r) {
  return std::count_if(r.kernels.begin(), r.kernels.end(), [](const auto& k) { return !k.timing_of.empty(); });
}

Json kernels_json(const RunReport& r) {
  Json kernels = Json::array();
  for (const auto& k : r.kernels) {
    Json entry = {{"bundle", k.bundle},
                  {"file", k.file},
                  {"op", k.op},
                  {"unit", k.unit},
                  {"cores", k.cores},
                  {"start_us", rounded(k.start_us, 4)},
                  {"end_us", rounded(k.end_us, 4)},
                  {"hbm_read_bytes", k.hbm_read_bytes},
                  {"hbm_write_bytes", k.hbm_write_bytes},
                  {"tiles", k.tiles},
                  {"macs", k.macs},
                  {"bound", bound_to_json(k.bound)}};
    if (!k.timing_of.empty()) entry["timing_of"] = k.timing_of;
    for (const auto& d : k.symbolic_dims) {
      entry["symbolic_dims"].push_back({{"dim", d.dim},
                                        {"symbol", d.symbol},
                                        {"max_per_core", d.max_per_core},
                                        {"granularity_per_core", d.granularity_per_core},
                                        {"bound", d.bound > 0 ? Json(d.bound) : Json(nullptr)},
                                        {"bound_by", d.bound > 0 ? Json(d.bound_by) : Json(nullptr)}});
    }
    kernels.push_back(std::move(entry));
  }
  return kernels;
}

Json tensors_json(const RunReport& r) {
  Json tensors = Json::array();
  for (const auto& t : r.tensors) {
    tensors.push_back({{"name", t.name},
                       {"role", t.role},
                       {"format", t.format},
                       {"dims", t.dims},
                       {"shape", t.shape},
                       {"address", t.address},
                       {"device_bytes", t.device_bytes},
                       {"layout", t.layout}});
  }
  return tensors;
}

Json blocks_json(const RunReport& r) {
  Json blocks = Json::array();
  for (const auto& b : r.blocks) {
    Json entry = {{"block", b.block}};
    for (const auto& [key, value] : b.counters) entry[key] = rounded(value, 4);
    blocks.push_back(entry);
  }
  return blocks;
}

Json hazards_json(const RunReport& r) {
  Json hazards = Json::array();
  for (const auto& h : r.hazards) {
    hazards.push_back({{"kind", h.kind},
                       {"bundle", h.bundle},
                       {"file", h.file},
                       {"tensor", h.tensor},
                       {"cores", h.cores},
                       {"time_us", h.time_us < 0 ? Json(nullptr) : Json(rounded(h.time_us, 4))},
                       {"detail", h.detail}});
  }
  return hazards;
}

Json invariants_json(const RunReport& r) {
  Json violated = Json::array();
  for (const auto& c : r.invariants) {
    if (!c.holds()) violated.push_back({{"check", c.name}, {"value", c.value}, {"limit", c.limit}});
  }
  return {{"checked", r.invariants.size()}, {"violated", violated}};
}

Json comparisons_json(const RunReport& r) {
  Json cmp = Json::array();
  for (const auto& c : r.comparisons) {
    cmp.push_back({{"name", c.name},
                   {"passed", c.passed},
                   {"elements", c.elements},
                   {"mismatches", c.mismatches},
                   {"worst_index", c.worst_coords},
                   {"got", c.got},
                   {"expected", c.expected},
                   {"abs_error", c.abs_error},
                   {"rtol", c.tolerance.rtol},
                   {"atol", c.tolerance.atol},
                   {"tolerance", c.tolerance.basis}});
  }
  return cmp;
}

}  // namespace

// Keys in the order reports have always had (ordered JSON): people diff them.
Json report_to_json(const RunReport& r) {
  Json j;
  j["bundle"] = r.bundle;
  j["mode"] = r.mode;
  j["vf"] = r.lx_wiped_at_bundles;
  j["warmup_iterations"] = r.protocol.warmup;
  j["between_runs"] = to_string(r.protocol.between_runs);
  if (r.sample_repeats > 0) {
    const int64_t sampled = sampled_kernels(r);
    j["sampling"] = {{"repeats", r.sample_repeats},
                     {"simulated_kernels", static_cast<int64_t>(r.kernels.size()) - sampled},
                     {"sampled_kernels", sampled}};
  }
  j["latency_us"] = rounded(r.latency_us, 4);
  j["cycles"] = r.cycles;
  j["hbm"] = hbm_json(r);
  j["lx"] = lx_json(r);
  j["host"] = {{"upload_bytes", r.host_upload_bytes},
               {"upload_us", rounded(r.host_upload_us, 4)},
               {"download_bytes", r.host_download_bytes},
               {"download_us", rounded(r.host_download_us, 4)}};
  j["rings"] = {{"data_ring_bytes", r.data_ring_bytes}, {"reduce_ring_bytes", r.reduce_ring_bytes}};
  j["kernels"] = kernels_json(r);
  if (r.cards > 1) {
    Json collectives = Json::array();
    for (const auto& c : r.collectives)
      collectives.push_back({{"op", c.op},
                             {"tensor", c.tensor},
                             {"after_bundle", c.after_bundle},
                             {"bytes", c.bytes},
                             {"start_us", rounded(c.start_us, 4)},
                             {"end_us", rounded(c.end_us, 4)}});
    j["cards"] = {{"count", r.cards},
                  {"link_sent_bytes", r.card_link_sent_bytes},
                  {"link_received_bytes", r.card_link_received_bytes},
                  {"collectives", collectives}};
  }
  j["engines"] = engines_json(r);
  j["tensors"] = tensors_json(r);
  j["blocks"] = blocks_json(r);
  j["hazards"] = hazards_json(r);
  j["invariants"] = invariants_json(r);
  if (!r.comparisons.empty()) j["expect"] = comparisons_json(r);
  j["arch"] = r.arch;
  return j;
}

std::string report_table(const RunReport& r) {
  std::ostringstream out;
  out << "spyre-sim run " << r.bundle << " (" << r.mode << ")\n\n";
  size_t kernel_width = 14, op_width = 16;
  for (const auto& k : r.kernels) {
    kernel_width = std::max(kernel_width, k.file.size() + 2);
    op_width = std::max(op_width, k.op.size() + 2);
  }
  out << pad("kernel", kernel_width) << pad("op", op_width) << pad("unit", 8) << pad("cores", 6, true)
      << pad("start_us", 12, true) << pad("end_us", 12, true) << pad("hbm_read_B", 14, true)
      << pad("hbm_write_B", 14, true) << "  bound by (slowest core)\n";
  for (const auto& k : r.kernels) {
    out << pad(k.file, kernel_width) << pad(k.op, op_width) << pad(k.unit, 8) << pad(std::to_string(k.cores), 6, true)
        << pad(fmt("%.3f", k.start_us), 12, true) << pad(fmt("%.3f", k.end_us), 12, true)
        << pad(std::to_string(k.hbm_read_bytes), 14, true) << pad(std::to_string(k.hbm_write_bytes), 14, true) << "  "
        << bound_text(k.bound.shares) << (k.timing_of.empty() ? "" : "  (timing of " + k.timing_of + ")") << "\n";
  }
  out << "\nlatency      " << fmt("%.3f", r.latency_us) << " us  (" << r.cycles << " cycles)\n";
  for (const auto& k : r.kernels) {
    for (const auto& d : k.symbolic_dims) {
      out << "symbolic     " << k.file << ": " << d.dim << " is " << d.symbol;
      if (d.bound > 0) {
        out << " = " << d.bound << " (" << d.bound_by << "; at most " << d.max_per_core << ")\n";
      } else {
        out << ", run at its maximum " << d.max_per_core << " per core (granularity " << d.granularity_per_core
            << ")\n";
      }
    }
  }
  if (r.sample_repeats > 0) {
    const int64_t sampled = sampled_kernels(r);
    out << "sampling     " << (static_cast<int64_t>(r.kernels.size()) - sampled) << " kernels simulated, " << sampled
        << " took the timing of their twin (--sample-repeats " << r.sample_repeats << ")\n";
  }
  out << "HBM          read " << r.hbm_read_bytes << " B, write " << r.hbm_write_bytes << " B, total "
      << (r.hbm_read_bytes + r.hbm_write_bytes) << " B  (LPDDR5 " << fmt("%.1f", r.lpddr5_achieved_gbps)
      << " GB/s achieved, channels " << fmt("%.1f", 100 * r.lpddr5_utilization) << "% busy)\n";
  if (r.cache_hit_bytes + r.cache_miss_bytes > 0) {
    out << "cache        hit " << r.cache_hit_bytes << " B, miss " << r.cache_miss_bytes << " B, write-back "
        << r.cache_writeback_bytes << " B; LPDDR5 read " << r.dram_read_bytes << " B, write " << r.dram_write_bytes
        << " B\n";
  }
  out << "host link    upload " << r.host_upload_bytes << " B in " << fmt("%.3f", r.host_upload_us) << " us, download "
      << r.host_download_bytes << " B in " << fmt("%.3f", r.host_download_us) << " us\n";
  if (r.cards > 1) {
    double collective_us = 0;
    for (const auto& c : r.collectives) collective_us += c.end_us - c.start_us;
    out << "cards        " << r.cards << " (this card's part of each layer); " << r.collectives.size()
        << " all-reduces took " << fmt("%.3f", collective_us) << " us; link sent " << r.card_link_sent_bytes
        << " B, received " << r.card_link_received_bytes << " B\n";
  }
  if (r.data_ring_bytes || r.reduce_ring_bytes) {
    out << "rings        data " << r.data_ring_bytes << " B x hops, reduce-sum " << r.reduce_ring_bytes
        << " B x hops\n";
  }
  out << "\n"
      << pad("core", 6) << pad("PT%", 8, true) << pad("SFU%", 8, true) << pad("DMAin%", 8, true)
      << pad("DMAout%", 9, true) << pad("LX_high_B", 12, true) << pad("staging_B", 12, true) << "\n";
  for (const auto& c : r.cores) {
    out << pad(std::to_string(c.core), 6) << pad(fmt("%.1f", c.pt_busy_pct), 8, true)
        << pad(fmt("%.1f", c.sfu_busy_pct), 8, true) << pad(fmt("%.1f", c.dma_in_busy_pct), 8, true)
        << pad(fmt("%.1f", c.dma_out_busy_pct), 9, true) << pad(std::to_string(c.lx_high_water_bytes), 12, true)
        << pad(std::to_string(c.staging_peak_bytes), 12, true) << "\n";
  }
  out << "\nhazards      " << (r.hazards.empty() ? "none" : std::to_string(r.hazards.size())) << "\n";
  for (const auto& h : r.hazards) out << "  " << format_hazard(h) << "\n";
  const auto violated =
      std::count_if(r.invariants.begin(), r.invariants.end(), [](const auto& c) { return !c.holds(); });
  out << "invariants   " << r.invariants.size() << " checked, "
      << (violated == 0 ? "all hold" : std::to_string(violated) + " VIOLATED (a model defect: please report it)")
      << "\n";
  for (const auto& c : r.invariants) {
    if (!c.holds()) out << "  " << c.name << ": " << fmt("%.6g", c.value) << " > " << fmt("%.6g", c.limit) << "\n";
  }
  for (const auto& c : r.comparisons) {
    out << (c.passed ? "expect ok    " : "expect FAIL  ") << c.name << ": " << c.mismatches << " of " << c.elements
        << " elements outside rtol " << fmt("%.3g", c.tolerance.rtol) << " atol " << fmt("%.3g", c.tolerance.atol)
        << "; worst at " << c.worst_coords << " got " << c.got << " expected " << c.expected << "\n";
  }
  return out.str();
}

}  // namespace spyre::sim
