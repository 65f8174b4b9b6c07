#include "studies/yaml_file.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/user_files.h"

namespace spyre::studies {

namespace {

constexpr int kMaxDepth = 128;  // as the JSON reader: deeper nesting is refused, not recursed into
// Aliases let a few lines stand for an exponential number of values ("a
// billion laughs"); expanding more than this many is refused.
constexpr size_t kMaxValues = 1000000;

std::string where(const YAML::Mark& mark) {
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
}

Json scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted: a string whatever it looks like
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  char* end = nullptr;
  errno = 0;
  const long long integer = std::strtoll(text.c_str(), &end, 10);
  if (end != text.c_str() && *end == '\0' && errno == 0) return static_cast<int64_t>(integer);
  errno = 0;
  const double number = std::strtod(text.c_str(), &end);
  if (end != text.c_str() && *end == '\0' && errno == 0 && text.find_first_of("xXnN") == std::string::npos)
    return number;
  return text;
}

Json to_json(const YAML::Node& node, const std::string& path, int depth, size_t& values) {
  if (depth > kMaxDepth) fail(path, where(node.Mark()), "nested deeper than " + std::to_string(kMaxDepth) + " levels");
  if (++values > kMaxValues)
    fail(path, where(node.Mark()), "expands to more than " + std::to_string(kMaxValues) + " values (aliases?)");
  switch (node.Type()) {
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const auto& item : node) out.push_back(to_json(item, path, depth + 1, values));
      return out;
    }
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& item : node) {
        if (!item.first.IsScalar()) fail(path, where(item.first.Mark()), "a key must be a plain string");
        out[item.first.Scalar()] = to_json(item.second, path, depth + 1, values);
      }
      return out;
    }
    case YAML::NodeType::Scalar:
      return scalar(node);
    default:
      return nullptr;
  }
}

}  // namespace

bool is_yaml_file(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

Json read_yaml_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  try {
    const YAML::Node root = YAML::Load(in);
    size_t values = 0;
    return to_json(root, path, 0, values);
  } catch (const YAML::Exception& e) {
    fail(path, where(e.mark), e.msg);
  }
}

}  // namespace spyre::studies
