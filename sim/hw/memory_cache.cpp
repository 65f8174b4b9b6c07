#include "sim/hw/memory_cache.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <utility>
#include <vector>

#include "sim/hw/busy_log.h"
#include "sim/hw/interfaces.h"

namespace spyre::sim {

namespace {
// A line whose fill has been asked for but whose return time is not known yet.
constexpr double kFillOutstanding = std::numeric_limits<double>::infinity();

// A request of the cache's own to LPDDR5 (a fill, a write-back, a write
// around it): timing only, no data.
void describe(tlm::tlm_generic_payload& request, tlm::tlm_command command, int64_t address, int64_t bytes) {
  request.set_command(command);
  request.set_address(static_cast<uint64_t>(address));
  request.set_data_ptr(nullptr);
  request.set_data_length(static_cast<unsigned int>(bytes));
  request.set_streaming_width(static_cast<unsigned int>(bytes));
}
}  // namespace

MemoryCache::MemoryCache(sc_core::sc_module_name name, const ArchConfig& arch)
    : sc_module(name),
      socket("socket"),
      dram("dram"),
      capacity_lines_(arch.cache.bytes / arch.cache.line_bytes),
      line_bytes_(arch.cache.line_bytes),
      sectors_(std::clamp<int64_t>(arch.cache.line_bytes / kStickBytes, 1, 64)),
      sector_bytes_(arch.cache.line_bytes / sectors_),
      ns_per_byte_(1.0 / arch.cache.gbps),
      hit_latency_ns_(arch.cache.hit_latency_ns),
      write_allocate_(arch.cache.write_allocate != 0) {
  socket.register_b_transport(this, &MemoryCache::b_transport);
  socket.register_transport_dbg(this, &MemoryCache::transport_dbg);
  if (capacity_lines_ > 0) {
    // One slot more than the capacity: a new line is added before the oldest leaves.
    slots_.resize(static_cast<size_t>(capacity_lines_) + 1);
    for (int32_t s = static_cast<int32_t>(slots_.size()) - 1; s >= 0; --s) free_slots_.push_back(s);
    where_ = LineTable(static_cast<int64_t>(slots_.size()));
  }
}

MemoryCache::Entry* MemoryCache::find(int64_t line) {
  const int32_t slot = where_.find(line);
  return slot < 0 ? nullptr : &slots_[static_cast<size_t>(slot)];
}

void MemoryCache::unlink(int32_t slot) {
  Entry& e = slots_[static_cast<size_t>(slot)];
  (e.newer >= 0 ? slots_[static_cast<size_t>(e.newer)].older : newest_) = e.older;
  (e.older >= 0 ? slots_[static_cast<size_t>(e.older)].newer : oldest_) = e.newer;
}

void MemoryCache::link_newest(int32_t slot) {
  Entry& e = slots_[static_cast<size_t>(slot)];
  e.newer = -1;
  e.older = newest_;
  (newest_ >= 0 ? slots_[static_cast<size_t>(newest_)].newer : oldest_) = slot;
  newest_ = slot;
}

std::unique_ptr<MemoryCache::RequestScratch> MemoryCache::take_scratch() {
  if (scratch_pool_.empty()) return std::make_unique<RequestScratch>();
  std::unique_ptr<RequestScratch> scratch = std::move(scratch_pool_.back());
  scratch_pool_.pop_back();
  scratch->fills.clear();
  scratch->shared.clear();
  scratch->around.clear();
  return scratch;
}

MemoryCache::Entry* MemoryCache::touch_held(int64_t line) {
  const int32_t held = where_.find(line);
  if (held < 0) return nullptr;
  if (held != newest_) {
    unlink(held);
    link_newest(held);
  }
  return &slots_[static_cast<size_t>(held)];
}

MemoryCache::Entry& MemoryCache::add_newest(int64_t line) {
  const int32_t slot = free_slots_.back();
  free_slots_.pop_back();
  slots_[static_cast<size_t>(slot)] = {line, 0, 0, 0.0, -1, -1};
  link_newest(slot);
  where_.insert(line, slot);
  ++held_;
  return slots_[static_cast<size_t>(slot)];
}

MemoryCache::Entry MemoryCache::drop_oldest() {
  const int32_t oldest = oldest_;
  const Entry victim = slots_[static_cast<size_t>(oldest)];
  unlink(oldest);
  where_.erase(victim.line);
  free_slots_.push_back(oldest);
  --held_;
  return victim;
}

MemoryCache::Entry& MemoryCache::touch(int64_t line, tlm::tlm_generic_payload& request) {
  if (Entry* held = touch_held(line)) return *held;
  Entry& added = add_newest(line);
  if (held_ > capacity_lines_) {
    const Entry victim = drop_oldest();
    if (victim.dirty != 0) {
      write_back(victim, request);
      // The write-back may have waited in LPDDR5 while other requests
      // evicted the line just added: look it up again, re-adding it if so.
      Entry* again = find(line);
      return again != nullptr ? *again : touch(line, request);
    }
  }
  return added;
}

MemoryCache::Entry& MemoryCache::touch_untimed(int64_t line) {
  if (Entry* held = touch_held(line)) return *held;
  Entry& added = add_newest(line);
  if (held_ > capacity_lines_) drop_oldest();
  return added;
}

void MemoryCache::warm(int64_t first, int64_t length, bool write) {
  if (capacity_lines_ <= 0) return;
  for (int64_t line = first / line_bytes_; line * line_bytes_ < first + length; ++line) {
    if (write && !write_allocate_ && where_.find(line) < 0) continue;  // written around
    const int64_t base = line * line_bytes_;
    const int64_t lo = (std::max(first, base) - base) / sector_bytes_;
    const int64_t hi = (std::min(first + length, base + line_bytes_) - base + sector_bytes_ - 1) / sector_bytes_;
    const uint64_t mask = (hi - lo >= 64 ? ~uint64_t{0} : ((uint64_t{1} << (hi - lo)) - 1)) << lo;
    Entry& entry = touch_untimed(line);
    entry.valid |= mask;
    if (write) entry.dirty |= mask;
  }
}

void MemoryCache::write_back(const Entry& victim, tlm::tlm_generic_payload& wb) {
  const int64_t bytes = std::popcount(victim.dirty) * sector_bytes_;
  describe(wb, tlm::TLM_WRITE_COMMAND, victim.line * line_bytes_ + std::countr_zero(victim.dirty) * sector_bytes_,
           bytes);
  sc_core::sc_time ignored = sc_core::SC_ZERO_TIME;  // the evicting request does not wait for it
  dram->b_transport(wb, ignored);
  stats_.writeback_bytes += bytes;
}

void MemoryCache::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (capacity_lines_ <= 0) {
    dram->b_transport(payload, delay);
    return;
  }
  const bool write = payload.is_write();
  const int64_t first = static_cast<int64_t>(payload.get_address());
  const int64_t length = payload_bytes(payload);
  // A read fills the sectors (sticks) it misses from LPDDR5: DRAM serves at
  // least every byte the cores read that the cache did not hold (byte
  // conservation), and no neighbour's bytes a strided read skipped.
  std::unique_ptr<RequestScratch> scratch = take_scratch();
  auto& [fills, shared, around, dram_request] = *scratch;
  int64_t around_bytes = 0;
  for (int64_t line = first / line_bytes_; line * line_bytes_ < first + length; ++line) {
    const int64_t base = line * line_bytes_;
    const int64_t lo = (std::max(first, base) - base) / sector_bytes_;
    const int64_t hi = (std::min(first + length, base + line_bytes_) - base + sector_bytes_ - 1) / sector_bytes_;
    const uint64_t mask = (hi - lo >= 64 ? ~uint64_t{0} : ((uint64_t{1} << (hi - lo)) - 1)) << lo;
    if (write && !write_allocate_ && where_.find(line) < 0) {
      const int64_t address = std::max(first, base);
      const int64_t bytes = std::min(first + length, base + line_bytes_) - address;
      if (!around.empty() && around.back().first + around.back().second == address) {
        around.back().second += bytes;
      } else {
        around.emplace_back(address, bytes);
      }
      around_bytes += bytes;
      continue;
    }
    Entry& entry = touch(line, dram_request);
    if (write) {
      entry.valid |= mask;
      entry.dirty |= mask;
      continue;
    }
    if ((entry.valid & mask) != 0) shared.push_back(line);
    const uint64_t missing = mask & ~entry.valid;
    if (missing == 0) continue;
    entry.valid |= missing;
    entry.ready_ns = kFillOutstanding;
    for (int64_t sector = lo; sector < hi; ++sector) {
      if ((missing >> sector & 1) == 0) continue;
      const int64_t address = base + sector * sector_bytes_;
      if (!fills.empty() && fills.back().first + fills.back().second == address) {
        fills.back().second += sector_bytes_;
      } else {
        fills.emplace_back(address, sector_bytes_);
      }
    }
  }
  const double arrival = now_ns() + delay.to_seconds() * 1e9;
  const double start = std::max(arrival, free_at_ns_);
  free_at_ns_ = start + static_cast<double>(length - around_bytes) * ns_per_byte_;
  double done = around_bytes == length ? arrival : free_at_ns_ + hit_latency_ns_;
  for (const auto& [address, bytes] : around) {
    describe(dram_request, tlm::TLM_WRITE_COMMAND, address, bytes);
    sc_core::sc_time dram_delay = delay;
    dram->b_transport(dram_request, dram_delay);
    done = std::max(done, now_ns() + dram_delay.to_seconds() * 1e9);
  }
  int64_t filled = 0;
  for (const auto& fill : fills) filled += fill.second;
  stats_.miss_bytes += std::min(filled, length);
  stats_.hit_bytes += length - around_bytes - std::min(filled, length);
  stats_.around_bytes += around_bytes;
  if (!fills.empty()) {
    // A run whose first bytes miss starts a run in LPDDR5 too.
    const bool run_start = payload.get_extension<RunStart>() != nullptr && fills.front().first == first;
    for (const auto& [address, bytes] : fills) {
      tlm::tlm_generic_payload& fill = dram_request;
      describe(fill, tlm::TLM_READ_COMMAND, address, bytes);
      sc_core::sc_time dram_delay = delay;
      RunStart starts;
      if (run_start && address == first) fill.set_extension(&starts);
      dram->b_transport(fill, dram_delay);  // may wait: other requests run meanwhile
      fill.clear_extension<RunStart>();
      const double ready = now_ns() + dram_delay.to_seconds() * 1e9;
      for (int64_t line = address / line_bytes_; line * line_bytes_ < address + bytes; ++line) {
        Entry* e = find(line);
        if (e != nullptr && e->ready_ns == kFillOutstanding) e->ready_ns = ready;
      }
      fill_known_.notify(sc_core::SC_ZERO_TIME);
      done = std::max(done, ready);
    }
  }
  // A hit on a line still being filled completes when the fill does.
  for (int64_t line : shared) {
    for (Entry* e = find(line); e != nullptr && e->ready_ns == kFillOutstanding; e = find(line)) {
      sc_core::wait(fill_known_);
    }
    if (const Entry* e = find(line)) done = std::max(done, e->ready_ns);
  }
  delay = ns(done - now_ns());
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  scratch_pool_.push_back(std::move(scratch));
}

double MemoryCache::flush() {
  std::vector<std::pair<int64_t, int64_t>> runs;  // (address, bytes) of dirty sectors, address order
  std::vector<const Entry*> dirty;
  for (int32_t s = newest_; s >= 0; s = slots_[static_cast<size_t>(s)].older)
    if (slots_[static_cast<size_t>(s)].dirty != 0) dirty.push_back(&slots_[static_cast<size_t>(s)]);
  std::sort(dirty.begin(), dirty.end(), [](const Entry* a, const Entry* b) { return a->line < b->line; });
  for (const Entry* e : dirty) {
    for (int64_t sector = 0; sector < sectors_; ++sector) {
      if ((e->dirty >> sector & 1) == 0) continue;
      const int64_t address = e->line * line_bytes_ + sector * sector_bytes_;
      if (!runs.empty() && runs.back().first + runs.back().second == address) {
        runs.back().second += sector_bytes_;
      } else {
        runs.emplace_back(address, sector_bytes_);
      }
    }
  }
  // Every line dropped (the runs above are copies).
  for (int32_t s = newest_; s >= 0; s = slots_[static_cast<size_t>(s)].older) free_slots_.push_back(s);
  newest_ = oldest_ = -1;
  held_ = 0;
  where_.clear();
  double done = now_ns();
  for (const auto& [address, bytes] : runs) {
    for (int64_t at = address; at < address + bytes; at += line_bytes_) {
      const int64_t piece = std::min(line_bytes_, address + bytes - at);
      tlm::tlm_generic_payload wb;
      describe(wb, tlm::TLM_WRITE_COMMAND, at, piece);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      dram->b_transport(wb, delay);
      done = std::max(done, now_ns() + delay.to_seconds() * 1e9);
      stats_.writeback_bytes += piece;
    }
  }
  return done;
}

unsigned int MemoryCache::transport_dbg(int, tlm::tlm_generic_payload& payload) {
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  return dram->transport_dbg(payload);
}

Counters MemoryCache::counters() const {
  return {{stats::kHitBytes, static_cast<double>(stats_.hit_bytes)},
          {stats::kMissBytes, static_cast<double>(stats_.miss_bytes)},
          {stats::kWritebackBytes, static_cast<double>(stats_.writeback_bytes)},
          {stats::kWriteAroundBytes, static_cast<double>(stats_.around_bytes)}};
}

}  // namespace spyre::sim
