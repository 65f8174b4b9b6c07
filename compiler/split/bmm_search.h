#pragma once
// One batchmatmul of the graph as the matmul split search sees it
// (matmul_split.h): its iteration dims read as B x M x N x K (rows mb,
// columns out, reduction in, every other dim batch: an attention's batch and
// heads), the legal splits on the cores given, and the slices per iteration
// dim each split means. Shared by work distribution (--work-division model)
// and the LX chain scoring that may revise its pick.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/iteration_space.h"
#include "compiler/split/matmul_split.h"

namespace spyre::compiler {

struct BmmSearch {
  MatmulShape shape;
  std::vector<MatmulSplit> candidates;  // legal: span minimums kept, every part a whole number of split units
  std::vector<std::string> labels;      // the iteration dims, in order
  std::vector<int64_t> sizes;
  std::vector<size_t> batch_dims;  // indices into labels of the batch dims, innermost first

  // The op's slices per iteration dim for a split: a batch split spread over
  // the batch dims innermost first.
  std::vector<int64_t> slices(const MatmulSplit& split) const;
};

// No candidates when the op has a reduction dim other than `in`. `minimum`:
// the slices span reduction forces per dim.
BmmSearch bmm_search(const IterationSpace& space, const std::vector<int64_t>& units,
                     const std::vector<int64_t>& minimum, int cores);

// The slices the span limit forces on the op, per iteration dim (at least 1).
std::vector<int64_t> span_minimum(const Op& op, const IterationSpace& space);

// Sets the op's splits (every dim, 1 where unsplit) and cores.
void assign_splits(Op& op, const IterationSpace& space, const std::vector<int64_t>& slices);

}  // namespace spyre::compiler
