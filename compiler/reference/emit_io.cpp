#include "compiler/reference/emit_io.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "compiler/ir/model_ops.h"
#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/numerics.h"
#include "runtime/op_registry.h"
#include "runtime/tolerance.h"
#include "runtime/user_files.h"

namespace fs = std::filesystem;

namespace spyre::compiler {

namespace {

// Tensors some op needs in a domain, by its registry row's input domain: the
// operand of a log/sqrt/rsqrt/reciprocal and the divisor of a div positive,
// the factors of a prod near 1.
struct InputDomains {
  std::set<int> positive, near_one;
  std::map<int, int64_t> row_index;  // a gather's or scatter's index: rows 0 .. n-1 of its table or input
};
InputDomains input_domains(const Graph& g) {
  InputDomains out;
  for (const auto& op : g.ops) {
    // pow by a fraction or a negative exponent: sqrt, rsqrt or a reciprocal.
    if (op.type == "pow" && op.attrs.value("exponent", 1.0) < 1.0) out.positive.insert(op.inputs[0]);
    const ModelOp* m = find_model_op(op.type);  // its registry row, aliases (truediv, add_) included
    if (m && (m->kind == ModelOpKind::Gather || m->kind == ModelOpKind::Scatter)) {
      // The rows along the dim the index runs along (embedding's: dim 0).
      const Shape& self = g.tensors[static_cast<size_t>(op.inputs[0])].shape;
      const bool along = m->kind == ModelOpKind::Scatter || (op.type == "index_select" && self.size() > 1);
      out.row_index[op.inputs[1]] =
          self[along ? static_cast<size_t>(indexed_dim(self, op.attrs, op.type, g.describe(op))) : 0];
    }
    const OpInfo* d = m ? m->device : nullptr;
    if (!d) continue;
    if (d->domain == InputDomain::PositiveFirst) out.positive.insert(op.inputs[0]);
    if (d->domain == InputDomain::NonzeroSecond && op.inputs.size() == 2) out.positive.insert(op.inputs[1]);
    if (d->domain == InputDomain::NearOne) out.near_one.insert(op.inputs[0]);
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

// A uniform value in [-1, 1) for element `i` of the stream `stream`: a
// counter-based generator (SplitMix64's finalizer over seed, stream and
// index), so any element is computed on its own and a large weight is made
// on every core at once. 24 random bits, as a float holds.
float uniform_element(uint64_t seed, uint64_t stream, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + (stream + 1) * 0xBF58476D1CE4E5B9ULL + i * 0x94D049BB133111EBULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * 0x1p-23f - 1.0f;
}

// Every input and weight in the graph's order, each its own stream of the
// seed: `take` is given each tensor's values as they are made in `v` (one
// buffer for all, left holding the last). Made in parallel blocks; the values do not depend on how.
void generate_inputs(const Graph& g, uint64_t seed,
                     const std::function<void(const Tensor&, const std::vector<float>&)>& take, std::vector<float>& v) {
  const InputDomains domains = input_domains(g);
  const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& tensor = g.tensors[t];
    if (tensor.role != Role::Input && tensor.role != Role::Weight) continue;
    float scale = 1.0f, shift = 0.0f;
    if (tensor.dtype == DType::I32) {
      scale = 64.0f;  // integers in (-64, 64): indices and positions, exact in every float dtype
    } else if (domains.near_one.count(static_cast<int>(t))) {
      scale = 0.25f;  // (0.75, 1.25): a product of 256 factors is e^(-2.7 +- 2.3)
      shift = 1.0f;
    } else if (domains.positive.count(static_cast<int>(t))) {
      scale = 0.75f;  // (0.25, 1.75)
      shift = 1.0f;
    } else if (tensor.role == Role::Weight && tensor.shape.size() >= 2) {
      scale = 1.0f / std::sqrt(static_cast<float>(tensor.shape.back()));
    } else if (tensor.role == Role::Weight) {
      scale = 0.5f;  // norm weights and biases around 1
      shift = 1.0f;
    }
    v.resize(static_cast<size_t>(tensor.elements()));
    const DataFormat format = device_format(tensor.dtype);
    const auto rows = domains.row_index.find(static_cast<int>(t));
    auto fill = [&](size_t from, size_t to) {
      for (size_t i = from; i < to; ++i) v[i] = round_to_format(format, shift + scale * uniform_element(seed, t, i));
      if (rows == domains.row_index.end()) return;
      const auto n = static_cast<float>(rows->second);
      for (size_t i = from; i < to; ++i)
        v[i] = std::min(n - 1, std::floor((uniform_element(seed, t, i) + 1.0f) * 0.5f * n));
    };
    constexpr size_t kParallelFrom = size_t{1} << 20;
    if (v.size() < kParallelFrom || threads == 1) {
      fill(0, v.size());
    } else {
      std::vector<std::thread> workers;
      const size_t part = (v.size() + threads - 1) / threads;
      for (unsigned w = 0; w < threads; ++w)
        workers.emplace_back(fill, std::min(v.size(), w * part), std::min(v.size(), (w + 1) * part));
      for (auto& w : workers) w.join();
    }
    take(tensor, v);
  }
}

fs::path inputs_file(const fs::path& dir, const Tensor& t) { return dir / "inputs" / (t.name + ".npy"); }

}  // namespace

HostValues random_inputs(const Graph& g, uint64_t seed) {
  HostValues values;
  std::vector<float> buffer;
  generate_inputs(
      g, seed, [&](const Tensor& t, const std::vector<float>& v) { values[t.name] = v; }, buffer);
  return values;
}

std::string stage_io(const Graph& g, uint64_t seed, const std::string& dir) {
  const fs::path staged = fs::path(without_trailing_slash(dir) + ".partial");
  std::error_code ec;
  fs::remove_all(staged, ec);
  try {
    for (const char* sub : {"inputs", "reference"}) {
      fs::create_directories(staged / sub, ec);
      if (ec) fail((staged / sub).string(), "", "cannot create directory: " + ec.message());
    }
    // Half precision holds every DLFloat16 value in range, so fp16 inputs stay exact.
    std::vector<float> buffer;  // the generator's, then the evaluations' storage for inputs
    generate_inputs(
        g, seed,
        [&](const Tensor& t, const std::vector<float>& v) {
          write_npy(inputs_file(staged, t).string(), t.shape, v,
                    t.dtype == DType::F16   ? "f2"
                    : t.dtype == DType::I32 ? "i4"
                                            : "f4");
        },
        buffer);
    const InputSource read_back = [&](const Tensor& t, std::vector<float>& values) {
      NpyArray array;
      array.values = std::move(values);
      read_npy_into(inputs_file(staged, t).string(), array);
      values = std::move(array.values);
    };
    std::vector<std::string> outputs;
    for (const auto& t : g.tensors) {
      if (t.role == Role::Output) outputs.push_back(t.name);
    }
    const HostValues reference = evaluate_graph(g, read_back, StoredPrecision::Fp32, outputs, &buffer);
    const HostValues device_stored = evaluate_graph(g, read_back, StoredPrecision::Device, outputs, &buffer);
    std::map<std::string, std::pair<ValueDtype, Tolerance>> tolerances;
    for (const auto& t : g.tensors) {
      if (t.role != Role::Output) continue;
      write_npy((staged / "reference" / (t.name + ".npy")).string(), t.visible_shape(), reference.at(t.name), "f4");
      tolerances[t.name] = deserved_tolerance(t, reference.at(t.name), device_stored.at(t.name));
    }
    write_tolerance_file((staged / "reference" / kToleranceFile).string(), tolerances);
  } catch (...) {
    fs::remove_all(staged, ec);
    throw;
  }
  return staged.string();
}

int commit_io(const std::string& staged, const std::string& dir) {
  int files = 0;
  std::error_code ec;
  for (const char* sub : {"inputs", "reference"}) {
    const fs::path to = fs::path(dir) / sub;
    fs::create_directories(to, ec);
    if (ec) fail(to.string(), "", "cannot create directory: " + ec.message());
    for (const auto& entry : fs::directory_iterator(fs::path(staged) / sub)) {
      fs::rename(entry.path(), to / entry.path().filename(), ec);
      if (ec) fail((to / entry.path().filename()).string(), "", "cannot move the staged file: " + ec.message());
      files += entry.path().extension() == ".npy";
    }
  }
  fs::remove_all(staged, ec);
  return files;
}

}  // namespace spyre::compiler
