#include "compiler/emit_io.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/numerics.h"
#include "runtime/tolerance.h"

namespace fs = std::filesystem;

namespace spyre::compiler {

namespace {

// Tensors some op needs positive: the operand of a log/sqrt/rsqrt/reciprocal
// and the divisor of a div.
std::set<int> positive_tensors(const Graph& g) {
  std::set<int> out;
  for (const auto& op : g.ops) {
    if (op.type == "log" || op.type == "sqrt" || op.type == "rsqrt" || op.type == "reciprocal")
      out.insert(op.inputs[0]);
    if (op.type == "div" && op.inputs.size() == 2) out.insert(op.inputs[1]);
  }
  return out;
}

// The dtype default for one output, with atol widened to twice the largest
// excess of the device-precision evaluation over the reference.
std::pair<ValueDtype, Tolerance> deserved_tolerance(const Tensor& output, const std::vector<float>& reference,
                                                    const std::vector<float>& device_stored) {
  const ValueDtype dtype = output_value_dtype(device_format(output.dtype), "f4");
  Tolerance t = dtype_tolerance(dtype, max_finite_abs(reference));
  double excess = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    if (!std::isfinite(reference[i]) || !std::isfinite(device_stored[i])) continue;
    const double e = reference[i];
    excess = std::max(excess, std::fabs(device_stored[i] - e) - t.rtol * std::fabs(e));
  }
  if (2 * excess > t.atol) {
    t.atol = 2 * excess;
    t.basis +=
        "; atol widened to twice the largest excess of the graph evaluated with " + dtype.name + " storage between ops";
  }
  return {dtype, t};
}

}  // namespace

HostValues random_inputs(const Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const std::set<int> positive = positive_tensors(g);
  HostValues values;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& tensor = g.tensors[t];
    if (tensor.role != Role::Input && tensor.role != Role::Weight) continue;
    float scale = 1.0f, shift = 0.0f;
    if (positive.count(static_cast<int>(t))) {
      scale = 0.75f;  // (0.25, 1.75)
      shift = 1.0f;
    } else if (tensor.role == Role::Weight && tensor.shape.size() >= 2) {
      scale = 1.0f / std::sqrt(static_cast<float>(tensor.shape.back()));
    } else if (tensor.role == Role::Weight) {
      scale = 0.5f;  // norm weights and biases around 1
      shift = 1.0f;
    }
    std::vector<float> v(static_cast<size_t>(tensor.elements()));
    const DataFormat format = device_format(tensor.dtype);
    for (auto& x : v) x = round_to_format(format, shift + scale * uniform(rng));
    values[tensor.name] = std::move(v);
  }
  return values;
}

int write_io(const Graph& g, const HostValues& inputs, const HostValues& all, const std::string& dir) {
  const HostValues device_stored = evaluate_graph(g, inputs, StoredPrecision::Device);
  std::map<std::string, std::pair<ValueDtype, Tolerance>> tolerances;
  std::error_code ec;
  for (const char* sub : {"inputs", "reference"}) {
    fs::create_directories(fs::path(dir) / sub, ec);
    if (ec) fail((fs::path(dir) / sub).string(), "", "cannot create directory: " + ec.message());
  }
  int files = 0;
  for (const auto& t : g.tensors) {
    if (t.role == Role::Input || t.role == Role::Weight) {
      // Half precision holds every DLFloat16 value in range, so fp16 inputs stay exact.
      write_npy((fs::path(dir) / "inputs" / (t.name + ".npy")).string(), t.shape, inputs.at(t.name),
                t.dtype == DType::F16 ? "f2" : "f4");
      ++files;
    } else if (t.role == Role::Output) {
      write_npy((fs::path(dir) / "reference" / (t.name + ".npy")).string(), t.visible_shape(), all.at(t.name), "f4");
      tolerances[t.name] = deserved_tolerance(t, all.at(t.name), device_stored.at(t.name));
      ++files;
    }
  }
  write_tolerance_file((fs::path(dir) / "reference" / kToleranceFile).string(), tolerances);
  return files;
}

}  // namespace spyre::compiler
