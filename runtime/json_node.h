#pragma once
// A read-only view of a JSON value that remembers the file and JSON path it
// came from, so every schema error names "file: $.a.b[2].c: reason".

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/json_fwd.h"

namespace spyre {

// Reads and parses a JSON file; malformed JSON or an unreadable file raise a
// SpyreError naming the file (and line/column for syntax errors).
Json read_json_file(const std::string& path);
// The same for text already in memory; `path` names it in errors.
Json parse_json_text(const std::string& text, const std::string& path);
// Writes json indented by one space (reports, traces); failures name the file.
void write_json_file(const std::string& path, const Json& json);

class JsonNode {
 public:
  JsonNode(const Json& value, std::string file, std::string path);

  const Json& raw() const { return *value_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }

  bool is_object() const;
  bool is_array() const;
  bool is_string() const;
  bool has(const std::string& key) const;

  JsonNode at(const std::string& key) const;  // required member of an object
  std::optional<JsonNode> find(const std::string& key) const;
  JsonNode element(size_t index) const;  // array element
  size_t size() const;                   // array or object size
  std::vector<std::pair<std::string, JsonNode>> members() const;

  // Scalars. SuperDSC writes many integers as strings ("-1", "10752"), so
  // as_int accepts both a JSON integer and a string holding one.
  int64_t as_int() const;
  int64_t as_int_in(int64_t lo, int64_t hi) const;  // as_int, an error outside [lo, hi]
  double as_double() const;
  std::string as_string() const;
  std::vector<std::string> as_string_list() const;
  std::vector<int64_t> as_int_list() const;
  std::vector<double> as_double_list() const;

  [[noreturn]] void error(const std::string& reason) const;

 private:
  const Json* value_;
  std::string file_;
  std::string path_;
};

}  // namespace spyre
