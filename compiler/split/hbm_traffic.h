#pragma once
// The HBM bytes a compiled program moves, predicted from the decisions: every
// device op reads each HBM input once per core (the core's slice, sticks
// padded) and writes each distinct output slice once (slices several cores
// reduce into are combined on the reduce-sum ring first). LX-resident operands move nothing.
// The card model counts the same bytes when it runs the program
// (tests/e2e/compiled_test.cpp holds the two equal for every workload),
// except that the backend reads a batched matmul's weight slice again for
// each pass of 8 rows: there the card moves more.

#include <cstdint>

#include "compiler/ir/graph.h"

namespace spyre::compiler {

int64_t predicted_hbm_bytes(const Graph& graph);
int64_t predicted_hbm_bytes(const Graph& graph, const Op& op);  // one device op (0 for views)

}  // namespace spyre::compiler
