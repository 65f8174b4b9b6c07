#include "sim/hw/card.h"

#include <algorithm>
#include <utility>

namespace spyre::sim {

Card::Card(sc_core::sc_module_name name, const ArchConfig& arch, const Program& program,
           const std::vector<KernelWork>& plans, const MeasurementProtocol& protocol, std::vector<int> timing_of)
    : sc_module(name),
      control("control"),
      host_socket("host_socket"),
      data_ring_socket("data_ring_socket"),
      reduce_ring_socket("reduce_ring_socket"),
      card_link_socket("card_link_socket"),
      memory("lpddr5", arch),
      cache("cache", arch),
      host("host_link", arch),
      card_links("card_links", arch, program.cards),
      arch_(arch),
      program_(program),
      plans_(plans),
      protocol_(protocol),
      timing_of_(std::move(timing_of)) {
  timing_of_.resize(program.kernels.size(), -1);
  has_twins_.assign(program.kernels.size(), false);
  for (int twin : timing_of_)
    if (twin >= 0) has_twins_[static_cast<size_t>(twin)] = true;
  control.bind(*this);
  host_socket.bind(host.socket);
  card_link_socket.bind(card_links.socket);
  host.device.bind(cache.socket);
  cache.dram.bind(memory.socket);
  for (int c = 0; c < arch.cores; ++c) {
    cores.push_back(std::make_unique<Core>(("core" + std::to_string(c)).c_str(), c, arch));
    cores.back()->card.bind(control);
    cores.back()->dma_in.socket.bind(cache.socket);
    cores.back()->dma_out.socket.bind(cache.socket);
  }
  data_ring = std::make_unique<Ring>("data_ring", "data ring", arch.cores, arch.data_ring.bytes_per_cycle,
                                     arch.data_ring.hop_latency_cycles, arch.cycle_ns());
  reduce_ring = std::make_unique<Ring>("reduce_ring", "reduce-sum ring", arch.cores, arch.reduce_ring.bytes_per_cycle,
                                       arch.reduce_ring.hop_latency_cycles, arch.cycle_ns());
  data_ring_socket.bind(data_ring->socket);
  reduce_ring_socket.bind(reduce_ring->socket);
  SC_THREAD(run);
}

double Card::host_transfers(bool upload) {
  // All issued now: the link serves them one after another.
  double t = now_ns();
  for (const auto& h : program_.host_tensors) {
    if (upload ? !h.is_input : !h.is_output) continue;
    tlm::tlm_generic_payload payload;
    payload.set_command(upload ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    payload.set_address(static_cast<uint64_t>(h.address));
    payload.set_data_ptr(nullptr);
    WideLength length;
    length.bytes = h.layout.data_bytes();  // a view with gaps moves only its own sticks
    ActivityLabel label((upload ? "upload " : "download ") + h.name);
    ScopedExtension<WideLength> with_length(payload, length);
    ScopedExtension<ActivityLabel> with_label(payload, label);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    host_socket->b_transport(payload, delay);
    t = std::max(t, now_ns() + delay.to_seconds() * 1e9);
  }
  return t;
}

void Card::run() {
  // Host -> device: every input tensor, in its device layout.
  wait_until_ns(host_transfers(true));
  for (int iteration = 0; iteration <= protocol_.warmup; ++iteration) {
    if (iteration == protocol_.warmup) {  // the measured run
      device_start_ns_ = now_ns();
      kernel_timing_.clear();
      collective_timing_.clear();
      kernel_log_ = BusyLog();
      sampled_counters_.clear();
      for (const HardwareBlock* b : blocks_under(*this)) counters_at_start_[block_name(*b)] = b->counters();
    }
    const size_t iteration_base = kernel_timing_.size();
    int bundle = -1;
    for (size_t k = 0; k < program_.kernels.size(); ++k) {
      const double launched = now_ns();
      if (program_.kernels[k].bundle != bundle) {
        bundle = program_.kernels[k].bundle;
        sc_core::wait(ns(arch_.launch.bundle_overhead_us * 1000.0));
      }
      sc_core::wait(ns(arch_.launch.sdsc_overhead_ns));
      if (timing_of_[k] >= 0) {
        reuse_timing(k, iteration_base, now_ns() - launched);
      } else {
        run_kernel(k, now_ns() - launched);
      }
      if (k + 1 == program_.kernels.size() || program_.kernels[k + 1].bundle != bundle) run_collectives(bundle);
    }
  }
  device_end_ns_ = now_ns();
  wait_until_ns(host_transfers(false));
}

std::map<std::string, Counters> Card::counter_snapshot() const {
  std::map<std::string, Counters> out;
  for (const HardwareBlock* b : blocks_under(*this)) out[block_name(*b)] = b->counters();
  return out;
}

void Card::reuse_timing(size_t index, size_t iteration_base, double launch_ns) {
  const auto twin = static_cast<size_t>(timing_of_[index]);
  const KernelTiming& of = kernel_timing_.at(iteration_base + twin);
  KernelTiming t = of;
  const double shift = now_ns() - of.start_ns;
  t.start_ns = now_ns();
  t.end_ns = of.end_ns + shift;
  t.launch_ns = launch_ns;
  t.timing_of = static_cast<int>(twin);
  for (auto& [core, end] : t.core_end_ns) end += shift;
  wait_until_ns(t.end_ns);
  if (protocol_.between_runs == BetweenRuns::kDeviceWork && index + 1 == program_.kernels.size())
    wait_until_ns(cache.flush());
  for (const auto& [block, increments] : increments_.at(twin)) {
    Counters& sum = sampled_counters_[block];
    for (const auto& [stat, value] : increments) sum.set(*stat, (sum.has(*stat) ? sum.at(*stat) : 0.0) + value);
  }
  // What the kernel would have left in the cache, for the kernels after it:
  // its cores' transfers tile by tile, the cores interleaved as they run.
  const KernelWork& work = plans_[index];
  size_t tiles = 0;
  for (const auto& cw : work.cores) tiles = std::max(tiles, cw.tiles.size());
  auto warm = [&](const std::vector<Transfer>& transfers, bool write) {
    for (const auto& tr : transfers) {
      if (tr.runs.empty()) {
        cache.warm(tr.address, tr.bytes, write);
      } else {
        for (const auto& [address, bytes] : tr.runs) cache.warm(address, bytes, write);
      }
    }
  };
  for (size_t i = 0; i < tiles; ++i) {
    for (const auto& cw : work.cores) {
      if (i >= cw.tiles.size()) continue;
      warm(cw.tiles[i].loads, false);
      warm(cw.tiles[i].stores, true);
    }
  }
  for (const auto& cw : work.cores) warm(cw.final_stores, true);
  kernel_timing_.push_back(t);
  const Kernel& kernel = program_.kernels[index];
  kernel_log_.add(t.start_ns, t.end_ns,
                  kernel.label + " " + kernel.sdsc->op_summary() + " (timing of " + program_.kernels[twin].label + ")");
}

void Card::run_kernel(size_t index, double launch_ns) {
  std::map<std::string, Counters> before;
  if (has_twins_[index]) before = counter_snapshot();
  const Kernel& kernel = program_.kernels[index];
  const KernelWork& work = plans_[index];
  current_ = &work;
  current_label_ = kernel.label;
  groups_.clear();
  groups_.resize(work.reduce_groups.size());
  shuffle_ = Exchange();
  relayout_ = Exchange();
  remaining_ = static_cast<int>(work.cores.size());
  timing_ = KernelTiming();
  timing_.start_ns = now_ns();
  timing_.launch_ns = launch_ns;
  const double channel_busy_at_start = memory.counters().at(stats::kChannelBusyNs);
  for (const auto& cw : work.cores) cores[static_cast<size_t>(cw.core)]->start(&cw, kernel.label);
  if (remaining_ > 0) sc_core::wait(kernel_done_);
  // The cores' barrier, whatever their number; once per iteration of a
  // coarse-tiling loop's body, whose SDSCs run back to back (launch.barrier_ns).
  const bool body_continues = kernel.loop_body != 0 && index + 1 < program_.kernels.size() &&
                              program_.kernels[index + 1].loop_body == kernel.loop_body;
  if (work.cores.size() > 1 && arch_.launch.barrier_ns > 0 && !body_continues)
    sc_core::wait(ns(arch_.launch.barrier_ns));
  // The run's written bytes reach LPDDR5 before the device work that follows it.
  if (protocol_.between_runs == BetweenRuns::kDeviceWork && index + 1 == program_.kernels.size())
    wait_until_ns(cache.flush());
  timing_.end_ns = now_ns();
  timing_.lpddr5_channel_busy_ns = memory.counters().at(stats::kChannelBusyNs) - channel_busy_at_start;
  kernel_timing_.push_back(timing_);
  kernel_log_.add(timing_.start_ns, timing_.end_ns, kernel.label + " " + kernel.sdsc->op_summary());
  if (has_twins_[index]) {
    std::map<std::string, Counters>& increments = increments_[index];
    increments.clear();
    for (const auto& [block, now] : counter_snapshot()) {
      const Counters& was = before.at(block);
      Counters& d = increments[block];
      for (const auto& [stat, value] : now) d.set(*stat, value - (was.has(*stat) ? was.at(*stat) : 0.0));
    }
  }
}

void Card::run_collectives(int after_bundle) {
  // Every card ran the bundle at the same pace (the same program on its own
  // part of the weights), so the collective starts when this card is done.
  for (const auto& c : program_.collectives) {
    if (c.after_bundle != after_bundle) continue;
    const HostTensor& t = program_.host_tensors.at(static_cast<size_t>(c.tensor));
    CollectiveTiming timing;
    timing.start_ns = now_ns();
    timing.bytes = t.layout.data_bytes();
    tlm::tlm_generic_payload payload;
    payload.set_command(tlm::TLM_WRITE_COMMAND);
    payload.set_data_ptr(nullptr);
    WideLength length;
    length.bytes = timing.bytes;
    ActivityLabel label(c.op + " " + t.name);
    ScopedExtension<WideLength> with_length(payload, length);
    ScopedExtension<ActivityLabel> with_label(payload, label);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    card_link_socket->b_transport(payload, delay);
    sc_core::wait(delay);
    timing.end_ns = now_ns();
    collective_timing_.push_back(timing);
    kernel_log_.add(timing.start_ns, timing.end_ns, c.op + " " + t.name);
  }
}

double Card::ring_transfer(tlm_utils::simple_initiator_socket<Card>& ring, RingRoute& route, int64_t bytes,
                           const std::string& label) {
  tlm::tlm_generic_payload payload;
  payload.set_command(tlm::TLM_WRITE_COMMAND);
  payload.set_data_ptr(nullptr);
  WideLength length;
  length.bytes = bytes;
  ActivityLabel text(label);
  ScopedExtension<RingRoute> with_route(payload, route);
  ScopedExtension<WideLength> with_length(payload, length);
  ScopedExtension<ActivityLabel> with_label(payload, text);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  ring->b_transport(payload, delay);
  return now_ns() + delay.to_seconds() * 1e9;
}

void Card::ring_phase(int core) {
  const double entered = now_ns();
  ring_phase_steps(core);
  timing_.core_ring_ns[core] += now_ns() - entered;
}

void Card::ring_phase_steps(int core) {
  const KernelWork& work = *current_;
  const CoreWork* mine = nullptr;
  for (const auto& cw : work.cores) {
    if (cw.core == core) mine = &cw;
  }
  if (mine && mine->reduce_group >= 0) {
    const ReduceGroup& group = work.reduce_groups[static_cast<size_t>(mine->reduce_group)];
    Barrier& b = groups_[static_cast<size_t>(mine->reduce_group)];
    if (++b.arrived == static_cast<int>(group.cores.size())) {
      RingRoute route;
      route.group = group.cores;
      b.done_ns = ring_transfer(reduce_ring_socket, route, group.bytes, current_label_);
      b.event->notify(ns(b.done_ns - now_ns()));
    } else {
      sc_core::wait(*b.event);
    }
    wait_until_ns(b.done_ns);
  }
  exchange(core, work.shuffle, shuffle_, " shuffle");
}

void Card::relayout_phase(int core) {
  const double entered = now_ns();
  exchange(core, current_->relayout, relayout_, " relayout");
  timing_.core_ring_ns[core] += now_ns() - entered;
}

void Card::exchange(int core, const std::vector<RingTransfer>& transfers, Exchange& x, const std::string& what) {
  if (transfers.empty()) return;
  // Every source part is complete once all cores arrive; then the ring moves them.
  if (++x.barrier.arrived == static_cast<int>(current_->cores.size())) {
    double all = now_ns();
    for (const auto& tr : transfers) {
      RingRoute route;
      route.src = tr.src_core;
      route.dst = tr.dst_core;
      const double arrival = ring_transfer(data_ring_socket, route, tr.bytes, current_label_ + what);
      x.arrival[tr.dst_core] = std::max(x.arrival[tr.dst_core], arrival);
      all = std::max(all, arrival);
    }
    x.barrier.done_ns = all;
    x.barrier.event->notify(ns(all - now_ns()));
  } else {
    sc_core::wait(*x.barrier.event);
  }
  auto it = x.arrival.find(core);
  if (it != x.arrival.end()) wait_until_ns(it->second);
}

void Card::core_finished(int core) {
  timing_.core_end_ns[core] = now_ns();
  if (--remaining_ == 0) kernel_done_.notify(sc_core::SC_ZERO_TIME);
}

std::vector<Activity> Card::activities() const { return {{"kernel", "kernels", &kernel_log_}}; }

}  // namespace spyre::sim
