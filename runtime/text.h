#pragma once
// Small text helpers the messages and reports share.

#include <cstdint>
#include <string>
#include <vector>

namespace spyre {

// "a, b, c": the items with `separator` between them.
std::string join(const std::vector<std::string>& items, const std::string& separator);
// The numbers as text, with `separator` between them.
std::string join(const std::vector<int64_t>& numbers, const std::string& separator);
// A number as printf's %g writes it ("0.5", "1e+06").
std::string format_number(double value);
// "a.b.c" split at '.': {"a", "b", "c"} (empty parts kept).
std::vector<std::string> split(const std::string& text, char separator);

}  // namespace spyre
