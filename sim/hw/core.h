#pragma once
// One Spyre core: LX scratchpad, a load and a store DMA engine, two corelets.
// It runs its CoreWork for each SDSC as a three-stage pipeline of SystemC
// threads with two staging buffers per direction (double buffering):
//   load   tile i+1  (HBM -> LX staging)
//   compute tile i   (corelets, LX ports)
//   store  tile i-1  (LX staging -> HBM)
// then the ring phase (reduce-sum or SHUFFLE) and the stores that follow it.

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "sim/hw/corelet.h"
#include "sim/hw/dma_engine.h"
#include "sim/schedule/kernel_plan.h"
#include "sim/hw/scratchpad.h"

namespace spyre::sim {

class Card;

class Core : public sc_core::sc_module {
 public:
  Core(sc_core::sc_module_name name, int id, const ArchConfig& arch, Card& card);

  // Starts this core's part of a kernel; Card::core_finished is called when done.
  void start(const CoreWork* work, const std::string& label);

  int id() const { return id_; }
  Scratchpad lx;
  MemoryPort port;
  DmaEngine dma_in, dma_out;
  std::vector<std::unique_ptr<Corelet>> corelets;

 private:
  SC_HAS_PROCESS(Core);
  void load_thread();
  void compute_thread();
  void store_thread();
  double write_fence_ns_ = 0;

  Card& card_;
  int id_;
  const CoreWork* work_ = nullptr;
  std::string label_;
  sc_core::sc_event start_;
  sc_core::sc_fifo<int> loaded_, computed_;
  sc_core::sc_semaphore load_slots_, store_slots_;
};

}  // namespace spyre::sim
