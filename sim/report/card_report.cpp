#include "sim/report/card_report.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/report/invariants.h"
#include "sim/report/kernel_bounds.h"

namespace spyre::sim {

namespace {

// Counters over the measured iteration: now minus at its start.
class MeasuredCounters {
 public:
  explicit MeasuredCounters(const Card& card)
      : at_start_(card.counters_at_start()), sampled_(card.sampled_counters()) {}
  double of(const HardwareBlock& block, const Statistic& stat) const {
    return since_start(block, block.counters(), stat);
  }
  Counters all(const HardwareBlock& block) const {
    const Counters now = block.counters();
    Counters out;
    for (const auto& [stat, value] : now) out.set(*stat, since_start(block, now, *stat));
    return out;
  }

 private:
  // Plus what sampled kernels took from their twins (run --sample-repeats).
  double since_start(const HardwareBlock& block, const Counters& now, const Statistic& stat) const {
    const std::string name = block_name(block);
    double value = now.at(stat);
    if (const auto s = sampled_.find(name); s != sampled_.end() && s->second.has(stat)) value += s->second.at(stat);
    const auto start = at_start_.find(name);
    if (start == at_start_.end() || !start->second.has(stat)) return value;
    return value - start->second.at(stat);
  }

  const std::map<std::string, Counters>& at_start_;
  const std::map<std::string, Counters>& sampled_;
};

int64_t lx_high_water(const Program& program, int core) {
  int64_t high = 0;
  for (const auto& k : program.kernels) {
    for (const auto& b : k.tensors) {
      auto it = b.lx_address.find(core);
      // A relayouted input's bytes are its writer's, counted there.
      if (b.component == MemComponent::Lx && !b.relayout && it != b.lx_address.end())
        high = std::max(high, it->second + b.layout.size_bytes());
    }
  }
  return high;
}

void add_kernels(RunReport& r, const Program& program, const std::vector<KernelWork>& plans, const Card& card) {
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    const KernelWork& w = plans[k];
    KernelReport kr;
    kr.bundle = program.bundles[static_cast<size_t>(kernel.bundle)].name;
    kr.file = kernel.label;
    kr.op = kernel.sdsc->op_summary();
    kr.unit = kernel.sdsc->unit_summary();
    kr.cores = kernel.sdsc->num_cores;
    kr.start_us = (card.kernel_timing()[k].start_ns - card.device_start_ns()) / 1000.0;
    kr.end_us = (card.kernel_timing()[k].end_ns - card.device_start_ns()) / 1000.0;
    kr.hbm_read_bytes = w.hbm_read_bytes;
    kr.hbm_write_bytes = w.hbm_write_bytes;
    kr.macs = w.compute_macs;
    for (const auto& cw : w.cores) kr.tiles = std::max(kr.tiles, static_cast<int>(cw.tiles.size()));
    // A sampled kernel is bound as its twin was: the twin's window holds the activity.
    const int twin = card.kernel_timing()[k].timing_of;
    const size_t timed = twin >= 0 ? static_cast<size_t>(twin) : k;
    kr.bound = kernel_bound(card, plans[timed], timed, static_cast<int>(card.memory.counters().at(stats::kChannels)));
    if (twin >= 0) kr.timing_of = program.kernels[timed].label;
    kr.symbolic_dims = kernel.sdsc->symbolic_dims;
    r.hbm_read_bytes += w.hbm_read_bytes;
    r.hbm_write_bytes += w.hbm_write_bytes;
    r.kernels.push_back(kr);
  }
}

// Per engine kind in the core's blocks: busy time within the measured
// iteration, averaged over the engines of that kind (the two corelets' PT arrays).
std::map<std::string, double> mean_busy_ns(const Core& core, double from_ns, double to_ns) {
  std::map<std::string, double> busy, engines;
  for (const HardwareBlock* block : blocks_under(core)) {
    for (const Activity& a : block->activities()) {
      busy[a.kind] += a.log->busy_between(from_ns, to_ns);
      engines[a.kind] += 1;
    }
  }
  for (auto& [kind, ns] : busy) ns /= engines[kind];
  return busy;
}

void add_cores(RunReport& r, const Program& program, const std::vector<KernelWork>& plans, const Card& card) {
  std::set<int> used;
  for (const auto& w : plans) {
    for (const auto& cw : w.cores) used.insert(cw.core);
  }
  const double span_ns = card.device_end_ns() - card.device_start_ns();
  auto pct = [&](double busy) { return span_ns > 0 ? 100.0 * busy / span_ns : 0.0; };
  // Sampled kernels were busy as their twins were (run --sample-repeats).
  std::map<int, int> taken;  // twin -> kernels that took its timing
  for (const auto& t : card.kernel_timing())
    if (t.timing_of >= 0) ++taken[t.timing_of];
  for (int c : used) {
    const Core& core = *card.cores[static_cast<size_t>(c)];
    auto busy = mean_busy_ns(core, card.device_start_ns(), card.device_end_ns());
    for (const auto& [twin, times] : taken) {
      const KernelTiming& of = card.kernel_timing()[static_cast<size_t>(twin)];
      for (const auto& [kind, ns] : mean_busy_ns(core, of.start_ns, of.end_ns)) busy[kind] += times * ns;
    }
    CoreReport cr;
    cr.core = c;
    cr.pt_busy_pct = pct(busy["pt"]);
    cr.sfu_busy_pct = pct(busy["sfu"]);
    cr.dma_in_busy_pct = pct(busy["dma_in"]);
    cr.dma_out_busy_pct = pct(busy["dma_out"]);
    cr.lx_high_water_bytes = lx_high_water(program, c);
    for (const auto& w : plans) {
      for (const auto& cw : w.cores) {
        if (cw.core != c) continue;
        cr.staging_peak_bytes = std::max(cr.staging_peak_bytes, cw.staging_bytes);
        cr.hbm_read_bytes += cw.hbm_read_bytes;
        cr.hbm_write_bytes += cw.hbm_write_bytes;
      }
    }
    r.cores.push_back(cr);
  }
}

void add_memory_and_links(RunReport& r, const Card& card) {
  const MeasuredCounters measured(card);
  const double span_ns = card.device_end_ns() - card.device_start_ns();
  r.cache_hit_bytes = static_cast<int64_t>(measured.of(card.cache, stats::kHitBytes));
  r.cache_miss_bytes = static_cast<int64_t>(measured.of(card.cache, stats::kMissBytes));
  r.cache_writeback_bytes = static_cast<int64_t>(measured.of(card.cache, stats::kWritebackBytes));
  r.dram_read_bytes = static_cast<int64_t>(measured.of(card.memory, stats::kReadBytes));
  r.dram_write_bytes = static_cast<int64_t>(measured.of(card.memory, stats::kWriteBytes));
  r.lpddr5_achieved_gbps = span_ns > 0 ? static_cast<double>(r.dram_read_bytes + r.dram_write_bytes) / span_ns : 0;
  const double channels = card.memory.counters().at(stats::kChannels);
  r.lpddr5_utilization = span_ns > 0 ? measured.of(card.memory, stats::kChannelBusyNs) / (span_ns * channels) : 0;
  r.lpddr5_turnarounds = static_cast<int64_t>(measured.of(card.memory, stats::kTurnarounds));
  r.data_ring_bytes = static_cast<int64_t>(measured.of(*card.data_ring, stats::kBytesXHops));
  r.reduce_ring_bytes = static_cast<int64_t>(measured.of(*card.reduce_ring, stats::kBytesXHops));
  r.card_link_sent_bytes = static_cast<int64_t>(measured.of(card.card_links, stats::kSentBytes));
  r.card_link_received_bytes = static_cast<int64_t>(measured.of(card.card_links, stats::kReceivedBytes));
  // The host link works before and after the measured iteration: its totals.
  const Counters host = card.host.counters();
  r.host_upload_bytes = static_cast<int64_t>(host.at(stats::kUploadBytes));
  r.host_download_bytes = static_cast<int64_t>(host.at(stats::kDownloadBytes));
  r.host_upload_us = card.device_start_ns() / 1000.0;
  double download_ns = 0;
  for (const auto& i : card.host.log().intervals()) {
    if (i.start_ns >= card.device_end_ns()) download_ns += i.end_ns - i.start_ns;
  }
  r.host_download_us = download_ns / 1000.0;
  // Every block that did something in the measured iteration, with its counters.
  for (const HardwareBlock* block : blocks_under(card)) {
    BlockReport b;
    b.block = block_name(*block);
    for (const auto& [stat, value] : measured.all(*block)) {
      if (value != 0 && stat != &stats::kChannels) b.counters[stat->name] = value;
    }
    if (!b.counters.empty()) r.blocks.push_back(b);
  }
}

void add_collectives(RunReport& r, const Program& program, const Card& card) {
  r.cards = program.cards;
  const auto& timing = card.collective_timing();
  for (size_t i = 0; i < timing.size() && i < program.collectives.size(); ++i) {
    const Collective& c = program.collectives[i];
    r.collectives.push_back({c.op, program.host_tensors.at(static_cast<size_t>(c.tensor)).name, c.after_bundle,
                             timing[i].bytes, (timing[i].start_ns - card.device_start_ns()) / 1000.0,
                             (timing[i].end_ns - card.device_start_ns()) / 1000.0});
  }
}

void add_tensors(RunReport& r, const Program& program) {
  for (const auto& h : program.host_tensors) {
    TensorReport t;
    t.name = h.name;
    t.role = !h.role.empty() ? h.role : h.is_input && h.is_output ? "inout" : h.is_input ? "input" : "output";
    t.format = data_format_name(h.format);
    t.dims = h.dims;
    t.shape = h.shape;
    t.address = h.address;
    t.device_bytes = h.layout.data_bytes();
    t.layout = h.layout.describe();
    r.tensors.push_back(t);
  }
}

}  // namespace

RunReport build_report(const Program& program, const ArchConfig& arch, const std::vector<KernelWork>& plans,
                       const Card& card, bool functional, bool vf, std::vector<Hazard> hazards) {
  RunReport r;
  r.bundle = program.name;
  r.mode = functional ? "functional" : "timing";
  r.lx_wiped_at_bundles = vf;
  r.arch = arch.to_json();
  const double span_ns = card.device_end_ns() - card.device_start_ns();
  r.latency_us = span_ns / 1000.0;
  r.cycles = static_cast<int64_t>(std::llround(span_ns * arch.clock_ghz));
  r.protocol = card.protocol();
  add_kernels(r, program, plans, card);
  add_collectives(r, program, card);
  add_cores(r, program, plans, card);
  add_memory_and_links(r, card);
  add_tensors(r, program);
  r.measured_window_ns = now_ns() - card.device_start_ns();
  r.invariants = physical_invariants(r, arch);
  r.hazards = std::move(hazards);
  return r;
}

}  // namespace spyre::sim
