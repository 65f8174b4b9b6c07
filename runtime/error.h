#pragma once
// One exception type for every user-facing failure. Its message is a single
// line naming where (file, JSON path or line) and why, so the CLI can print it
// as-is and exit non-zero.

#include <stdexcept>
#include <string>

namespace spyre {

class SpyreError : public std::runtime_error {
 public:
  explicit SpyreError(const std::string& message) : std::runtime_error(message) {}
};

// "file: where: reason" with empty parts left out.
[[noreturn]] void fail(const std::string& file, const std::string& where, const std::string& reason);

}  // namespace spyre
