// LX planning inputs (patterns, buffer lists, MiniMalloc CSVs) and the three
// torch-spyre solvers on what they accept: every plan they return must pass
// validate_plan.

#include <memory>

#include "compiler/lx/lx_inputs.h"
#include "compiler/lx/lx_solver.h"
#include "fuzz_support.h"
#include "runtime/text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spyre;
  // JSON documents start with a brace; anything else is read as a CSV.
  const bool json = size > 0 && data[0] == '{';
  fuzz::expect_clean_outcome([&] {
    const compiler::LxProblem problem =
        compiler::read_lx_problem(fuzz::scratch_file(data, size, json ? ".json" : ".4096.csv"), 0, 0);
    if (problem.buffers.size() > 512) return;  // the solvers' time, not their correctness, beyond this
    for (const char* name : {"greedy", "firstfit", "bestfit"}) {
      const auto plan = compiler::make_lx_solver(name)->solve(problem, {});
      const auto violations = compiler::validate_plan(problem, plan);
      if (!violations.empty()) fuzz::finding(std::string(name) + " gave an invalid plan: " + join(violations, "; "));
    }
  });
  return 0;
}
