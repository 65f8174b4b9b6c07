#include "sim/hw/dma_engine.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "sim/hw/interfaces.h"

namespace spyre::sim {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const ArchConfig& arch, DmaDirection direction, MemoryPort& port)
    : sc_module(name),
      socket("socket"),
      lx_socket("lx_socket"),
      direction_(direction),
      port_(port),
      request_bytes_(arch.dma.request_bytes),
      in_flight_bytes_(static_cast<int64_t>(arch.dma.max_outstanding) * arch.dma.request_bytes),
      setup_ns_(arch.dma.setup_ns),
      run_ns_(arch.dma.run_ns) {}

void DmaEngine::transfer(const Transfer& t, const std::string& label) { transfer(std::span(&t, 1), label); }

void DmaEngine::transfer(std::span<const Transfer> transfers, const std::string& label) {
  int64_t total = 0;
  for (const auto& t : transfers) total += std::max<int64_t>(0, t.bytes);
  if (total <= 0) {
    landed_.clear();
    return;
  }
  const bool store = direction_ == DmaDirection::Store;
  const double start = now_ns();
  // The open requests (completion time, bytes), earliest first: a min-heap
  // whose storage is kept (no allocation per transfer: there are millions). A
  // request's space frees when it completes, whichever was issued first: a
  // slow DRAM miss does not hold back the cache hits issued after it.
  in_flight_.clear();
  landed_.clear();
  int64_t open_bytes = 0;
  const auto earliest_first = std::greater<std::pair<double, int64_t>>();
  auto retire_earliest = [&] {
    wait_until_ns(in_flight_.front().first);
    open_bytes -= in_flight_.front().second;
    std::pop_heap(in_flight_.begin(), in_flight_.end(), earliest_first);
    in_flight_.pop_back();
  };
  double last_completion = now_ns();
  // Timing only: values move in the functional executor, so no data pointer.
  tlm::tlm_generic_payload hbm, lx;
  hbm.set_command(store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  hbm.set_data_ptr(nullptr);
  lx.set_command(store ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
  lx.set_data_ptr(nullptr);
  // Requests never cross a run: a strided transfer is one descriptor whose
  // requests stay in flight across its runs, and the descriptors of one call
  // (a tile's operands) are queued back to back, so the next one's requests
  // go out while the last ones of the previous are still in flight; the
  // engine starts one run per run_ns, so short runs cap the rate whatever the
  // memory behind them.
  double next_run_ns = now_ns();
  auto issue = [&](int64_t request_address, int64_t size, bool starts_run) {
    // The engine holds at most in_flight_bytes_ of open requests (its return
    // buffer): many short requests or a few long ones.
    while (!in_flight_.empty() && (in_flight_.front().first <= now_ns() || open_bytes + size > in_flight_bytes_))
      retire_earliest();
    double port_start = std::max(now_ns(), port_.free_at_ns);
    if (starts_run) {
      port_start = std::max(port_start, next_run_ns);
      next_run_ns = port_start + run_ns_;
    }
    port_.free_at_ns = port_start + static_cast<double>(size) * port_.ns_per_byte;
    // The staging buffer side of the copy; its completion does not hold the
    // request back (the LX ports outpace the memory port).
    lx.set_data_length(static_cast<unsigned int>(size));
    lx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time lx_delay = ns(port_start - now_ns());
    lx_socket->b_transport(lx, lx_delay);
    hbm.set_address(static_cast<uint64_t>(request_address));
    hbm.set_data_length(static_cast<unsigned int>(size));
    hbm.set_streaming_width(static_cast<unsigned int>(size));
    hbm.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = ns(port_start - now_ns());
    if (starts_run && !store) {
      RunStart run_start;
      ScopedExtension<RunStart> marked(hbm, run_start);
      socket->b_transport(hbm, delay);
    } else {
      socket->b_transport(hbm, delay);
    }
    const double done = now_ns() + delay.to_seconds() * 1e9;
    in_flight_.push_back({done, size});
    landed_.push_back({done, size});
    std::push_heap(in_flight_.begin(), in_flight_.end(), earliest_first);
    open_bytes += size;
    last_completion = std::max(last_completion, done);
    // Issue at the port's pace.
    wait_until_ns(port_.free_at_ns);
  };
  auto issue_run = [&](int64_t address, int64_t bytes) {
    for (int64_t offset = 0; offset < bytes; offset += request_bytes_)
      issue(address + offset, std::min(request_bytes_, bytes - offset), offset == 0);
  };
  for (const auto& t : transfers) {
    if (t.bytes <= 0) continue;
    // Descriptor setup: the engine reads the next descriptor while the
    // previous one's requests are in flight.
    next_run_ns = std::max(next_run_ns, now_ns() + setup_ns_);
    if (t.runs.empty()) {
      issue_run(t.address, t.bytes);
    } else {
      for (const auto& [address, bytes] : t.runs) issue_run(address, bytes);
    }
  }
  wait_until_ns(last_completion);
  bytes_ += total;
  log_.add(start, now_ns(), label);
}

std::vector<Activity> DmaEngine::activities() const {
  return {{direction_ == DmaDirection::Store ? "dma_out" : "dma_in",
           direction_ == DmaDirection::Store ? "DMA-out" : "DMA-in", &log_}};
}

Counters DmaEngine::counters() const {
  return {{stats::kBytes, static_cast<double>(bytes_)}, {stats::kBusyNs, log_.busy_ns()}};
}

}  // namespace spyre::sim
