#include "studies/matmul_split.h"

#include <algorithm>
#include <tuple>

#include "compiler/compiler.h"
#include "compiler/program_writer.h"
#include "compiler/workloads.h"

namespace spyre::studies {

namespace {

constexpr int64_t kStickElements = 64;  // fp16 elements in a 128-byte stick

std::vector<int64_t> divisors(int64_t value, int64_t unit, int64_t at_most) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= at_most && d <= value; ++d) {
    if (value % d == 0 && (value / d) % unit == 0) out.push_back(d);
  }
  return out;
}

}  // namespace

std::string MatmulShape::text() const {
  return std::to_string(b) + "x" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::string MatmulSplit::text() const {
  return std::to_string(b) + "_" + std::to_string(m) + "_" + std::to_string(n) + "_" + std::to_string(k);
}

std::vector<MatmulSplit> matmul_split_candidates(const MatmulShape& shape, int64_t max_cores) {
  std::vector<MatmulSplit> out;
  for (const int64_t b : divisors(shape.b, 1, max_cores)) {
    for (const int64_t m : divisors(shape.m, 1, max_cores / b)) {
      for (const int64_t n : divisors(shape.n, kStickElements, max_cores / (b * m))) {
        for (const int64_t k : divisors(shape.k, kStickElements, max_cores / (b * m * n))) out.push_back({b, m, n, k});
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const MatmulSplit& x, const MatmulSplit& y) {
    return std::make_tuple(x.cores(), x.b, x.m, x.n, x.k) < std::make_tuple(y.cores(), y.b, y.m, y.n, y.k);
  });
  return out;
}

MatmulSplit compile_matmul(const MatmulShape& shape, const MatmulSplit* split, int64_t cores,
                           const DeviceLimits& device, const std::string& dir) {
  compiler::CompileOptions options;
  options.device = device;
  options.cores = static_cast<int>(split != nullptr ? split->cores() : cores);
  if (split != nullptr) {
    // The batchmatmul's iteration dims: x (batch), mb (rows), out (columns), in (reduction).
    std::string text;
    for (const auto& [dim, parts] :
         {std::pair<const char*, int64_t>{"x", split->b}, {"mb", split->m}, {"out", split->n}, {"in", split->k}}) {
      if (parts > 1) text += (text.empty() ? "" : ",") + std::string(dim) + ":" + std::to_string(parts);
    }
    if (!text.empty()) compiler::parse_split_override("c=" + text, options);
  }
  compiler::WorkloadParams params;
  params.dtype = compiler::DType::F16;
  params.shape = shape.batched() ? std::vector<int64_t>{shape.b, shape.m, shape.k, shape.n}
                                 : std::vector<int64_t>{shape.m, shape.k, shape.n};
  const compiler::Graph model = compiler::build_workload(shape.batched() ? "bmm" : "matmul", params);
  const compiler::Graph compiled = compiler::compile(model, options);
  compiler::write_program_dir(dir, compiler::program_files(compiled, compiler::resolve_options(options)));
  MatmulSplit used;
  for (const auto& op : compiled.ops) {
    if (op.type != "batchmatmul") continue;
    const auto parts = [&](const char* dim) {
      const auto it = op.splits.find(dim);
      return it == op.splits.end() ? int64_t{1} : it->second;
    };
    used = {parts("x"), parts("mb"), parts("out"), parts("in")};
  }
  return used;
}

}  // namespace spyre::studies
