#pragma once
// The PCIe gen5 x16 link between host and card: uploads of input tensors
// before the launches (TLM writes) and downloads of outputs after them (TLM
// reads). One transfer at a time: each takes host_link.latency_us plus its
// bytes at host_link.gbps. Each transfer reaches device memory as an untimed
// (debug) access, so the memory side sees what the host wrote.

#include <cstdint>
#include <string>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "runtime/arch_config.h"
#include "sim/hw/busy_log.h"
#include "sim/hw/hardware_block.h"

namespace spyre::sim {

class HostLink : public sc_core::sc_module, public HardwareBlock {
 public:
  tlm_utils::multi_passthrough_target_socket<HostLink> socket;  // the host
  tlm_utils::simple_initiator_socket<HostLink> device;          // device memory

  HostLink(sc_core::sc_module_name name, const ArchConfig& arch);

  const BusyLog& log() const { return log_; }
  std::vector<Activity> activities() const override;  // "host link"
  Counters counters() const override;                 // upload_bytes, download_bytes, busy_ns

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  double ns_per_byte_, latency_ns_;
  double free_at_ns_ = 0;
  int64_t upload_bytes_ = 0, download_bytes_ = 0;
  BusyLog log_;
};

}  // namespace spyre::sim
