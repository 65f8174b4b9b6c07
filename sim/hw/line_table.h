#pragma once
// A map from cache line numbers to slot indices for the memory-side cache:
// open addressing with linear probing over a power-of-two table at most half
// full (the cache holds a fixed number of lines), deletions by backward
// shift. Every DMA request looks its lines up here, so it is the cache's hot
// path; std::unordered_map's prime-modulo buckets and per-node allocations
// cost several times more.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace spyre::sim {

class LineTable {
 public:
  explicit LineTable(int64_t max_entries = 0)
      : keys_(std::bit_ceil(static_cast<uint64_t>(2 * max_entries + 2)), kEmpty),
        values_(keys_.size(), -1),
        mask_(keys_.size() - 1) {}

  // The slot of `line`, -1 when absent.
  int32_t find(int64_t line) const {
    for (uint64_t i = home(line);; i = (i + 1) & mask_) {
      if (keys_[i] == line) return values_[i];
      if (keys_[i] == kEmpty) return -1;
    }
  }
  // `line` must be absent and the table below max_entries.
  void insert(int64_t line, int32_t slot) {
    uint64_t i = home(line);
    while (keys_[i] != kEmpty) i = (i + 1) & mask_;
    keys_[i] = line;
    values_[i] = slot;
  }
  void erase(int64_t line) {
    uint64_t i = home(line);
    while (keys_[i] != line) {
      if (keys_[i] == kEmpty) return;
      i = (i + 1) & mask_;
    }
    // Backward shift: move later entries of the probe run into the hole
    // when their home does not lie cyclically in (hole, their position].
    for (uint64_t j = (i + 1) & mask_; keys_[j] != kEmpty; j = (j + 1) & mask_) {
      const uint64_t h = home(keys_[j]);
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      keys_[i] = keys_[j];
      values_[i] = values_[j];
      i = j;
    }
    keys_[i] = kEmpty;
    values_[i] = -1;
  }
  void clear() {
    std::fill(keys_.begin(), keys_.end(), kEmpty);
    std::fill(values_.begin(), values_.end(), -1);
  }

 private:
  static constexpr int64_t kEmpty = INT64_MIN;  // no line number is negative
  uint64_t home(int64_t line) const {
    return (static_cast<uint64_t>(line) * 0x9E3779B97F4A7C15ull >> 32) & mask_;  // Fibonacci hashing
  }
  std::vector<int64_t> keys_;
  std::vector<int32_t> values_;
  uint64_t mask_;
};

}  // namespace spyre::sim
