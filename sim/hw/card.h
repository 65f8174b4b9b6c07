#pragma once
// The whole card: cores on a data ring and a reduce-sum ring, sharing LPDDR5
// device memory behind a memory-side cache, behind a PCIe host link. Card's
// thread plays the program: upload inputs, then per bundle a launch overhead
// and per SDSC a dispatch overhead, the SDSC on its cores, and a barrier of
// those cores; finally download the outputs. The cores reach the card through
// its `control` export (CardControlIf): the card runs their ring phases,
// issuing the transfers on the rings.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "runtime/program.h"
#include "sim/hw/card_links.h"
#include "sim/hw/core.h"
#include "sim/hw/hardware_block.h"
#include "sim/hw/host_link.h"
#include "sim/hw/interfaces.h"
#include "sim/hw/lpddr5.h"
#include "sim/hw/measurement_protocol.h"
#include "sim/hw/memory_cache.h"
#include "sim/hw/ring.h"
#include "sim/schedule/kernel_plan.h"

namespace spyre::sim {

struct KernelTiming {
  double start_ns = 0, end_ns = 0;
  int timing_of = -1;                  // sampled: the kernel whose timing this one took (kernel_twins.h); -1: simulated
  double launch_ns = 0;                // bundle launch and dispatch before it
  std::map<int, double> core_end_ns;   // each core's last store (and write fence) done
  std::map<int, double> core_ring_ns;  // each core's time in its ring phases (reduce, shuffle, relayout)
  double lpddr5_channel_busy_ns = 0;   // LPDDR5 channel time the kernel's window took (all channels)
};

// A collective of the measured iteration (Program::collectives, same order).
struct CollectiveTiming {
  double start_ns = 0, end_ns = 0;
  int64_t bytes = 0;
};

class Card : public sc_core::sc_module, public HardwareBlock, public CardControlIf {
 public:
  sc_core::sc_export<CardControlIf> control;                    // the cores' `card` ports
  tlm_utils::simple_initiator_socket<Card> host_socket;         // the host's side of the host link
  tlm_utils::simple_initiator_socket<Card> data_ring_socket;    // SHUFFLE transfers
  tlm_utils::simple_initiator_socket<Card> reduce_ring_socket;  // reduce-sum phases
  tlm_utils::simple_initiator_socket<Card> card_link_socket;    // collectives between bundles (--cards)

  // protocol: runs of the whole program before the measured one (the steady
  // state measurements report: caches warm, uploads done) and what happens
  // between them (measurement_protocol.h).
  // timing_of: per kernel, the kernel whose timing and counters it takes
  // instead of being simulated (timing_twins; empty or -1: simulated).
  Card(sc_core::sc_module_name name, const ArchConfig& arch, const Program& program,
       const std::vector<KernelWork>& plans, const MeasurementProtocol& protocol = {}, std::vector<int> timing_of = {});

  // CardControlIf, called from core threads.
  void relayout_phase(int core) override;
  void ring_phase(int core) override;
  void core_finished(int core) override;

  const std::vector<KernelTiming>& kernel_timing() const { return kernel_timing_; }  // the measured iteration
  const std::vector<CollectiveTiming>& collective_timing() const { return collective_timing_; }
  double device_start_ns() const { return device_start_ns_; }
  double device_end_ns() const { return device_end_ns_; }
  const MeasurementProtocol& protocol() const { return protocol_; }
  // Every block's counters when the measured iteration started, by block name.
  const std::map<std::string, Counters>& counters_at_start() const { return counters_at_start_; }
  // What the measured iteration's sampled kernels added to each block's
  // counters: their twins' increments, by block name (empty unless sampled).
  const std::map<std::string, Counters>& sampled_counters() const { return sampled_counters_; }

  std::vector<Activity> activities() const override;  // "kernels": the measured iteration's SDSCs
  std::string trace_group() const override { return "card"; }

  // Children, in the order reports and traces list them.
  Lpddr5 memory;
  MemoryCache cache;
  HostLink host;
  CardLinks card_links;  // the ensemble's collectives (Program::cards > 1)
  std::vector<std::unique_ptr<Core>> cores;
  std::unique_ptr<Ring> data_ring, reduce_ring;

 private:
  SC_HAS_PROCESS(Card);
  void run();
  void run_kernel(size_t index, double launch_ns);
  // A sampled kernel: its twin's time (in this iteration) passes, its twin's counter increments are added.
  void reuse_timing(size_t index, size_t iteration_base, double launch_ns);
  std::map<std::string, Counters> counter_snapshot() const;
  void run_collectives(int after_bundle);
  void ring_phase_steps(int core);
  // Moves the host's input (upload) or output tensors over the host link; returns when the last arrives.
  double host_transfers(bool upload);
  double ring_transfer(tlm_utils::simple_initiator_socket<Card>& ring, RingRoute& route, int64_t bytes,
                       const std::string& label);

  struct Barrier {
    int arrived = 0;
    double done_ns = 0;
    std::unique_ptr<sc_core::sc_event> event = std::make_unique<sc_core::sc_event>();
  };

  const ArchConfig& arch_;
  const Program& program_;
  const std::vector<KernelWork>& plans_;
  const KernelWork* current_ = nullptr;
  std::string current_label_;
  KernelTiming timing_;  // of the kernel running
  int remaining_ = 0;
  sc_core::sc_event kernel_done_;
  std::vector<Barrier> groups_;
  // Data-ring exchanges of the current kernel: its SHUFFLE (after compute)
  // and the relayout of LX inputs held under another division (before).
  struct Exchange {
    Barrier barrier;
    std::map<int, double> arrival;  // destination core -> when its last part arrives
  };
  void exchange(int core, const std::vector<RingTransfer>& transfers, Exchange& exchange, const std::string& what);
  Exchange shuffle_, relayout_;
  std::vector<KernelTiming> kernel_timing_;
  std::vector<CollectiveTiming> collective_timing_;
  BusyLog kernel_log_;
  double device_start_ns_ = 0, device_end_ns_ = 0;
  MeasurementProtocol protocol_;
  std::map<std::string, Counters> counters_at_start_;
  std::vector<int> timing_of_;
  std::vector<bool> has_twins_;                                   // some kernel takes this one's timing
  std::map<size_t, std::map<std::string, Counters>> increments_;  // a twin's counter increments, by kernel
  std::map<std::string, Counters> sampled_counters_;
};

}  // namespace spyre::sim
