#include "runtime/text.h"

#include <cstdint>
#include <cstdio>

namespace spyre {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::string join(const std::vector<int64_t>& numbers, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < numbers.size(); ++i) out += (i ? separator : "") + std::to_string(numbers[i]);
  return out;
}

std::string format_number(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

}  // namespace spyre
