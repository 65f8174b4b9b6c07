#pragma once
// FNV-1a over 64 bits: a name for some content that is stable across runs
// and machines (sweep points, the split-time store's files). Not for
// security: only to tell contents apart.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace spyre::studies {

class ContentHash {
 public:
  ContentHash& add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      h_ ^= c;
      h_ *= 1099511628211ull;
    }
    return *this;
  }
  std::string hex() const {  // 16 hex digits
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h_));
    return out;
  }

 private:
  uint64_t h_ = 1469598103934665603ull;
};

}  // namespace spyre::studies
