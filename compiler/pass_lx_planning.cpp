// LX scratchpad planning slot (torch-spyre's scratchpad_planning, run after
// work division when LX planning is on). The LX planning issue fills it;
// until then every tensor lives in HBM and kernels stream their operands
// through the backend's staging space, as torch-spyre does with LX planning off.

#include "compiler/passes.h"

namespace spyre::compiler {

void plan_scratchpad(Graph& graph, const CompileOptions& /*options*/) {
  for (auto& t : graph.tensors) t.in_lx = false;
}

}  // namespace spyre::compiler
