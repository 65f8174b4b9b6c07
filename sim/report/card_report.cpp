#include "sim/report/card_report.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/report/chrome_trace.h"

namespace spyre::sim {

namespace {

int64_t lx_high_water(const Program& program, int core) {
  int64_t high = 0;
  for (const auto& k : program.kernels) {
    for (const auto& b : k.tensors) {
      auto it = b.lx_address.find(core);
      if (b.component == MemComponent::Lx && it != b.lx_address.end()) high = std::max(high, it->second + b.layout.size_bytes());
    }
  }
  return high;
}

}  // namespace

RunReport build_report(const Program& program, const ArchConfig& arch, const std::vector<KernelWork>& plans, const Card& card, bool functional,
                       bool vf, std::vector<Hazard> hazards) {
  RunReport r;
  r.bundle = program.name;
  r.mode = functional ? "functional" : "timing";
  r.lx_wiped_at_bundles = vf;
  r.arch = arch.to_json();
  const double span_ns = card.device_end_ns() - card.device_start_ns();
  r.latency_us = span_ns / 1000.0;
  r.cycles = static_cast<int64_t>(std::llround(span_ns * arch.clock_ghz));
  std::set<int> used;
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
    for (const auto& cw : w.cores) {
      kr.tiles = std::max(kr.tiles, static_cast<int>(cw.tiles.size()));
      used.insert(cw.core);
    }
    r.hbm_read_bytes += w.hbm_read_bytes;
    r.hbm_write_bytes += w.hbm_write_bytes;
    r.kernels.push_back(kr);
  }
  auto pct = [&](double busy) { return span_ns > 0 ? 100.0 * busy / span_ns : 0.0; };
  for (int c : used) {
    const Core& core = *card.cores[static_cast<size_t>(c)];
    CoreReport cr;
    cr.core = c;
    double pt = 0, sfu = 0;
    for (const auto& corelet : core.corelets) {
      pt += corelet->log(Engine::Pt).busy_between(card.device_start_ns(), card.device_end_ns());
      sfu += corelet->log(Engine::Sfu).busy_between(card.device_start_ns(), card.device_end_ns());
    }
    cr.pt_busy_pct = pct(pt / static_cast<double>(core.corelets.size()));
    cr.sfu_busy_pct = pct(sfu / static_cast<double>(core.corelets.size()));
    cr.dma_in_busy_pct = pct(core.dma_in.log().busy_between(card.device_start_ns(), card.device_end_ns()));
    cr.dma_out_busy_pct = pct(core.dma_out.log().busy_between(card.device_start_ns(), card.device_end_ns()));
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
  // Memory traffic of the measured iteration (after any warm-up iterations).
  const auto& mem = card.memory.stats();
  const auto& mem0 = card.memory_at_start();
  r.cache_hit_bytes = card.cache.stats().hit_bytes - card.cache_at_start().hit_bytes;
  r.cache_miss_bytes = card.cache.stats().miss_bytes - card.cache_at_start().miss_bytes;
  r.cache_writeback_bytes = card.cache.stats().writeback_bytes - card.cache_at_start().writeback_bytes;
  r.dram_read_bytes = mem.read_bytes - mem0.read_bytes;
  r.dram_write_bytes = mem.write_bytes - mem0.write_bytes;
  r.warmup_iterations = card.warmup_iterations();
  r.lpddr5_achieved_gbps = span_ns > 0 ? static_cast<double>(r.dram_read_bytes + r.dram_write_bytes) / span_ns : 0;
  double channel_busy = 0;
  for (size_t ch = 0; ch < mem.channel_busy_ns.size(); ++ch) channel_busy += mem.channel_busy_ns[ch] - (ch < mem0.channel_busy_ns.size() ? mem0.channel_busy_ns[ch] : 0.0);
  r.lpddr5_utilization = span_ns > 0 ? channel_busy / (span_ns * static_cast<double>(mem.channel_busy_ns.size())) : 0;
  r.lpddr5_turnarounds = mem.turnarounds;
  r.data_ring_bytes = card.data_ring.bytes_moved();
  r.reduce_ring_bytes = card.reduce_ring.bytes_moved();
  r.host_upload_bytes = card.upload_bytes();
  r.host_download_bytes = card.download_bytes();
  r.host_upload_us = card.device_start_ns() / 1000.0;
  double download_ns = 0;
  for (const auto& i : card.host.log().intervals()) {
    if (i.start_ns >= card.device_end_ns()) download_ns += i.end_ns - i.start_ns;
  }
  r.host_download_us = download_ns / 1000.0;
  for (const auto& h : program.host_tensors) {
    TensorReport t;
    t.name = h.name;
    t.role = !h.role.empty() ? h.role : h.is_input && h.is_output ? "inout" : h.is_input ? "input" : "output";
    t.format = data_format_name(h.format);
    t.dims = h.dims;
    t.shape = h.shape;
    t.address = h.address;
    t.device_bytes = h.layout.size_bytes();
    t.layout = h.layout.describe();
    r.tensors.push_back(t);
  }
  r.hazards = std::move(hazards);
  return r;
}

Json build_trace(const Program& program, const Card& card) {
  ChromeTrace trace;
  trace.add_process(0, "card");
  trace.add_thread(0, 1, "kernels");
  trace.add_thread(0, 2, "host link");
  std::vector<BusyInterval> kernels;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    kernels.push_back({card.kernel_timing()[k].start_ns, card.kernel_timing()[k].end_ns,
                       program.kernels[k].label + " " + program.kernels[k].sdsc->op_summary()});
  }
  trace.add_events(0, 1, kernels);
  trace.add_events(0, 2, card.host.log().intervals());
  for (const auto& core : card.cores) {
    const bool active = !core->dma_in.log().intervals().empty() || !core->dma_out.log().intervals().empty() ||
                        std::any_of(core->corelets.begin(), core->corelets.end(), [](const auto& c) {
                          return !c->log(Engine::Pt).intervals().empty() || !c->log(Engine::Sfu).intervals().empty();
                        });
    if (!active) continue;
    const int pid = core->id() + 1;
    trace.add_process(pid, "core " + std::to_string(core->id()));
    trace.add_thread(pid, 1, "DMA-in");
    trace.add_events(pid, 1, core->dma_in.log().intervals());
    for (size_t c = 0; c < core->corelets.size(); ++c) {
      const int tid = 2 + 2 * static_cast<int>(c);
      trace.add_thread(pid, tid, "corelet " + std::to_string(c) + " PT");
      trace.add_events(pid, tid, core->corelets[c]->log(Engine::Pt).intervals());
      trace.add_thread(pid, tid + 1, "corelet " + std::to_string(c) + " SFU");
      trace.add_events(pid, tid + 1, core->corelets[c]->log(Engine::Sfu).intervals());
    }
    const int out_tid = 2 + 2 * static_cast<int>(core->corelets.size());
    trace.add_thread(pid, out_tid, "DMA-out");
    trace.add_events(pid, out_tid, core->dma_out.log().intervals());
  }
  int pid = 1000;
  for (const Ring* ring : {&card.data_ring, &card.reduce_ring}) {
    const auto links = ring->active_links();
    if (links.empty()) continue;
    trace.add_process(pid, ring == &card.data_ring ? "data ring" : "reduce-sum ring");
    int tid = 1;
    for (const auto& [name, log] : links) {
      trace.add_thread(pid, tid, "link " + name);
      trace.add_events(pid, tid, log->intervals());
      ++tid;
    }
    ++pid;
  }
  return trace.to_json();
}

}  // namespace spyre::sim
