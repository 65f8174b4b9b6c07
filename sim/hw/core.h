#pragma once
// One Spyre core: LX scratchpad, a load and a store DMA engine, two corelets.
// It runs its CoreWork for each SDSC as a three-stage pipeline of SystemC
// threads with two staging buffers per direction (double buffering):
//   load   tile i+1  (HBM -> LX staging)
//   compute tile i   (corelets, LX ports)
//   store  tile i-1  (LX staging -> HBM)
// then the ring phase (reduce-sum or SHUFFLE, through the card) and the
// stores that follow it. The card is reached only through the `card` port,
// so a core runs alone against any CardControlIf.

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "sim/hw/corelet.h"
#include "sim/hw/dma_engine.h"
#include "sim/hw/hardware_block.h"
#include "sim/hw/interfaces.h"
#include "sim/hw/scratchpad.h"
#include "sim/schedule/kernel_plan.h"

namespace spyre::sim {

// When a tile's first load landed, and the earliest its compute can end if it
// consumes the loads as they land (dma.compute_follows_data).
struct TileLanding {
  double first_ns = 0, follow_end_ns = 0;
};

class Core : public sc_core::sc_module, public HardwareBlock {
 public:
  sc_core::sc_port<CardControlIf> card;
  sc_core::sc_port<ComputeIf, 0> compute;              // the corelets
  tlm_utils::simple_initiator_socket<Core> lx_socket;  // compute's operand traffic

  // Children; the trace lists their engines in this order.
  Scratchpad lx;
  MemoryPort port;
  DmaEngine dma_in;
  std::vector<std::unique_ptr<Corelet>> corelets;
  DmaEngine dma_out;

  Core(sc_core::sc_module_name name, int id, const ArchConfig& arch);

  // Starts this core's part of a kernel; card->core_finished is called when done.
  void start(const CoreWork* work, const std::string& label);

  int id() const { return id_; }
  std::string trace_group() const override { return "core " + std::to_string(id_); }

 private:
  SC_HAS_PROCESS(Core);
  void load_thread();
  void compute_thread();
  void store_thread();
  // A streaming tile (SFU work only) is consumed as its loads land; the PT
  // array reuses each operand block across the block, so it waits for all of it.
  bool follows_data(const Tile& tile) const { return compute_follows_data_ && tile.pt_cycles <= 0; }

  int id_;
  double write_fence_ns_;
  const CoreWork* work_ = nullptr;
  std::string label_;
  sc_core::sc_event start_;
  sc_core::sc_fifo<int> loaded_, computed_;
  std::vector<TileLanding> landing_;       // with dma.compute_follows_data
  std::deque<double> store_slot_free_ns_;  // when each free output staging buffer became free
  double compute_free_ns_ = 0;             // when the last tile's compute ended
  bool compute_follows_data_;
  double cycle_ns_;
  sc_core::sc_semaphore load_slots_, store_slots_;
};

}  // namespace spyre::sim
