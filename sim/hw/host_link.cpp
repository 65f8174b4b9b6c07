#include "sim/hw/host_link.h"

#include <algorithm>

#include "sim/hw/interfaces.h"

namespace spyre::sim {

HostLink::HostLink(sc_core::sc_module_name name, const ArchConfig& arch)
    : sc_module(name),
      socket("socket"),
      device("device"),
      ns_per_byte_(1.0 / arch.host_link.gbps),
      latency_ns_(arch.host_link.latency_us * 1000.0) {
  socket.register_b_transport(this, &HostLink::b_transport);
}

void HostLink::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const auto bytes = payload_bytes(payload);
  const ActivityLabel* label = payload.get_extension<ActivityLabel>();
  const double start = std::max(now_ns() + delay.to_seconds() * 1e9, free_at_ns_);
  free_at_ns_ = start + latency_ns_ + static_cast<double>(bytes) * ns_per_byte_;
  log_.add(start, free_at_ns_, label ? label->text : "");
  (payload.is_write() ? upload_bytes_ : download_bytes_) += bytes;
  device->transport_dbg(payload);
  delay = ns(free_at_ns_ - now_ns());
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

std::vector<Activity> HostLink::activities() const { return {{"host_link", "host link", &log_}}; }

Counters HostLink::counters() const {
  return {{stats::kUploadBytes, static_cast<double>(upload_bytes_)},
          {stats::kDownloadBytes, static_cast<double>(download_bytes_)},
          {stats::kBusyNs, log_.busy_ns()}};
}

}  // namespace spyre::sim
