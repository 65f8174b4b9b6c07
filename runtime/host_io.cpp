#include "runtime/host_io.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <optional>

#include "runtime/error.h"
#include "runtime/text.h"

namespace fs = std::filesystem;

namespace spyre {

bool shapes_compatible(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  auto squeeze = [](const std::vector<int64_t>& s) {
    std::vector<int64_t> out;
    for (int64_t d : s) {
      if (d != 1) out.push_back(d);
    }
    return out;
  };
  return squeeze(a) == squeeze(b);
}

std::vector<int64_t> whole_shape(const HostTensor& tensor, int cards) {
  std::vector<int64_t> shape = tensor.shape;
  if (tensor.shard_dim >= 0) shape.at(static_cast<size_t>(tensor.shard_dim)) *= cards;
  return shape;
}

std::vector<float> card_part(const HostTensor& tensor, const std::vector<float>& whole, int cards, int card) {
  if (tensor.shard_dim < 0) return whole;
  // C order: [outer][the sharded dim][inner]; card c takes rows [c * n, (c + 1) * n) of the middle.
  const auto d = static_cast<size_t>(tensor.shard_dim);
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < d; ++i) outer *= tensor.shape[i];
  for (size_t i = d + 1; i < tensor.shape.size(); ++i) inner *= tensor.shape[i];
  const int64_t n = tensor.shape[d];
  std::vector<float> part;
  part.reserve(static_cast<size_t>(outer * n * inner));
  for (int64_t o = 0; o < outer; ++o) {
    const auto first = whole.begin() + static_cast<std::ptrdiff_t>((o * cards + card) * n * inner);
    part.insert(part.end(), first, first + static_cast<std::ptrdiff_t>(n * inner));
  }
  return part;
}

namespace {

// Every non-constant input of the program from `find` (nullopt: missing);
// `source` names where an input came from in errors, `label` in the list of
// what is missing.
std::map<std::string, std::vector<float>> bind_inputs(
    const Program& program, const std::string& where,
    const std::function<std::optional<NpyArray>(const HostTensor&)>& find,
    const std::function<std::string(const HostTensor&)>& source, const std::string& missing_what,
    const std::function<std::string(const HostTensor&)>& label) {
  std::map<std::string, std::vector<float>> inputs;
  std::string missing;
  for (const auto& t : program.host_tensors) {
    if (!t.is_input || t.constant) continue;  // constants come with the program
    std::optional<NpyArray> array = find(t);
    if (!array) {
      missing += (missing.empty() ? "" : ", ") + label(t) + " " + shape_text(t.host_shape());
      continue;
    }
    const std::vector<int64_t> want = whole_shape(t, program.cards);
    if (!shapes_compatible(array->shape, want)) {
      fail(source(t), "",
           "shape " + shape_text(array->shape) + " does not match " + t.name + "'s shape " +
               shape_text(t.shard_dim >= 0 ? want : t.host_shape()) +
               (t.shard_dim >= 0 ? " (the whole tensor; each of the " + std::to_string(program.cards) +
                                       " cards holds a part along dim " + std::to_string(t.shard_dim) + ")"
                                 : " (dims " + join(t.dims, ", ") + ")"));
    }
    inputs[t.name] = std::move(array->values);
  }
  if (!missing.empty()) fail(where, "", "missing " + missing_what + ": " + missing);
  return inputs;
}

}  // namespace

std::map<std::string, NpyArray> read_input_files(const Program& program, const std::string& dir) {
  if (!fs::is_directory(dir)) fail(dir, "", "inputs directory does not exist");
  std::map<std::string, NpyArray> files;
  for (const auto& t : program.host_tensors) {
    const fs::path path = fs::path(dir) / (t.name + ".npy");
    if (t.is_input && !t.constant && fs::exists(path)) files.emplace(t.name, read_npy(path.string()));
  }
  return files;
}

std::map<std::string, std::vector<float>> read_host_inputs(const Program& program, const std::string& dir,
                                                           const std::map<std::string, NpyArray>& files) {
  return bind_inputs(
      program, dir,
      [&](const HostTensor& t) -> std::optional<NpyArray> {
        const auto it = files.find(t.name);
        if (it == files.end()) return std::nullopt;
        return it->second;
      },
      [&](const HostTensor& t) { return (fs::path(dir) / (t.name + ".npy")).string(); }, "input file(s)",
      [](const HostTensor& t) { return t.name + ".npy"; });
}

std::map<std::string, std::vector<float>> bind_host_inputs(const Program& program,
                                                           const std::map<std::string, NpyArray>& arrays,
                                                           const std::string& where) {
  std::vector<std::string> names;
  for (const auto& t : program.host_tensors) {
    if (t.is_input && !t.constant) names.push_back(t.name);
  }
  for (const auto& [name, array] : arrays) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      fail(where, name, "the program has no such input (its inputs: " + join(names, ", ") + ")");
  }
  return bind_inputs(
      program, where,
      [&](const HostTensor& t) -> std::optional<NpyArray> {
        const auto it = arrays.find(t.name);
        if (it == arrays.end()) return std::nullopt;
        return it->second;
      },
      [&](const HostTensor& t) { return where + "['" + t.name + "']"; }, "input(s)",
      [](const HostTensor& t) { return t.name; });
}

Comparison compare_values(const HostTensor& tensor, const std::vector<float>& got, const NpyArray& expected,
                          const Tolerance& tolerance) {
  Comparison c;
  c.name = tensor.name;
  c.tolerance = tolerance;
  const double rtol = tolerance.rtol, atol = tolerance.atol;
  c.elements = static_cast<int64_t>(got.size());
  if (!shapes_compatible(expected.shape, tensor.host_shape())) {
    fail("", tensor.name,
         "reference shape " + shape_text(expected.shape) + " does not match the output shape " +
             shape_text(tensor.host_shape()));
  }
  double worst_excess = -1;
  for (int64_t i = 0; i < c.elements; ++i) {
    const float g = got[i], e = expected.values[i];
    bool ok;
    double err;
    if (std::isnan(e) || std::isnan(g)) {
      ok = std::isnan(e) && std::isnan(g);
      err = ok ? 0 : INFINITY;
    } else if (std::isinf(e) || std::isinf(g)) {
      ok = g == e;
      err = ok ? 0 : INFINITY;
    } else {
      err = std::fabs(static_cast<double>(g) - e);
      ok = err <= atol + rtol * std::fabs(static_cast<double>(e));
    }
    const double excess = err - (atol + rtol * std::fabs(static_cast<double>(e)));
    if (!ok) ++c.mismatches;
    if (excess > worst_excess || c.worst_index < 0) {
      worst_excess = excess;
      c.worst_index = i;
      c.got = g;
      c.expected = e;
      c.abs_error = err;
    }
  }
  c.passed = c.mismatches == 0;
  if (c.worst_index >= 0) {
    std::vector<int64_t> coords(tensor.host_shape().size());
    int64_t rest = c.worst_index;
    for (size_t d = tensor.host_shape().size(); d-- > 0;) {
      coords[d] = rest % tensor.host_shape()[d];
      rest /= tensor.host_shape()[d];
    }
    c.worst_coords = shape_text(coords);
  }
  return c;
}

}  // namespace spyre
