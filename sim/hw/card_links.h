#pragma once
// One card's PCIe port into a tensor-parallel ensemble (--cards N): the
// collectives between its bundles. Every card of the ensemble runs the same
// program on its own part of the weights, so they reach each collective
// together and the model times one card's side of it:
// - card_link.peer_to_peer 1: a ring all-reduce over the PCIe switch, in
//   2 (N - 1) steps (a reduce-scatter, then an all-gather); in each step the
//   card sends one N-th of the tensor to the next card and receives one from
//   the previous, both directions of its link at once, each a transfer of
//   card_link.latency_us plus its bytes at card_link.gbps.
// - peer_to_peer 0: every card sends its tensor to the host, the host sums
//   the N tensors at card_link.host_reduce_gbps, and sends the sum back.
// The tensor's reads and writes in device memory are not timed: LPDDR5
// moves them several times faster than the link.

#include <cstdint>
#include <string>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "runtime/arch_config.h"
#include "sim/hw/busy_log.h"
#include "sim/hw/hardware_block.h"

namespace spyre::sim {

class CardLinks : public sc_core::sc_module, public HardwareBlock {
 public:
  // The card's collectives: a write whose length (WideLength) is the tensor's
  // bytes is an all-reduce of it over the ensemble; the delay returned ends
  // when this card holds the sum.
  tlm_utils::simple_target_socket<CardLinks> socket;

  // `cards`: the ensemble (Program::cards); with 1 a collective costs nothing.
  CardLinks(sc_core::sc_module_name name, const ArchConfig& arch, int cards);

  // An all-reduce of `bytes` starting at `start_ns` (or when the last one
  // ended); returns when this card holds the sum (ns). In program order.
  double all_reduce(double start_ns, int64_t bytes, const std::string& label);

  std::vector<Activity> activities() const override;  // "card link out", "card link in"
  Counters counters() const override;                 // sent_bytes, received_bytes, busy_ns

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  // A transfer on both directions of the link from `start`; returns its end.
  double exchange(double start, int64_t sent, int64_t received, const std::string& label);

  double ns_per_byte_, latency_ns_, host_reduce_ns_per_byte_;
  bool peer_to_peer_;
  int cards_;
  double free_at_ns_ = 0;
  int64_t sent_bytes_ = 0, received_bytes_ = 0;
  BusyLog out_, in_;
};

}  // namespace spyre::sim
