#include "compiler/split/bmm_search.h"

#include <numeric>

namespace spyre::compiler {

std::vector<int64_t> BmmSearch::slices(const MatmulSplit& split) const {
  std::vector<int64_t> out(labels.size(), 1);
  for (size_t i = 0; i < labels.size(); ++i)
    out[i] = labels[i] == "mb" ? split.m : labels[i] == "out" ? split.n : labels[i] == "in" ? split.k : 1;
  int64_t batch = split.b;  // b divides the product of the batch dims, so the gcds take all of it
  for (size_t i : batch_dims) {
    out[i] = std::gcd(batch, sizes[i]);
    batch /= out[i];
  }
  return out;
}

BmmSearch bmm_search(const IterationSpace& space, const std::vector<int64_t>& units,
                     const std::vector<int64_t>& minimum, int cores) {
  BmmSearch search;
  for (const auto& d : space.dims) {
    search.labels.push_back(d.label);
    search.sizes.push_back(d.size);
  }
  for (size_t i = space.dims.size(); i-- > 0;) {
    const auto& d = space.dims[i];
    if (d.label == "mb") {
      search.shape.m = d.size;
    } else if (d.label == "out") {
      search.shape.n = d.size;
    } else if (d.label == "in") {
      search.shape.k = d.size;
    } else if (d.reduction) {
      return search;
    } else {
      search.batch_dims.push_back(i);
      search.shape.b *= d.size;
    }
  }
  for (const MatmulSplit& s : matmul_split_candidates(search.shape, cores)) {
    const auto slices = search.slices(s);
    bool legal = true;
    for (size_t i = 0; i < slices.size(); ++i)
      legal = legal && slices[i] % minimum[i] == 0 && units[i] % slices[i] == 0;
    if (legal) search.candidates.push_back(s);
  }
  return search;
}

std::vector<int64_t> span_minimum(const Op& op, const IterationSpace& space) {
  std::vector<int64_t> minimum(space.dims.size(), 1);
  for (const auto& [label, n] : op.span_splits) minimum[static_cast<size_t>(space.find(label))] = n;
  return minimum;
}

void assign_splits(Op& op, const IterationSpace& space, const std::vector<int64_t>& slices) {
  op.splits.clear();
  op.cores = 1;
  for (size_t i = 0; i < slices.size(); ++i) {
    op.splits[space.dims[i].label] = slices[i];
    op.cores *= static_cast<int>(slices[i]);
  }
}

}  // namespace spyre::compiler
