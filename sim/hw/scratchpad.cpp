#include "sim/hw/scratchpad.h"

#include <algorithm>

#include "sim/hw/busy_log.h"
#include "sim/hw/interfaces.h"

namespace spyre::sim {

Scratchpad::Scratchpad(sc_core::sc_module_name name, const ArchConfig& arch)
    : sc_module(name),
      socket("socket"),
      ns_per_byte_(arch.cycle_ns() / (static_cast<double>(arch.lx.ports) * arch.lx.port_bytes_per_cycle)) {
  socket.register_b_transport(this, &Scratchpad::b_transport);
}

void Scratchpad::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const auto bytes = payload_bytes(payload);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  if (bytes <= 0) return;
  const double start = std::max(now_ns() + delay.to_seconds() * 1e9, free_at_ns_);
  const double duration = static_cast<double>(bytes) * ns_per_byte_;
  free_at_ns_ = start + duration;
  bytes_moved_ += bytes;
  busy_ns_ += duration;
  delay = ns(free_at_ns_ - now_ns());
}

Counters Scratchpad::counters() const {
  return {{stats::kBytes, static_cast<double>(bytes_moved_)}, {stats::kBusyNs, busy_ns_}};
}

}  // namespace spyre::sim
