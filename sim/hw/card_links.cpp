#include "sim/hw/card_links.h"

#include <algorithm>

#include "sim/hw/interfaces.h"

namespace spyre::sim {

CardLinks::CardLinks(sc_core::sc_module_name name, const ArchConfig& arch, int cards)
    : sc_module(name),
      socket("socket"),
      ns_per_byte_(1.0 / arch.card_link.gbps),
      latency_ns_(arch.card_link.latency_us * 1000.0),
      host_reduce_ns_per_byte_(1.0 / arch.card_link.host_reduce_gbps),
      peer_to_peer_(arch.card_link.peer_to_peer != 0),
      cards_(cards) {
  socket.register_b_transport(this, &CardLinks::b_transport);
}

void CardLinks::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const ActivityLabel* label = payload.get_extension<ActivityLabel>();
  const double end = all_reduce(now_ns() + delay.to_seconds() * 1e9, payload_bytes(payload), label ? label->text : "");
  delay = ns(end - now_ns());
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

double CardLinks::exchange(double start, int64_t sent, int64_t received, const std::string& label) {
  // Each direction moves its own bytes; the step ends when both have.
  const double out_end = start + latency_ns_ + static_cast<double>(sent) * ns_per_byte_;
  const double in_end = start + latency_ns_ + static_cast<double>(received) * ns_per_byte_;
  if (sent > 0) out_.add(start, out_end, label);
  if (received > 0) in_.add(start, in_end, label);
  sent_bytes_ += sent;
  received_bytes_ += received;
  return std::max(sent > 0 ? out_end : start, received > 0 ? in_end : start);
}

double CardLinks::all_reduce(double start_ns, int64_t bytes, const std::string& label) {
  const int cards = cards_;
  double t = std::max(start_ns, free_at_ns_);
  if (cards < 2 || bytes <= 0) return t;
  if (peer_to_peer_) {
    // The tensor in N chunks (the last may be shorter); in step s the card
    // sends chunk (rank - s) and receives chunk (rank - s - 1): over the 2 (N - 1)
    // steps every chunk but one goes out twice, and as many come in. Card 0's
    // chunks are the ones it would send; every card moves the same bytes
    // when N divides the tensor.
    const int64_t chunk = (bytes + cards - 1) / cards;
    auto chunk_bytes = [&](int64_t index) {
      const int64_t i = ((index % cards) + cards) % cards;
      return std::max<int64_t>(0, std::min(chunk, bytes - i * chunk));
    };
    for (int step = 0; step < 2 * (cards - 1); ++step) {
      const int64_t send = chunk_bytes(-step), receive = chunk_bytes(-step - 1);
      t = exchange(t, send, receive, label + (step < cards - 1 ? " reduce-scatter" : " all-gather"));
    }
  } else {
    t = exchange(t, bytes, 0, label + " to host");
    t += static_cast<double>(bytes) * static_cast<double>(cards) * host_reduce_ns_per_byte_;
    t = exchange(t, 0, bytes, label + " from host");
  }
  free_at_ns_ = t;
  return t;
}

std::vector<Activity> CardLinks::activities() const {
  return {{"card_link", "card link out", &out_}, {"card_link", "card link in", &in_}};
}

Counters CardLinks::counters() const {
  return {{stats::kSentBytes, static_cast<double>(sent_bytes_)},
          {stats::kReceivedBytes, static_cast<double>(received_bytes_)},
          {stats::kBusyNs, std::max(out_.busy_ns(), in_.busy_ns())}};
}

}  // namespace spyre::sim
