#include "sim/hw/memory_cache.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/hw/busy_log.h"
#include "sim/hw/interfaces.h"

namespace spyre::sim {

MemoryCache::MemoryCache(sc_core::sc_module_name name, const ArchConfig& arch)
    : sc_module(name),
      socket("socket"),
      dram("dram"),
      capacity_lines_(arch.cache.bytes / arch.cache.line_bytes),
      line_bytes_(arch.cache.line_bytes),
      ns_per_byte_(1.0 / arch.cache.gbps),
      hit_latency_ns_(arch.cache.hit_latency_ns) {
  socket.register_b_transport(this, &MemoryCache::b_transport);
  socket.register_transport_dbg(this, &MemoryCache::transport_dbg);
}

bool MemoryCache::touch(int64_t line, bool dirty) {
  auto it = where_.find(line);
  if (it != where_.end()) {
    it->second->dirty = it->second->dirty || dirty;
    lru_.splice(lru_.begin(), lru_, it->second);
    return true;
  }
  lru_.push_front({line, dirty});
  where_[line] = lru_.begin();
  if (static_cast<int64_t>(lru_.size()) > capacity_lines_) {
    const Entry victim = lru_.back();
    lru_.pop_back();
    where_.erase(victim.line);
    if (victim.dirty) write_back(victim.line);
  }
  return false;
}

void MemoryCache::write_back(int64_t line) {
  tlm::tlm_generic_payload wb;
  wb.set_command(tlm::TLM_WRITE_COMMAND);
  wb.set_address(static_cast<uint64_t>(line * line_bytes_));
  wb.set_data_ptr(nullptr);
  wb.set_data_length(static_cast<unsigned int>(line_bytes_));
  wb.set_streaming_width(static_cast<unsigned int>(line_bytes_));
  sc_core::sc_time ignored = sc_core::SC_ZERO_TIME;  // the evicting request does not wait for it
  dram->b_transport(wb, ignored);
  stats_.writeback_bytes += line_bytes_;
}

void MemoryCache::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (capacity_lines_ <= 0) {
    dram->b_transport(payload, delay);
    return;
  }
  const bool write = payload.is_write();
  const int64_t first = static_cast<int64_t>(payload.get_address());
  const int64_t length = payload_bytes(payload);
  // A read that misses fills each missing line whole from LPDDR5: DRAM
  // serves at least every byte the cores read that the cache did not hold
  // (byte conservation), and more when requests are smaller than a line.
  std::vector<std::pair<int64_t, int64_t>> fills;  // (first line, lines) runs of missed lines
  for (int64_t line = first / line_bytes_; line * line_bytes_ < first + length; ++line) {
    if (touch(line, write) || write) continue;
    if (!fills.empty() && fills.back().first + fills.back().second == line) {
      ++fills.back().second;
    } else {
      fills.emplace_back(line, 1);
    }
  }
  const double arrival = now_ns() + delay.to_seconds() * 1e9;
  const double start = std::max(arrival, free_at_ns_);
  free_at_ns_ = start + static_cast<double>(length) * ns_per_byte_;
  double done = free_at_ns_ + hit_latency_ns_;
  if (!fills.empty()) {
    stats_.miss_bytes += length;
    for (const auto& [line, lines] : fills) {
      tlm::tlm_generic_payload fill;
      fill.set_command(tlm::TLM_READ_COMMAND);
      fill.set_address(static_cast<uint64_t>(line * line_bytes_));
      fill.set_data_ptr(nullptr);
      fill.set_data_length(static_cast<unsigned int>(lines * line_bytes_));
      fill.set_streaming_width(static_cast<unsigned int>(lines * line_bytes_));
      sc_core::sc_time dram_delay = delay;
      dram->b_transport(fill, dram_delay);
      done = std::max(done, now_ns() + dram_delay.to_seconds() * 1e9);
    }
  } else {
    stats_.hit_bytes += length;
  }
  delay = ns(done - now_ns());
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int MemoryCache::transport_dbg(int, tlm::tlm_generic_payload& payload) {
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  return dram->transport_dbg(payload);
}

Counters MemoryCache::counters() const {
  return {{"hit_bytes", static_cast<double>(stats_.hit_bytes)},
          {"miss_bytes", static_cast<double>(stats_.miss_bytes)},
          {"writeback_bytes", static_cast<double>(stats_.writeback_bytes)}};
}

}  // namespace spyre::sim
