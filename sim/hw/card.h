#pragma once
// The whole card: cores on a data ring and a reduce-sum ring, sharing LPDDR5
// device memory, behind a PCIe host link. Card's thread plays the program:
// upload inputs, then per bundle a launch overhead and per SDSC a dispatch
// overhead, the SDSC on its cores, and a barrier of those cores; finally
// download the outputs.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "runtime/program.h"
#include "sim/hw/core.h"
#include "sim/hw/host_link.h"
#include "sim/schedule/kernel_plan.h"
#include "sim/hw/lpddr5.h"
#include "sim/hw/memory_cache.h"
#include "sim/hw/ring.h"

namespace spyre::sim {

struct KernelTiming {
  double start_ns = 0, end_ns = 0;
};

class Card : public sc_core::sc_module {
 public:
  // warmup: iterations of the whole program run before the measured one (the
  // steady state measurements report: caches warm, uploads done).
  Card(sc_core::sc_module_name name, const ArchConfig& arch, const Program& program, const std::vector<KernelWork>& plans, int warmup = 0);

  // Called from core threads.
  void ring_phase(int core);
  void core_finished(int core);

  const std::vector<KernelTiming>& kernel_timing() const { return kernel_timing_; }
  double device_start_ns() const { return device_start_ns_; }
  double device_end_ns() const { return device_end_ns_; }
  int64_t upload_bytes() const { return upload_bytes_; }
  int64_t download_bytes() const { return download_bytes_; }
  int warmup_iterations() const { return warmup_; }
  const Lpddr5::Stats& memory_at_start() const { return memory_at_start_; }
  const MemoryCache::Stats& cache_at_start() const { return cache_at_start_; }

  Lpddr5 memory;
  MemoryCache cache;
  Ring data_ring, reduce_ring;
  HostLink host;
  std::vector<std::unique_ptr<Core>> cores;

 private:
  SC_HAS_PROCESS(Card);
  void run();
  void run_kernel(size_t index);

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
  int remaining_ = 0;
  sc_core::sc_event kernel_done_;
  std::vector<Barrier> groups_;
  Barrier shuffle_;
  std::map<int, double> shuffle_arrival_;
  std::vector<KernelTiming> kernel_timing_;
  double device_start_ns_ = 0, device_end_ns_ = 0;
  int64_t upload_bytes_ = 0, download_bytes_ = 0;
  int warmup_ = 0;
  Lpddr5::Stats memory_at_start_;
  MemoryCache::Stats cache_at_start_;
};

}  // namespace spyre::sim
