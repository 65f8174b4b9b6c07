#include "sim/hw/ring.h"

#include <algorithm>

#include "sim/hw/interfaces.h"

namespace spyre::sim {

Ring::Ring(sc_core::sc_module_name name, std::string display_name, int cores, int bytes_per_cycle,
           double hop_latency_cycles, double cycle_ns)
    : sc_module(name),
      socket("socket"),
      display_name_(std::move(display_name)),
      cores_(cores),
      ns_per_byte_(cycle_ns / bytes_per_cycle),
      hop_ns_(hop_latency_cycles * cycle_ns),
      clockwise_(static_cast<size_t>(cores)),
      counter_(static_cast<size_t>(cores)) {
  socket.register_b_transport(this, &Ring::b_transport);
}

void Ring::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const RingRoute* route = payload.get_extension<RingRoute>();
  const ActivityLabel* label = payload.get_extension<ActivityLabel>();
  if (!route) {
    payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  const double start = now_ns() + delay.to_seconds() * 1e9;
  const auto bytes = payload_bytes(payload);
  const std::string text = label ? label->text : "";
  const double done = route->group.empty() ? send(route->src, route->dst, bytes, start, text)
                                           : reduce(route->group, bytes, start, text);
  delay = ns(done - now_ns());
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

double Ring::traverse(int src, int hops, bool clockwise, int64_t bytes, double earliest_ns, const std::string& label) {
  if (hops <= 0 || bytes <= 0) return earliest_ns;
  auto link_of = [&](int step) -> Link& {
    const int from = ((src + (clockwise ? step : -step)) % cores_ + cores_) % cores_;
    return clockwise ? clockwise_[static_cast<size_t>(from)] : counter_[static_cast<size_t>(from)];
  };
  double start = earliest_ns;
  for (int h = 0; h < hops; ++h) start = std::max(start, link_of(h).free_at_ns);
  const double stream = static_cast<double>(bytes) * ns_per_byte_;
  for (int h = 0; h < hops; ++h) {
    Link& link = link_of(h);
    const double begin = start + h * hop_ns_;
    link.free_at_ns = begin + stream;
    link.log.add(begin, link.free_at_ns, label);
  }
  bytes_ += bytes * hops;
  return start + stream + hops * hop_ns_;
}

double Ring::send(int src, int dst, int64_t bytes, double earliest_ns, const std::string& label) {
  const int forward = ((dst - src) % cores_ + cores_) % cores_;
  const bool clockwise = forward <= cores_ - forward;
  return traverse(src, clockwise ? forward : cores_ - forward, clockwise, bytes, earliest_ns, label);
}

double Ring::reduce(const std::vector<int>& cores, int64_t bytes, double earliest_ns, const std::string& label) {
  if (cores.size() < 2) return earliest_ns;
  const int span = cores.back() - cores.front();
  const double gathered = traverse(cores.front(), span, true, bytes, earliest_ns, label + " reduce");
  return traverse(cores.back(), span, false, bytes, gathered, label + " broadcast");
}

std::vector<Activity> Ring::activities() const {
  std::vector<Activity> out;
  for (int i = 0; i < cores_; ++i) {
    const auto& cw = clockwise_[static_cast<size_t>(i)];
    if (!cw.log.intervals().empty())
      out.push_back({"link", "link " + std::to_string(i) + "->" + std::to_string((i + 1) % cores_), &cw.log});
    const auto& ccw = counter_[static_cast<size_t>(i)];
    if (!ccw.log.intervals().empty()) {
      out.push_back({"link", "link " + std::to_string(i) + "->" + std::to_string((i + cores_ - 1) % cores_), &ccw.log});
    }
  }
  return out;
}

Counters Ring::counters() const { return {{stats::kBytesXHops, static_cast<double>(bytes_)}}; }

}  // namespace spyre::sim
