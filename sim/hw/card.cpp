#include "sim/hw/card.h"

#include <algorithm>
#include <cmath>

namespace spyre::sim {

Card::Card(sc_core::sc_module_name name, const ArchConfig& arch, const Program& program, const std::vector<KernelWork>& plans, int warmup)
    : sc_module(name),
      memory("lpddr5", arch),
      cache("cache", arch),
      data_ring("data_ring", arch.cores, arch.data_ring.bytes_per_cycle, arch.data_ring.hop_latency_cycles, arch.cycle_ns()),
      reduce_ring("reduce_ring", arch.cores, arch.reduce_ring.bytes_per_cycle, arch.reduce_ring.hop_latency_cycles, arch.cycle_ns()),
      host("host_link", arch),
      arch_(arch),
      program_(program),
      plans_(plans),
      warmup_(warmup) {
  for (int c = 0; c < arch.cores; ++c) {
    cores.push_back(std::make_unique<Core>(("core" + std::to_string(c)).c_str(), c, arch, *this));
    cores.back()->dma_in.socket.bind(cache.socket);
    cores.back()->dma_out.socket.bind(cache.socket);
  }
  cache.dram.bind(memory.socket);
  SC_THREAD(run);
}

void Card::run() {
  // Host -> device: every input tensor, in its device layout.
  double t = now_ns();
  for (const auto& h : program_.host_tensors) {
    if (!h.is_input) continue;
    upload_bytes_ += h.layout.size_bytes();
    t = host.transfer(h.layout.size_bytes(), t, "upload " + h.name);
    cache.fill(h.address, h.layout.size_bytes());
  }
  wait_until_ns(t);
  for (int iteration = 0; iteration <= warmup_; ++iteration) {
    if (iteration == warmup_) {  // the measured run
      device_start_ns_ = now_ns();
      kernel_timing_.clear();
      memory_at_start_ = memory.stats();
      cache_at_start_ = cache.stats();
    }
    int bundle = -1;
    for (size_t k = 0; k < program_.kernels.size(); ++k) {
      if (program_.kernels[k].bundle != bundle) {
        bundle = program_.kernels[k].bundle;
        sc_core::wait(ns(arch_.launch.bundle_overhead_us * 1000.0));
      }
      sc_core::wait(ns(arch_.launch.sdsc_overhead_ns));
      run_kernel(k);
    }
  }
  device_end_ns_ = now_ns();
  t = now_ns();
  for (const auto& h : program_.host_tensors) {
    if (!h.is_output) continue;
    download_bytes_ += h.layout.size_bytes();
    t = host.transfer(h.layout.size_bytes(), t, "download " + h.name);
  }
  wait_until_ns(t);
}

void Card::run_kernel(size_t index) {
  const Kernel& kernel = program_.kernels[index];
  const KernelWork& work = plans_[index];
  current_ = &work;
  current_label_ = kernel.label;
  groups_.clear();
  groups_.resize(work.reduce_groups.size());
  shuffle_ = Barrier();
  shuffle_arrival_.clear();
  remaining_ = static_cast<int>(work.cores.size());
  KernelTiming timing;
  timing.start_ns = now_ns();
  for (const auto& cw : work.cores) cores[static_cast<size_t>(cw.core)]->start(&cw, kernel.label);
  if (remaining_ > 0) sc_core::wait(kernel_done_);
  // The cores' barrier: a tree of log2(cores) levels.
  const auto used = static_cast<double>(work.cores.size());
  if (used > 1 && arch_.launch.barrier_ns_per_level > 0) sc_core::wait(ns(arch_.launch.barrier_ns_per_level * std::ceil(std::log2(used))));
  timing.end_ns = now_ns();
  kernel_timing_.push_back(timing);
}

void Card::ring_phase(int core) {
  const KernelWork& work = *current_;
  const CoreWork* mine = nullptr;
  for (const auto& cw : work.cores) {
    if (cw.core == core) mine = &cw;
  }
  if (mine && mine->reduce_group >= 0) {
    const ReduceGroup& group = work.reduce_groups[static_cast<size_t>(mine->reduce_group)];
    Barrier& b = groups_[static_cast<size_t>(mine->reduce_group)];
    if (++b.arrived == static_cast<int>(group.cores.size())) {
      b.done_ns = reduce_ring.reduce(group.cores, group.bytes, now_ns(), current_label_);
      b.event->notify(ns(b.done_ns - now_ns()));
    } else {
      sc_core::wait(*b.event);
    }
    wait_until_ns(b.done_ns);
  }
  if (!work.shuffle.empty()) {
    // Every source state is complete once all cores arrive; then the ring moves it.
    if (++shuffle_.arrived == static_cast<int>(work.cores.size())) {
      double all = now_ns();
      for (const auto& tr : work.shuffle) {
        const double arrival = data_ring.send(tr.src_core, tr.dst_core, tr.bytes, now_ns(), current_label_ + " shuffle");
        shuffle_arrival_[tr.dst_core] = std::max(shuffle_arrival_[tr.dst_core], arrival);
        all = std::max(all, arrival);
      }
      shuffle_.done_ns = all;
      shuffle_.event->notify(ns(all - now_ns()));
    } else {
      sc_core::wait(*shuffle_.event);
    }
    auto it = shuffle_arrival_.find(core);
    if (it != shuffle_arrival_.end()) wait_until_ns(it->second);
  }
}

void Card::core_finished(int) {
  if (--remaining_ == 0) kernel_done_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace spyre::sim
