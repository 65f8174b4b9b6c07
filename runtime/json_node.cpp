#include "runtime/json_node.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/user_files.h"

namespace spyre {

bool JsonNode::is_object() const { return value_->is_object(); }
bool JsonNode::is_array() const { return value_->is_array(); }
bool JsonNode::is_string() const { return value_->is_string(); }

void write_json_file(const std::string& path, const Json& json) {
  std::ofstream out(path);
  if (!out) fail(path, "", "cannot create file");
  out << json.dump(1) << "\n";
  if (!out) fail(path, "", "write failed");
}

namespace {

// Documents nest a few levels; a deeper one is garbage, and code walking it
// recursively (ours or the library's) would run out of stack.
constexpr int kMaxJsonDepth = 128;

// The deepest nesting of objects and arrays, strings skipped; stops early
// once past the limit.
int json_depth(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size() && deepest <= kMaxJsonDepth; ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

Json parse_json_text(const std::string& text, const std::string& path) {
  // The parser takes a NUL byte for the end of its input and would accept
  // whatever follows it; JSON text holds none.
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    fail(path, "byte " + std::to_string(nul), "a NUL byte: nothing may follow the JSON value");
  if (json_depth(text) > kMaxJsonDepth)
    fail(path, "", "malformed JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (what.find("; expected end of input") != std::string::npos && e.byte > 0)
      fail(path, "byte " + std::to_string(e.byte - 1), "content after the JSON value");
    auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    fail(path, "", "malformed JSON: " + what);
  } catch (const nlohmann::json::exception& e) {
    // nlohmann prefixes "[json.exception.parse_error.101] "; keep the useful
    // tail. Numbers too large for a double (1e999) end up here too.
    std::string what = e.what();
    auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    fail(path, "", "malformed JSON: " + what);
  }
}

Json read_json_file(const std::string& path) { return parse_json_text(read_input_file(path), path); }

JsonNode::JsonNode(const Json& value, std::string file, std::string path)
    : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

void JsonNode::error(const std::string& reason) const { fail(file_, path_, reason); }

bool JsonNode::has(const std::string& key) const { return value_->is_object() && value_->contains(key); }

int64_t JsonNode::as_int_in(int64_t lo, int64_t hi) const {
  const int64_t v = as_int();
  if (v < lo || v > hi)
    error("must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " + std::to_string(v));
  return v;
}

JsonNode JsonNode::at(const std::string& key) const {
  if (!value_->is_object()) error("expected an object");
  auto it = value_->find(key);
  if (it == value_->end()) error("missing required field '" + key + "'");
  return JsonNode(*it, file_, path_ + "." + key);
}

std::optional<JsonNode> JsonNode::find(const std::string& key) const {
  if (!value_->is_object()) return std::nullopt;
  auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonNode(*it, file_, path_ + "." + key);
}

JsonNode JsonNode::element(size_t index) const {
  if (!value_->is_array()) error("expected an array");
  if (index >= value_->size()) error("index " + std::to_string(index) + " out of range");
  return JsonNode((*value_)[index], file_, path_ + "[" + std::to_string(index) + "]");
}

size_t JsonNode::size() const {
  if (!value_->is_array() && !value_->is_object()) error("expected an array or object");
  return value_->size();
}

std::vector<std::pair<std::string, JsonNode>> JsonNode::members() const {
  if (!value_->is_object()) error("expected an object");
  std::vector<std::pair<std::string, JsonNode>> out;
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    out.emplace_back(it.key(), JsonNode(it.value(), file_, path_ + "." + it.key()));
  }
  return out;
}

int64_t JsonNode::as_int() const {
  if (value_->is_number_integer()) return value_->get<int64_t>();
  if (value_->is_number_float()) {
    double d = value_->get<double>();
    // In range before the cast: converting a double beyond int64 is undefined.
    if (d >= -0x1p63 && d < 0x1p63 && d == std::trunc(d)) return static_cast<int64_t>(d);
    error("expected an integer, got " + value_->dump());
  }
  if (value_->is_string()) {
    const std::string& s = value_->get_ref<const std::string&>();
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || errno != 0 || *end != '\0') error("expected an integer, got \"" + s + "\"");
    return v;
  }
  error("expected an integer, got " + std::string(value_->type_name()));
}

double JsonNode::as_double() const {
  if (value_->is_number()) return value_->get<double>();
  if (value_->is_string()) {
    const std::string& s = value_->get_ref<const std::string&>();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0') error("expected a number, got \"" + s + "\"");
    return v;
  }
  error("expected a number, got " + std::string(value_->type_name()));
}

std::string JsonNode::as_string() const {
  if (!value_->is_string()) error("expected a string, got " + std::string(value_->type_name()));
  return value_->get<std::string>();
}

std::vector<std::string> JsonNode::as_string_list() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < size(); ++i) out.push_back(element(i).as_string());
  return out;
}

std::vector<int64_t> JsonNode::as_int_list() const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < size(); ++i) out.push_back(element(i).as_int());
  return out;
}

std::vector<double> JsonNode::as_double_list() const {
  std::vector<double> out;
  for (size_t i = 0; i < size(); ++i) out.push_back(element(i).as_double());
  return out;
}

}  // namespace spyre
