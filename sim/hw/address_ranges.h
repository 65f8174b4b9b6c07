#pragma once
// A set of byte addresses kept as disjoint half-open ranges [begin, end):
// which parts of device memory the cores have written (LPDDR5's
// read-after-write cost). Adjacent and overlapping ranges merge, so a tensor
// written in many strided pieces ends up as one range.

#include <cstddef>
#include <cstdint>
#include <map>

namespace spyre::sim {

class AddressRanges {
 public:
  void add(int64_t begin, int64_t end);
  void remove(int64_t begin, int64_t end);
  // Bytes of [begin, end) in the set.
  int64_t overlap(int64_t begin, int64_t end) const;
  bool contains(int64_t address) const { return overlap(address, address + 1) == 1; }
  std::size_t ranges() const { return ranges_.size(); }

 private:
  std::map<int64_t, int64_t> ranges_;  // begin -> end
};

}  // namespace spyre::sim
