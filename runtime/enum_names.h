#pragma once
// An enum's spellings as one table: the name it is printed with and every
// spelling a file may use for it. The first entry of a value is its name;
// later entries of the same value are accepted aliases.

#include <cstddef>
#include <string>

namespace spyre {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// The printed name of `value` ("?" for a value the table lacks).
template <class E, size_t N>
const char* enum_name(const EnumName<E> (&table)[N], E value) {
  for (const auto& e : table) {
    if (e.value == value) return e.name;
  }
  return "?";
}

// The value spelled `text`; false when no entry spells it.
template <class E, size_t N>
bool parse_enum(const EnumName<E> (&table)[N], const std::string& text, E& out) {
  for (const auto& e : table) {
    if (text == e.name) {
      out = e.value;
      return true;
    }
  }
  return false;
}

}  // namespace spyre
