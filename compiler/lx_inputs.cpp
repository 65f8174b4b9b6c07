#include "compiler/lx_inputs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "runtime/data_format.h"
#include "runtime/error.h"
#include "runtime/json_node.h"

namespace spyre::compiler {

namespace {

int64_t aligned(int64_t size, int64_t alignment) {
  return alignment > 1 ? (size + alignment - 1) / alignment * alignment : size;
}

LxProblem read_pattern(const JsonNode& root, LxProblem p) {
  struct TensorInfo {
    int64_t size;
    std::string kind;
  };
  std::map<std::string, TensorInfo> tensors;
  JsonNode list = root.at("tensors");
  for (size_t i = 0; i < list.size(); ++i) {
    JsonNode t = list.element(i);
    const std::string name = t.at("name").as_string();
    const std::string kind = t.find("kind") ? t.at("kind").as_string() : "intermediate";
    if (kind != "input" && kind != "output" && kind != "intermediate")
      t.at("kind").error("must be input, output or intermediate");
    const int64_t size = t.at("size").as_int();
    if (size <= 0) t.at("size").error("must be positive");
    if (!tensors.emplace(name, TensorInfo{aligned(size, p.alignment), kind}).second)
      t.at("name").error("tensor '" + name + "' listed twice");
  }
  JsonNode ops = root.at("ops");
  std::map<std::string, int> current;  // tensor -> its live value (buffer index)
  for (size_t o = 0; o < ops.size(); ++o) {
    JsonNode op = ops.element(o);
    const auto t = static_cast<int64_t>(o);
    const bool in_place = op.find("in_place") && op.at("in_place").raw().get<bool>();
    std::vector<int> last_reads;
    auto lookup = [&](const JsonNode& names, size_t k) -> const TensorInfo& {
      auto it = tensors.find(names.element(k).as_string());
      if (it == tensors.end()) names.element(k).error("unknown tensor '" + names.element(k).as_string() + "'");
      return it->second;
    };
    JsonNode inputs = op.at("inputs");
    for (size_t k = 0; k < inputs.size(); ++k) {
      const TensorInfo& info = lookup(inputs, k);
      if (info.kind != "intermediate") {
        p.fixed_hbm_bytes += info.size;
        continue;
      }
      auto v = current.find(inputs.element(k).as_string());
      if (v == current.end())
        inputs.element(k).error("intermediate '" + inputs.element(k).as_string() + "' is read before any op writes it");
      LxBuffer& b = p.buffers[static_cast<size_t>(v->second)];
      if (b.uses.back() != t) b.uses.push_back(t);
      b.upper = t + 1;
      last_reads.push_back(v->second);
    }
    JsonNode outputs = op.at("outputs");
    for (size_t k = 0; k < outputs.size(); ++k) {
      const TensorInfo& info = lookup(outputs, k);
      const std::string name = outputs.element(k).as_string();
      if (info.kind != "intermediate") {
        p.fixed_hbm_bytes += info.size;
        continue;
      }
      LxBuffer b;
      b.name = name;
      int versions = 0;
      for (const auto& x : p.buffers) versions += x.name == name || x.name.rfind(name + "#", 0) == 0 ? 1 : 0;
      if (versions > 0) b.name += "#" + std::to_string(versions + 1);
      b.size = info.size;
      b.lower = t;
      b.upper = t + 1;
      b.uses = {t};
      if (in_place) b.in_place_parents = last_reads;
      current[name] = static_cast<int>(p.buffers.size());
      p.buffers.push_back(b);
    }
  }
  // In-place parents must end where the child starts.
  for (auto& b : p.buffers) {
    std::vector<int> kept;
    for (int parent : b.in_place_parents) {
      if (p.buffers[static_cast<size_t>(parent)].upper == b.lower + 1) kept.push_back(parent);
    }
    b.in_place_parents = kept;
  }
  return p;
}

LxProblem read_buffer_list(const JsonNode& root, LxProblem p) {
  JsonNode list = root.at("buffers");
  std::map<std::string, int> index;
  for (size_t i = 0; i < list.size(); ++i) index[list.element(i).at("name").as_string()] = static_cast<int>(i);
  for (size_t i = 0; i < list.size(); ++i) {
    JsonNode node = list.element(i);
    LxBuffer b;
    b.name = node.at("name").as_string();
    b.size = aligned(node.at("size").as_int(), p.alignment);
    if (b.size <= 0) node.at("size").error("must be positive");
    b.uses = node.at("uses").as_int_list();
    if (b.uses.empty()) node.at("uses").error("a buffer needs at least one use");
    std::sort(b.uses.begin(), b.uses.end());
    b.uses.erase(std::unique(b.uses.begin(), b.uses.end()), b.uses.end());
    b.lower = b.uses.front();
    b.upper = b.uses.back() + 1;
    if (auto r = node.find("first_use_is_read")) b.first_use_is_read = r->raw().get<bool>();
    if (auto parents = node.find("in_place_parents")) {
      for (size_t k = 0; k < parents->size(); ++k) {
        JsonNode x = parents->element(k);
        const std::string name =
            x.raw().is_string() ? x.as_string() : list.element(static_cast<size_t>(x.as_int())).at("name").as_string();
        auto it = index.find(name);
        if (it == index.end()) x.error("no buffer named '" + name + "'");
        b.in_place_parents.push_back(it->second);
      }
    }
    p.buffers.push_back(b);
  }
  return p;
}

LxProblem read_csv(const std::string& path, LxProblem p) {
  std::ifstream in(path);
  if (!in) fail(path, "", "cannot open");
  std::string line;
  int row = 0;
  std::map<std::string, int> column;
  while (std::getline(in, line)) {
    ++row;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (column.empty()) {
      for (size_t c = 0; c < cells.size(); ++c) column[cells[c]] = static_cast<int>(c);
      for (const char* need : {"id", "lower", "upper", "size"}) {
        if (!column.count(need))
          fail(path, "line 1", std::string("no column '") + need + "' (expected id,lower,upper,size)");
      }
      continue;
    }
    auto number = [&](const char* name) {
      const size_t c = static_cast<size_t>(column.at(name));
      try {
        size_t used = 0;
        if (c >= cells.size()) throw std::invalid_argument("");
        const long long v = std::stoll(cells[c], &used);
        if (used != cells[c].size()) throw std::invalid_argument("");
        return static_cast<int64_t>(v);
      } catch (const std::exception&) {
        fail(path, "line " + std::to_string(row), std::string("'") + name + "' is not an integer");
      }
    };
    LxBuffer b;
    b.name = cells[static_cast<size_t>(column.at("id"))];
    b.lower = number("lower");
    b.upper = number("upper");
    b.size = aligned(number("size"), p.alignment);
    if (b.upper <= b.lower) fail(path, "line " + std::to_string(row), "upper must be greater than lower");
    if (b.size <= 0) fail(path, "line " + std::to_string(row), "size must be positive");
    p.buffers.push_back(b);
  }
  if (p.buffers.empty()) fail(path, "", "no buffers");
  return p;
}

}  // namespace

LxProblem read_lx_problem(const std::string& path, int64_t capacity, int64_t alignment) {
  LxProblem p;
  p.source = path;
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".csv") {
    p.alignment = alignment > 0 ? alignment : 1;
    p.capacity = capacity;
    if (p.capacity <= 0) {
      static const std::regex named(R"(.*\.(\d+)\.csv)");
      std::smatch m;
      const std::string file = std::filesystem::path(path).filename().string();
      if (!std::regex_match(file, m, named))
        fail(path, "--capacity", "give the capacity (the file name does not say it: NAME.CAPACITY.csv)");
      p.capacity = std::stoll(m[1]);
    }
    return read_csv(path, p);
  }
  const Json doc = read_json_file(path);
  JsonNode root(doc, path, "$");
  if (!root.is_object()) root.error("expected a JSON object");
  p.alignment = alignment > 0 ? alignment : (root.find("alignment") ? root.at("alignment").as_int() : kStickBytes);
  if (p.alignment <= 0) root.at("alignment").error("must be positive");
  p.capacity = capacity > 0 ? capacity : root.at("capacity").as_int();
  if (p.capacity <= 0) root.at("capacity").error("must be positive");
  if (root.find("buffers")) return read_buffer_list(root, p);
  if (root.find("tensors") && root.find("ops")) return read_pattern(root, p);
  root.error("neither a pattern (tensors and ops) nor a buffer list (buffers)");
}

}  // namespace spyre::compiler
