#pragma once
// torch-spyre's matmul planner (torch_spyre/_inductor/work_division.py,
// cost_model_matmul_division, on main since 2026-06-03; read at bdc905f): an
// analytic cost per core split of a batchmatmul — the PT's MACs derated when a
// core's rows fill few 8-row passes, the HBM bytes with a penalty when more
// than 8 cores share a broadcast operand, the partial sums of a K split, and
// soft penalties (idle cores, too few row slices, wide column tiles, value-
// matmul geometry) — whose cheapest split replaces the default rule's unless
// it uses fewer cores. `--work-division torch-spyre` runs it, so the compiler
// makes torch-spyre's decisions; its constants are torch-spyre's, not spyre-
// sim's arch (they model torch-spyre's choice, not the card).

#include <cstdint>
#include <vector>

#include "compiler/split/matmul_split.h"

namespace spyre::compiler {

// The planner's estimate for one split, in microseconds (+infinity when it
// uses no core or more than max_cores); N and K are counted in whole sticks. shared_weight: the right-hand operand
// is one weight every batch reads (a projection), as against a true batched
// matmul whose every batch has its own.
double torch_spyre_matmul_cost(const MatmulShape& shape, const MatmulSplit& split, int64_t max_cores,
                               bool shared_weight);

// The planner's pick among candidates (indices into them): the cheapest, of
// equal costs the first in torch-spyre's order (increasing b, m, n, k);
// candidates.size() when none is finite.
size_t torch_spyre_matmul_pick(const MatmulShape& shape, const std::vector<MatmulSplit>& candidates, int64_t max_cores,
                               bool shared_weight);

}  // namespace spyre::compiler
