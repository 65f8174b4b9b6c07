#include "sim/hw/lpddr5.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "sim/hw/busy_log.h"
#include "sim/hw/interfaces.h"

namespace spyre::sim {

Lpddr5::Lpddr5(sc_core::sc_module_name name, const ArchConfig& arch)
    : sc_module(name),
      socket("socket"),
      channels_(static_cast<size_t>(arch.lpddr5.channels)),
      read_ns_per_byte_(bytes_ns_per_byte(arch, arch.lpddr5.read_gbps)),
      write_ns_per_byte_(bytes_ns_per_byte(arch, arch.lpddr5.write_gbps)),
      turnaround_ns_per_byte_(2.0 * arch.lpddr5.turnaround_ns / static_cast<double>(arch.lpddr5.mixed_batch_bytes)),
      mixed_window_ns_(arch.lpddr5.mixed_window_ns),
      mixed_full_share_(arch.lpddr5.mixed_full_share),
      queue_ns_(static_cast<double>(arch.lpddr5.queue_depth_chunks * arch.lpddr5.interleave_bytes) *
                arch.lpddr5.channels / arch.lpddr5.read_gbps),
      latency_ns_(arch.lpddr5.latency_ns),
      write_ack_ns_(arch.lpddr5.write_ack_ns),
      access_ns_(arch.lpddr5.access_ns),
      raw_read_extra_(arch.lpddr5.raw_read_extra),
      raw_run_ns_(arch.lpddr5.raw_run_ns),
      interleave_(arch.lpddr5.interleave_bytes),
      mixed_batch_(arch.lpddr5.mixed_batch_bytes) {
  socket.register_b_transport(this, &Lpddr5::b_transport);
  socket.register_transport_dbg(this, &Lpddr5::transport_dbg);
  stats_.channel_busy_ns.assign(channels_.size(), 0.0);
}

double Lpddr5::bytes_ns_per_byte(const ArchConfig& arch, double sustained_gbps) {
  // A request of dma.request_bytes moves at the sustained rate: its bytes
  // take what is left after its access cost, but never less than the
  // channel's share of the peak rate.
  const double channels = arch.lpddr5.channels;
  const double sustained = channels / sustained_gbps;
  const double access_share = arch.lpddr5.access_ns / static_cast<double>(arch.dma.request_bytes);
  return std::max(channels / arch.lpddr5.peak_gbps, sustained - access_share);
}

size_t Lpddr5::channel_of(int64_t address) const {
  // The chunk index folded onto itself (XOR of its higher bits into the
  // low ones) before the modulo: a stream whose stride is a multiple of
  // channels x interleave still spreads over every channel, as controllers'
  // address hashing makes it (a bmm weight read per batch element strides
  // by B x 128 bytes).
  const auto n = static_cast<uint64_t>(channels_.size());
  if (n == 1) return 0;
  uint64_t chunk = static_cast<uint64_t>(address / interleave_);
  uint64_t hashed = 0;
  if (std::has_single_bit(n)) {  // the same digit sum with shifts: every request comes here
    const int bits = std::countr_zero(n);
    for (; chunk != 0; chunk >>= bits) hashed += chunk & (n - 1);
    return static_cast<size_t>(hashed & (n - 1));
  }
  for (; chunk != 0; chunk /= n) hashed += chunk % n;
  return static_cast<size_t>(hashed % n);
}

void Lpddr5::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const bool write = payload.is_write();
  const int64_t first = static_cast<int64_t>(payload.get_address());
  const int64_t length = payload.get_data_length();
  double arrival = now_ns() + delay.to_seconds() * 1e9;
  // Admission: wait once, until every channel the request touches has room
  // in its queue. (Requests admitted meanwhile may fill it a little beyond the
  // depth; re-checking would wake every waiting initiator for each slot.)
  // The channel of each chunk, hashed once here (the loop below needs them
  // again); a request of more chunks than kChunks hashes the rest again.
  constexpr size_t kChunks = 32;
  std::array<uint32_t, kChunks> chunk_channel{};
  double backlog_end = 0;
  size_t chunks = 0;
  for (int64_t a = first - first % interleave_; a < first + length; a += interleave_, ++chunks) {
    const size_t c = channel_of(a);
    if (chunks < kChunks) chunk_channel[chunks] = static_cast<uint32_t>(c);
    backlog_end = std::max(backlog_end, channels_[c].free_at_ns);
  }
  wait_until_ns(backlog_end - queue_ns_);
  arrival = std::max(arrival, now_ns());
  const double ns_per_byte = write ? write_ns_per_byte_ : read_ns_per_byte_;
  const bool raw_costs = !write && (raw_read_extra_ > 0 || raw_run_ns_ > 0);
  bool run_start = raw_costs && payload.get_extension<RunStart>() != nullptr;
  int64_t address = first;
  int64_t remaining = length;
  double last_chunk_end = arrival;
  for (size_t index = 0; remaining > 0; ++index) {
    const int64_t chunk = std::min(remaining, interleave_ - address % interleave_);
    Channel& ch = channels_[index < kChunks ? chunk_channel[index] : channel_of(address)];
    const double start = std::max(arrival, ch.free_at_ns);
    // The access's own cost, shared by its chunks in proportion to their bytes.
    double duration = static_cast<double>(chunk) * (ns_per_byte + access_ns_ / static_cast<double>(length));
    if (raw_costs) {
      const int64_t raw = written_.overlap(address, address + chunk);
      stats_.raw_read_bytes += raw;
      duration += static_cast<double>(raw) * ns_per_byte * raw_read_extra_;
      if (run_start && raw > 0) duration += raw_run_ns_;
      run_start = false;
    }
    // The channel's recent traffic (bytes of each direction, decaying over
    // mixed_window_ns): how mixed it is sets this chunk's share of turnarounds.
    if (start > ch.recent_at_ns) {
      const double keep = std::exp(-(start - ch.recent_at_ns) / mixed_window_ns_);
      ch.recent_read *= keep;
      ch.recent_write *= keep;
      ch.recent_at_ns = start;
    }
    (write ? ch.recent_write : ch.recent_read) += static_cast<double>(chunk);
    const double share = std::min(ch.recent_read, ch.recent_write) / (ch.recent_read + ch.recent_write);
    const double mixed = std::min(1.0, share / mixed_full_share_);
    duration += static_cast<double>(chunk) * turnaround_ns_per_byte_ * mixed;
    stats_.turnarounds += mixed * static_cast<double>(chunk) / static_cast<double>(mixed_batch_);
    const double end = start + duration;
    stats_.channel_busy_ns[&ch - channels_.data()] += duration;
    ch.free_at_ns = end;
    last_chunk_end = std::max(last_chunk_end, end);
    address += chunk;
    remaining -= chunk;
  }
  (write ? stats_.write_bytes : stats_.read_bytes) += length;
  if (write) written_.add(first, first + length);
  const double done = write && write_ack_ns_ >= 0 ? arrival + write_ack_ns_ : last_chunk_end + latency_ns_;
  delay = ns(done - now_ns());
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int Lpddr5::transport_dbg(int, tlm::tlm_generic_payload& payload) {
  if (payload.is_write()) {
    const auto first = static_cast<int64_t>(payload.get_address());
    written_.remove(first, first + payload_bytes(payload));
  }
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  return payload.get_data_length();
}

Counters Lpddr5::counters() const {
  double busy = 0;
  for (double b : stats_.channel_busy_ns) busy += b;
  return {{stats::kReadBytes, static_cast<double>(stats_.read_bytes)},
          {stats::kWriteBytes, static_cast<double>(stats_.write_bytes)},
          {stats::kRawReadBytes, static_cast<double>(stats_.raw_read_bytes)},
          {stats::kTurnarounds, stats_.turnarounds},
          {stats::kChannels, static_cast<double>(stats_.channel_busy_ns.size())},
          {stats::kChannelBusyNs, busy}};
}

}  // namespace spyre::sim
