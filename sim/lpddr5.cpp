#include "sim/lpddr5.h"

#include <algorithm>

#include "sim/busy_log.h"

namespace spyre::sim {

Lpddr5::Lpddr5(sc_core::sc_module_name name, const ArchConfig& arch)
    : sc_module(name),
      socket("socket"),
      channels_(static_cast<size_t>(arch.lpddr5.channels)),
      read_ns_per_byte_(arch.lpddr5.channels / arch.lpddr5.read_gbps),
      write_ns_per_byte_(arch.lpddr5.channels / arch.lpddr5.write_gbps),
      turnaround_ns_(arch.lpddr5.turnaround_ns),
      latency_ns_(arch.lpddr5.latency_ns),
      interleave_(arch.lpddr5.interleave_bytes) {
  socket.register_b_transport(this, &Lpddr5::b_transport);
  stats_.channel_busy_ns.assign(channels_.size(), 0.0);
}

void Lpddr5::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const bool write = payload.is_write();
  const double arrival = now_ns() + delay.to_seconds() * 1e9;
  const double ns_per_byte = write ? write_ns_per_byte_ : read_ns_per_byte_;
  int64_t address = static_cast<int64_t>(payload.get_address());
  int64_t remaining = payload.get_data_length();
  double last_chunk_end = arrival;
  while (remaining > 0) {
    const int64_t chunk = std::min(remaining, interleave_ - address % interleave_);
    Channel& ch = channels_[static_cast<size_t>((address / interleave_) % static_cast<int64_t>(channels_.size()))];
    // A direction switch needs the bus turned around after the last burst;
    // a channel idle for longer than that pays nothing.
    double free_at = ch.free_at_ns;
    if (ch.used && ch.last_was_write != write) {
      free_at += turnaround_ns_;
      if (free_at > arrival) ++stats_.turnarounds;
    }
    const double start = std::max(arrival, free_at);
    const double end = start + static_cast<double>(chunk) * ns_per_byte;
    stats_.channel_busy_ns[&ch - channels_.data()] += end - start;
    ch.free_at_ns = end;
    ch.last_was_write = write;
    ch.used = true;
    last_chunk_end = std::max(last_chunk_end, end);
    address += chunk;
    remaining -= chunk;
  }
  (write ? stats_.write_bytes : stats_.read_bytes) += payload.get_data_length();
  delay = ns(last_chunk_end + latency_ns_ - now_ns());
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace spyre::sim
