#pragma once
// The op registry as people read it: `spyre-sim ops` prints it, docs/ops.md
// holds its markdown (a test checks the two agree).

#include <string>
#include <vector>

#include "runtime/op_registry.h"

namespace spyre {

// One aligned line per op, after a header line.
std::vector<std::string> describe_ops(const std::vector<const OpInfo*>& ops = all_ops());
// The same as a markdown table.
std::string ops_markdown(const std::vector<const OpInfo*>& ops = all_ops());

}  // namespace spyre
