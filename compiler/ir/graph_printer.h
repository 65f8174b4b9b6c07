#pragma once
// The graph as text, one line per tensor and per op, with every decision the
// passes have recorded so far: `spyre-sim compile --print-after PASS`.
//
//   %3 y.max: float16 (1, 1024) intermediate  layout [d0, d1(stick)]  LX@0
//   #2 max(%0) -> %3  splits out=4  cores 4  bundle 0

#include <string>

#include "compiler/ir/graph.h"

namespace spyre::compiler {

std::string print_graph(const Graph& graph);

}  // namespace spyre::compiler
