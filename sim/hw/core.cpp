#include "sim/hw/core.h"

#include <algorithm>

namespace spyre::sim {

namespace {
constexpr int kStagingBuffers = 2;  // double buffering
constexpr int kRingPhase = -1;      // sentinel after the last tile

std::vector<std::unique_ptr<Corelet>> make_corelets(const ArchConfig& arch) {
  std::vector<std::unique_ptr<Corelet>> out;
  for (int c = 0; c < arch.corelets_per_core; ++c)
    out.push_back(std::make_unique<Corelet>(("corelet" + std::to_string(c)).c_str(), c, arch));
  return out;
}
// A consumer at a steady rate (compute_ns for the whole tile) that takes the
// requests in issue order, each once it has landed: it cannot end before any
// request's landing plus the time to consume it and everything after it.
TileLanding follow(const std::vector<std::pair<double, int64_t>>& landed, double compute_ns) {
  TileLanding l;
  int64_t total = 0;
  for (const auto& r : landed) total += r.second;
  if (landed.empty() || total <= 0) {
    l.first_ns = l.follow_end_ns = now_ns();
    return l;
  }
  l.first_ns = landed.front().first;
  int64_t remaining = total;
  for (const auto& [at, bytes] : landed) {
    l.first_ns = std::min(l.first_ns, at);
    l.follow_end_ns = std::max(l.follow_end_ns, at + compute_ns * static_cast<double>(remaining) / total);
    remaining -= bytes;
  }
  return l;
}
}  // namespace

Core::Core(sc_core::sc_module_name name, int id, const ArchConfig& arch)
    : sc_module(name),
      card("card"),
      compute("compute"),
      lx_socket("lx_socket"),
      lx("lx", arch),
      port{0, 1.0 / arch.dma.port_gbps},
      dma_in("dma_in", arch, DmaDirection::Load, port),
      corelets(make_corelets(arch)),
      dma_out("dma_out", arch, DmaDirection::Store, port),
      id_(id),
      write_fence_ns_(arch.dma.write_fence_ns),
      loaded_("loaded", 1 << 20),
      computed_("computed", 1 << 20),
      compute_follows_data_(arch.dma.compute_follows_data != 0),
      cycle_ns_(arch.cycle_ns()),
      load_slots_("load_slots", kStagingBuffers),
      store_slots_("store_slots", kStagingBuffers) {
  dma_in.lx_socket.bind(lx.socket);
  dma_out.lx_socket.bind(lx.socket);
  lx_socket.bind(lx.socket);
  for (auto& c : corelets) compute.bind(c->compute);
  SC_THREAD(load_thread);
  SC_THREAD(compute_thread);
  SC_THREAD(store_thread);
}

void Core::start(const CoreWork* work, const std::string& label) {
  work_ = work;
  label_ = label;
  landing_.assign(work->tiles.size(), TileLanding{});
  store_slot_free_ns_.assign(kStagingBuffers, 0.0);
  start_.notify(sc_core::SC_ZERO_TIME);
}

void Core::load_thread() {
  while (true) {
    sc_core::wait(start_);
    for (size_t i = 0; i < work_->tiles.size(); ++i) {
      load_slots_.wait();
      const Tile& tile = work_->tiles[i];
      dma_in.transfer(tile.loads, label_ + " tile " + std::to_string(i));
      if (follows_data(tile)) landing_[i] = follow(dma_in.landed(), tile.sfu_cycles * cycle_ns_);
      loaded_.write(static_cast<int>(i));
    }
  }
}

void Core::compute_thread() {
  tlm::tlm_generic_payload operands;  // timing only: the LX bytes compute moves
  operands.set_command(tlm::TLM_READ_COMMAND);
  operands.set_data_ptr(nullptr);
  while (true) {
    sc_core::wait(start_);
    card->relayout_phase(id_);
    for (size_t n = 0; n < work_->tiles.size(); ++n) {
      const int i = loaded_.read();
      store_slots_.wait();
      const double slot_free = store_slot_free_ns_.front();
      store_slot_free_ns_.pop_front();
      const Tile& tile = work_->tiles[static_cast<size_t>(i)];
      const std::string label = label_ + " tile " + std::to_string(i);
      double begin = now_ns();
      if (follows_data(tile)) {
        // The corelets were idle since the last tile and the output buffer
        // free since slot_free: the compute began when the first bytes
        // landed, as late as the last bytes require.
        const TileLanding& l = landing_[static_cast<size_t>(i)];
        const double compute_ns = tile.sfu_cycles * cycle_ns_;
        begin = std::max({compute_free_ns_, slot_free, l.first_ns, l.follow_end_ns - compute_ns});
      }
      double end = begin;
      if (tile.lx_bytes > 0) {
        WideLength length;
        length.bytes = tile.lx_bytes;
        ScopedExtension<WideLength> wide(operands, length);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        lx_socket->b_transport(operands, delay);
        end = std::max(begin, now_ns() + delay.to_seconds() * 1e9);
      }
      for (int c = 0; c < compute.size(); ++c) {
        const double pt_end = compute[c]->execute(Engine::Pt, begin, tile.pt_cycles, label);
        end = std::max(end, compute[c]->execute(Engine::Sfu, pt_end, tile.sfu_cycles, label));
      }
      wait_until_ns(end);
      compute_free_ns_ = end;
      load_slots_.post();
      computed_.write(i);
    }
    card->ring_phase(id_);
    computed_.write(kRingPhase);
  }
}

void Core::store_thread() {
  while (true) {
    sc_core::wait(start_);
    while (true) {
      const int i = computed_.read();
      if (i == kRingPhase) break;
      for (const auto& t : work_->tiles[static_cast<size_t>(i)].stores)
        dma_out.transfer(t, label_ + " tile " + std::to_string(i));
      store_slot_free_ns_.push_back(now_ns());
      store_slots_.post();
    }
    for (const auto& t : work_->final_stores) dma_out.transfer(t, label_ + " result");
    if (work_->hbm_write_bytes > 0 && write_fence_ns_ > 0) sc_core::wait(ns(write_fence_ns_));
    card->core_finished(id_);
  }
}

}  // namespace spyre::sim
