#include "compiler/split/matmul_split.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace spyre::compiler {

namespace {

constexpr int64_t kStickElements = 64;  // fp16 elements in a 128-byte stick

// Splits of `units` up to at_most: its divisors (1 always).
std::vector<int64_t> divisors(int64_t units, int64_t at_most) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= at_most && d <= std::max<int64_t>(units, 1); ++d) {
    if (units % d == 0) out.push_back(d);
  }
  return out;
}

// A matmul's N splits over its sticks, the last one padded if partial (as
// torch-spyre counts them); K, reduced, only over whole sticks (a padded K
// stays whole: coordinate masking does not cross cores).
int64_t n_units(int64_t n) { return (n + kStickElements - 1) / kStickElements; }
int64_t k_units(int64_t k) { return k % kStickElements == 0 ? k / kStickElements : 1; }

}  // namespace

std::string MatmulShape::text() const {
  return std::to_string(b) + "x" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::string MatmulSplit::text() const {
  return std::to_string(b) + "_" + std::to_string(m) + "_" + std::to_string(n) + "_" + std::to_string(k);
}

std::vector<MatmulSplit> matmul_split_candidates(const MatmulShape& shape, int64_t max_cores) {
  std::vector<MatmulSplit> out;
  for (const int64_t b : divisors(shape.b, max_cores)) {
    for (const int64_t m : divisors(shape.m, max_cores / b)) {
      for (const int64_t n : divisors(n_units(shape.n), max_cores / (b * m))) {
        for (const int64_t k : divisors(k_units(shape.k), max_cores / (b * m * n))) out.push_back({b, m, n, k});
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const MatmulSplit& x, const MatmulSplit& y) {
    return std::make_tuple(x.cores(), x.b, x.m, x.n, x.k) < std::make_tuple(y.cores(), y.b, y.m, y.n, y.k);
  });
  return out;
}

}  // namespace spyre::compiler
