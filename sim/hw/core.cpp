#include "sim/hw/core.h"

#include <algorithm>

#include "sim/hw/card.h"

namespace spyre::sim {

namespace {
constexpr int kStagingBuffers = 2;  // double buffering
constexpr int kRingPhase = -1;      // sentinel after the last tile
}  // namespace

Core::Core(sc_core::sc_module_name name, int id, const ArchConfig& arch, Card& card)
    : sc_module(name),
      lx("lx", arch),
      dma_in("dma_in", arch, /*writes_to_hbm=*/false, port, lx),
      dma_out("dma_out", arch, /*writes_to_hbm=*/true, port, lx),
      card_(card),
      id_(id),
      loaded_("loaded", 1 << 20),
      computed_("computed", 1 << 20),
      load_slots_("load_slots", kStagingBuffers),
      store_slots_("store_slots", kStagingBuffers) {
  port.ns_per_byte = 1.0 / arch.dma.port_gbps;
  write_fence_ns_ = arch.dma.write_fence_ns;
  for (int c = 0; c < arch.corelets_per_core; ++c) {
    corelets.push_back(std::make_unique<Corelet>(("corelet" + std::to_string(c)).c_str(), arch));
  }
  SC_THREAD(load_thread);
  SC_THREAD(compute_thread);
  SC_THREAD(store_thread);
}

void Core::start(const CoreWork* work, const std::string& label) {
  work_ = work;
  label_ = label;
  start_.notify(sc_core::SC_ZERO_TIME);
}

void Core::load_thread() {
  while (true) {
    sc_core::wait(start_);
    for (size_t i = 0; i < work_->tiles.size(); ++i) {
      load_slots_.wait();
      for (const auto& t : work_->tiles[i].loads) dma_in.transfer(t, label_ + " tile " + std::to_string(i));
      loaded_.write(static_cast<int>(i));
    }
  }
}

void Core::compute_thread() {
  while (true) {
    sc_core::wait(start_);
    for (size_t n = 0; n < work_->tiles.size(); ++n) {
      const int i = loaded_.read();
      store_slots_.wait();
      const Tile& tile = work_->tiles[static_cast<size_t>(i)];
      const std::string label = label_ + " tile " + std::to_string(i);
      const double begin = now_ns();
      double end = lx.access(begin, tile.lx_bytes);
      for (auto& corelet : corelets) {
        const double pt_end = corelet->run(Engine::Pt, begin, tile.pt_cycles, label);
        end = std::max(end, corelet->run(Engine::Sfu, pt_end, tile.sfu_cycles, label));
      }
      wait_until_ns(end);
      load_slots_.post();
      computed_.write(i);
    }
    card_.ring_phase(id_);
    computed_.write(kRingPhase);
  }
}

void Core::store_thread() {
  while (true) {
    sc_core::wait(start_);
    while (true) {
      const int i = computed_.read();
      if (i == kRingPhase) break;
      for (const auto& t : work_->tiles[static_cast<size_t>(i)].stores) dma_out.transfer(t, label_ + " tile " + std::to_string(i));
      store_slots_.post();
    }
    for (const auto& t : work_->final_stores) dma_out.transfer(t, label_ + " result");
    if (work_->hbm_write_bytes > 0 && write_fence_ns_ > 0) sc_core::wait(ns(write_fence_ns_));
    card_.core_finished(id_);
  }
}

}  // namespace spyre::sim
