#include "runtime/arch_config.h"

#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/error.h"
#include "runtime/text.h"

namespace spyre {

namespace {

constexpr const char* kArchName = "spyre";
constexpr const char* kArchDescription =
    "IBM Spyre PCIe card (75 W, PCIe gen5 x16, 128 GB LPDDR5). Generated from the parameter table "
    "(runtime/arch_params.cpp) by `spyre-sim arch --json`. Every value is {value, unit, _source}; override any with "
    "--set path=value.";
constexpr const char* kSchemaFile = "spyre.schema.json";

// Keys an arch file may hold besides parameter groups.
bool is_document_key(const std::string& key) { return key == "name" || key == "description" || key == "$schema"; }

std::string known_paths() {
  std::vector<std::string> paths;
  for (const auto& p : arch_params()) paths.emplace_back(p.path);
  return join(paths, ", ");
}

// A value as the JSON file writes it: integers without a decimal point.
std::string value_text(const ArchParam& p, double v) {
  if (p.integer) return std::to_string(static_cast<int64_t>(v));
  return Json(v).dump();
}

// Walks "a.b.c" inside the document; nullptr when absent.
Json* locate(Json& doc, const std::string& path) {
  Json* node = &doc;
  for (const auto& part : split(path, '.')) {
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
  }
  return node;
}

bool is_leaf(const Json& node) { return node.is_object() && node.contains("value"); }

// Every leaf of the document must be a known parameter.
void check_known(const Json& node, const std::string& prefix, const std::string& file) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (prefix.empty() && is_document_key(it.key())) continue;
    if (is_leaf(it.value())) {
      if (!find_arch_param(path)) fail(file, path, "unknown arch parameter (known: " + known_paths() + ")");
    } else if (it.value().is_object()) {
      check_known(it.value(), path, file);
    } else {
      fail(file, path, "expected {\"value\": ..., \"_source\": ...} or a group of parameters");
    }
  }
}

Json load_document(const std::string& path, std::string& label) {
  if (path.empty()) {
    label = "built-in spyre.json";
    return Json::parse(builtin_arch_json());
  }
  label = path;
  return read_json_file(path);
}

void apply_override(Json& doc, const std::string& assignment, const std::string& label) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) fail("--set", assignment, "expected path=value, e.g. lpddr5.read_gbps=300");
  const std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  if (!find_arch_param(path)) fail("--set", path, "unknown arch parameter (known: " + known_paths() + ")");
  Json* node = locate(doc, path);
  if (!node || !is_leaf(*node)) fail(label, path, "parameter missing from the arch file");
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') fail("--set", path, "value '" + text + "' is not a number");
  (*node)["value"] = value;
  (*node)["_source"] = "command line --set " + assignment;
}

ArchConfig build(Json& doc, const std::string& label, const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) apply_override(doc, o, label);
  if (!doc.is_object()) fail(label, "", "expected a JSON object");
  check_known(doc, "", label);
  ArchConfig arch;
  arch.source_file = label;
  arch.overrides = overrides;
  arch.name = doc.contains("name") && doc["name"].is_string() ? doc["name"].get<std::string>() : "unnamed";
  for (const auto& p : arch_params()) {
    Json* node = locate(doc, p.path);
    if (!node || !is_leaf(*node)) fail(label, p.path, "missing parameter");
    const Json& value = (*node)["value"];
    if (!value.is_number()) fail(label, std::string(p.path) + ".value", "expected a number");
    if (!node->contains("_source") || !(*node)["_source"].is_string() ||
        (*node)["_source"].get<std::string>().empty()) {
      fail(label, p.path, "every parameter needs a _source saying where its value comes from");
    }
    const double v = value.get<double>();
    if (!(v >= p.min && v <= p.max)) {
      std::ostringstream range;
      range << "value " << v << " is outside [" << p.min << ", " << p.max << "]";
      fail(label, p.path, range.str());
    }
    if (p.integer && v != std::floor(v)) fail(label, p.path, "expected an integer");
    p.set(arch, v);
  }
  if (arch.address.program_segment >= arch.address.segments) {
    fail(label, "address.program_segment", "must be below address.segments");
  }
  if (arch.lx.size_bytes % arch.lx.alignment_bytes != 0) {
    fail(label, "lx.size_bytes", "must be a multiple of lx.alignment_bytes");
  }
  return arch;
}

// The group of a parameter path ("lpddr5" of "lpddr5.read_gbps"; "" at the top).
std::string group_of(const std::string& path) {
  const auto dot = path.find('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

std::string leaf_of(const std::string& path) { return path.substr(path.find('.') + 1); }

}  // namespace

ArchConfig::ArchConfig() : name(kArchName), source_file("built-in") {
  for (const auto& p : arch_params()) p.set(*this, p.value);
}

const ArchParam* find_arch_param(const std::string& path) {
  for (const auto& p : arch_params()) {
    if (path == p.path) return &p;
  }
  return nullptr;
}

int64_t ArchConfig::staging_bytes() const {
  const auto reserved = static_cast<int64_t>(static_cast<double>(lx.size_bytes) * lx.backend_reserved_fraction);
  return reserved / lx.alignment_bytes * lx.alignment_bytes;
}

DeviceLimits ArchConfig::limits() const { return DeviceLimits(*this); }

DeviceLimits::DeviceLimits() : DeviceLimits(ArchConfig()) {}

DeviceLimits::DeviceLimits(const ArchConfig& arch)
    : cores(arch.cores),
      lx_bytes(arch.lx.size_bytes),
      lx_alignment(arch.lx.alignment_bytes),
      lx_backend_reserved_fraction(arch.lx.backend_reserved_fraction),
      segment_bytes(arch.address.segment_bytes),
      segments(arch.address.segments),
      program_segment(arch.address.program_segment),
      span_limit_bytes(arch.address.span_limit_bytes),
      topk_k_per_core(arch.sfu.topk_k_per_core) {}

Json ArchConfig::to_json() const {
  Json out;
  out["name"] = name;
  out["file"] = source_file;
  out["overrides"] = overrides;
  for (const auto& p : arch_params()) out["values"][p.path] = p.get(*this);
  return out;
}

ArchConfig load_arch(const std::string& path, const std::vector<std::string>& overrides) {
  std::string label;
  Json doc = load_document(path, label);
  return build(doc, label, overrides);
}

std::map<std::string, std::string> arch_sources(const std::string& path, const std::vector<std::string>& overrides) {
  std::string label;
  Json doc = load_document(path, label);
  build(doc, label, overrides);
  std::map<std::string, std::string> out;
  for (const auto& p : arch_params()) out[p.path] = (*locate(doc, p.path))["_source"].get<std::string>();
  return out;
}

std::vector<std::string> describe_arch(const std::string& path, const std::vector<std::string>& overrides) {
  std::string label;
  Json doc = load_document(path, label);
  const ArchConfig arch = build(doc, label, overrides);
  std::vector<std::string> lines;
  for (const auto& p : arch_params()) {
    const Json& leaf = *locate(doc, p.path);
    std::ostringstream line;
    const double v = p.get(arch);
    line << p.path << " = ";
    if (p.integer) {
      line << static_cast<int64_t>(v);
    } else {
      line << v;
    }
    if (leaf.contains("unit")) line << " " << leaf["unit"].get<std::string>();
    line << "  (" << leaf["_source"].get<std::string>() << ")";
    lines.push_back(line.str());
  }
  return lines;
}

namespace {

// An arch file in spyre.json's layout: each parameter's value and source from
// `leaf` ({value, _source}), in the table's order, grouped as the paths say.
std::string arch_file_text(const std::string& name, const std::string& description,
                           const std::function<std::pair<double, std::string>(const ArchParam&)>& leaf) {
  std::ostringstream out;
  out << "{\n  \"$schema\": " << Json(kSchemaFile).dump() << ",\n  \"name\": " << Json(name).dump()
      << ",\n  \"description\": " << Json(description).dump();
  std::string group;
  for (const auto& p : arch_params()) {
    const std::string g = group_of(p.path);
    if (g != group && !group.empty()) out << "\n  }";
    out << ",\n";
    if (g != group && !g.empty()) out << "  " << Json(g).dump() << ": {\n";
    const auto [value, source] = leaf(p);
    out << (g.empty() ? "  " : "    ") << Json(g.empty() ? std::string(p.path) : leaf_of(p.path)).dump()
        << ": {\"value\": " << value_text(p, value) << ", \"unit\": " << Json(p.unit).dump()
        << ", \"_source\": " << Json(source).dump() << "}";
    group = g;
  }
  if (!group.empty()) out << "\n  }";
  out << "\n}\n";
  return out.str();
}

}  // namespace

std::string builtin_arch_json() {
  return arch_file_text(kArchName, kArchDescription, [](const ArchParam& p) {
    return std::pair<double, std::string>{p.value, p.source};
  });
}

std::string arch_file_json(const std::string& path, const std::vector<std::string>& overrides,
                           const std::map<std::string, std::pair<double, std::string>>& replaced,
                           const std::string& description) {
  std::string label;
  Json doc = load_document(path, label);
  const ArchConfig arch = build(doc, label, overrides);
  std::vector<std::string> checked;
  for (const auto& [param, value_source] : replaced) {
    const ArchParam* p = find_arch_param(param);
    if (p == nullptr) fail(label, param, "unknown arch parameter (known: " + known_paths() + ")");
    checked.push_back(param + "=" + Json(value_source.first).dump());
  }
  load_arch(path, [&] {
    auto all = overrides;
    all.insert(all.end(), checked.begin(), checked.end());
    return all;
  }());  // the new values must pass every check an arch file gets
  const std::string name = doc.contains("name") && doc["name"].is_string() ? doc["name"].get<std::string>() : kArchName;
  return arch_file_text(name, description, [&](const ArchParam& p) {
    const auto it = replaced.find(p.path);
    if (it != replaced.end()) return it->second;
    return std::pair<double, std::string>{p.get(arch), (*locate(doc, p.path))["_source"].get<std::string>()};
  });
}

std::string arch_json_schema() {
  auto parameter = [](const ArchParam& p) {
    Json value = {{"type", p.integer ? "integer" : "number"}};
    value["minimum"] = p.integer ? Json(static_cast<int64_t>(p.min)) : Json(p.min);
    value["maximum"] = p.integer ? Json(static_cast<int64_t>(p.max)) : Json(p.max);
    return Json{
        {"type", "object"},
        {"description", "unit: " + std::string(p.unit)},
        {"properties", {{"value", value}, {"unit", {{"type", "string"}}}, {"_source", {{"$ref", "#/$defs/source"}}}}},
        {"required", {"value", "_source"}},
        {"additionalProperties", false}};
  };
  Json properties = {
      {"$schema", {{"type", "string"}}}, {"name", {{"type", "string"}}}, {"description", {{"type", "string"}}}};
  Json required = Json::array();
  for (const auto& p : arch_params()) {
    const std::string g = group_of(p.path);
    if (g.empty()) {
      properties[p.path] = parameter(p);
      required.push_back(p.path);
      continue;
    }
    if (!properties.contains(g)) {
      properties[g] = {{"type", "object"},
                       {"properties", Json::object()},
                       {"required", Json::array()},
                       {"additionalProperties", false}};
      required.push_back(g);
    }
    properties[g]["properties"][leaf_of(p.path)] = parameter(p);
    properties[g]["required"].push_back(leaf_of(p.path));
  }
  const Json schema = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", kSchemaFile},
      {"title", "spyre-sim arch config"},
      {"description",
       "A card for spyre-sim: every hardware parameter with its value and the source of that value. Generated from "
       "runtime/arch_params.cpp by `spyre-sim arch --schema`."},
      {"type", "object"},
      {"$defs", {{"source", {{"type", "string"}, {"minLength", 1}, {"description", "where the value comes from"}}}}},
      {"properties", properties},
      {"required", required},
      {"additionalProperties", false}};
  return schema.dump(2) + "\n";
}

std::vector<std::string> uncalibrated_overrides() {
  std::vector<std::string> out;
  for (const auto& p : arch_params()) {
    if (p.before_calibration) out.push_back(std::string(p.path) + "=" + value_text(p, *p.before_calibration));
  }
  return out;
}

}  // namespace spyre
