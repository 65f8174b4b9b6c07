#include "compiler/lx/lx_inputs.h"

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
#include "runtime/user_files.h"

namespace spyre::compiler {

namespace {

const char* const kSizeRange = "must be positive and at most 2^48 bytes";
const char* const kStepRange = "must be steps in [0, 2^40]";

bool read_bool(const JsonNode& node) {
  if (!node.raw().is_boolean()) node.error("must be true or false");
  return node.raw().get<bool>();
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
    if (size <= 0 || size > kMaxLxBytes) t.at("size").error(kSizeRange);
    if (!tensors.emplace(name, TensorInfo{size, kind}).second) t.at("name").error("tensor '" + name + "' listed twice");
  }
  JsonNode ops = root.at("ops");
  std::map<std::string, int> current;  // tensor -> its live value (buffer index)
  for (size_t o = 0; o < ops.size(); ++o) {
    JsonNode op = ops.element(o);
    const auto t = static_cast<int64_t>(o);
    const bool in_place = op.find("in_place") && read_bool(op.at("in_place"));
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
  // An op's output may take over only inputs it can legally replace.
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    std::vector<int> kept;
    for (int parent : p.buffers[b].in_place_parents) {
      if (in_place_violation(p, static_cast<int>(b), parent).empty()) kept.push_back(parent);
    }
    p.buffers[b].in_place_parents = kept;
  }
  return p;
}

// torch-spyre's LifetimeBoundBuffer list, with the checks its solvers make
// before planning: uses strictly increasing (one entry per op touching the
// buffer), and every declared in-place pair legal (in_place_violation).
LxProblem read_buffer_list(const JsonNode& root, LxProblem p) {
  JsonNode list = root.at("buffers");
  if (!list.is_array()) list.error("expected an array of buffers");
  std::map<std::string, int> index;
  for (size_t i = 0; i < list.size(); ++i) {
    JsonNode node = list.element(i);
    LxBuffer b;
    b.name = node.at("name").as_string();
    if (!index.emplace(b.name, static_cast<int>(i)).second)
      node.at("name").error("buffer '" + b.name + "' listed twice");
    b.size = node.at("size").as_int();
    if (b.size <= 0 || b.size > kMaxLxBytes) node.at("size").error(kSizeRange);
    b.uses = node.at("uses").as_int_list();
    if (b.uses.empty()) node.at("uses").error("a buffer needs at least one use");
    for (int64_t u : b.uses) {
      if (u < 0 || u > kMaxLxStep) node.at("uses").error(kStepRange);
    }
    for (size_t u = 1; u < b.uses.size(); ++u) {
      if (b.uses[u] <= b.uses[u - 1])
        node.at("uses").error("must be strictly increasing (one step per op that touches the buffer), but " +
                              std::to_string(b.uses[u]) + " follows " + std::to_string(b.uses[u - 1]));
    }
    b.lower = b.uses.front();
    b.upper = b.uses.back() + 1;
    if (auto r = node.find("first_use_is_read")) b.first_use_is_read = read_bool(*r);
    p.buffers.push_back(b);
  }
  for (size_t i = 0; i < list.size(); ++i) {
    auto parents = list.element(i).find("in_place_parents");
    if (!parents) continue;
    if (!parents->is_array()) parents->error("expected a list of buffer names");
    for (size_t k = 0; k < parents->size(); ++k) {
      JsonNode x = parents->element(k);
      int parent = -1;
      if (x.is_string()) {
        auto it = index.find(x.as_string());
        if (it == index.end()) x.error("no buffer named '" + x.as_string() + "'");
        parent = it->second;
      } else {
        const int64_t at = x.as_int();
        if (at < 0 || at >= static_cast<int64_t>(list.size()))
          x.error("buffer index " + std::to_string(at) + " is not in [0, " + std::to_string(list.size()) + ")");
        parent = static_cast<int>(at);
      }
      auto& declared = p.buffers[i].in_place_parents;
      if (std::find(declared.begin(), declared.end(), parent) != declared.end())
        x.error("'" + p.buffers[static_cast<size_t>(parent)].name + "' listed twice");
      declared.push_back(parent);
      const std::string why = in_place_violation(p, static_cast<int>(i), parent);
      if (!why.empty()) x.error(why);
    }
  }
  if (const int b = in_place_cycle(p); b >= 0)
    list.element(static_cast<size_t>(b)).at("in_place_parents").error("in-place parents form a cycle");
  return p;
}

LxProblem read_csv(const std::string& path, LxProblem p) {
  std::ifstream in = open_input_file(path);
  std::string line;
  int row = 0;
  std::map<std::string, int> column;
  size_t header_cells = 0;
  while (std::getline(in, line)) {
    ++row;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (column.empty()) {
      for (size_t c = 0; c < cells.size(); ++c) column[cells[c]] = static_cast<int>(c);
      header_cells = cells.size();
      for (const char* need : {"id", "lower", "upper", "size"}) {
        if (!column.count(need))
          fail(path, "line 1", std::string("no column '") + need + "' (expected id,lower,upper,size)");
      }
      continue;
    }
    if (cells.size() < header_cells) {
      fail(path, "line " + std::to_string(row),
           std::to_string(cells.size()) + " cells, the header has " + std::to_string(header_cells));
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
    b.size = number("size");
    const std::string line_name = "line " + std::to_string(row);
    if (b.lower < 0 || b.upper > kMaxLxStep) fail(path, line_name, std::string("'lower' and 'upper' ") + kStepRange);
    if (b.upper <= b.lower) fail(path, line_name, "upper must be greater than lower");
    if (b.size <= 0 || b.size > kMaxLxBytes) fail(path, line_name, std::string("'size' ") + kSizeRange);
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
      const std::string digits = m[1];
      p.capacity = digits.size() <= 15 ? std::stoll(digits) : kMaxLxBytes + 1;
    }
    if (p.capacity <= 0 || p.capacity > kMaxLxBytes) fail(path, "capacity", kSizeRange);
    return read_csv(path, p);
  }
  const Json doc = read_json_file(path);
  JsonNode root(doc, path, "$");
  if (!root.is_object()) root.error("expected a JSON object");
  p.alignment = alignment > 0 ? alignment : (root.find("alignment") ? root.at("alignment").as_int() : kStickBytes);
  if (p.alignment <= 0 || p.alignment > kMaxLxBytes) fail(path, "alignment", kSizeRange);
  p.capacity = capacity > 0 ? capacity : root.at("capacity").as_int();
  if (p.capacity <= 0 || p.capacity > kMaxLxBytes) fail(path, "capacity", kSizeRange);
  if (root.find("buffers")) return read_buffer_list(root, p);
  if (root.find("tensors") && root.find("ops")) return read_pattern(root, p);
  root.error("neither a pattern (tensors and ops) nor a buffer list (buffers)");
}

}  // namespace spyre::compiler
