#include "sim/hw/address_ranges.h"

#include <algorithm>
#include <iterator>

namespace spyre::sim {

void AddressRanges::add(int64_t begin, int64_t end) {
  if (begin >= end) return;
  // The first range that could touch [begin, end): the one starting at or
  // before begin, if it reaches begin.
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin() && std::prev(it)->second >= begin) --it;
  while (it != ranges_.end() && it->first <= end) {
    begin = std::min(begin, it->first);
    end = std::max(end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(begin, end);
}

void AddressRanges::remove(int64_t begin, int64_t end) {
  if (begin >= end) return;
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin() && std::prev(it)->second > begin) --it;
  while (it != ranges_.end() && it->first < end) {
    const int64_t lo = it->first, hi = it->second;
    it = ranges_.erase(it);
    if (lo < begin) ranges_.emplace(lo, begin);
    if (hi > end) ranges_.emplace(end, hi);
  }
}

int64_t AddressRanges::overlap(int64_t begin, int64_t end) const {
  int64_t bytes = 0;
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin()) --it;
  for (; it != ranges_.end() && it->first < end; ++it) {
    bytes += std::max<int64_t>(0, std::min(end, it->second) - std::max(begin, it->first));
  }
  return bytes;
}

}  // namespace spyre::sim
