#include "compiler/lx/lx_solver.h"

#include <limits>

#include "runtime/error.h"
#include "runtime/text.h"

namespace spyre::compiler {

std::vector<std::string> lx_solver_names() { return {"greedy", "firstfit", "bestfit", "exact", "best"}; }

std::unique_ptr<LxSolver> make_lx_solver(const std::string& name) {
  if (name == "greedy") return make_greedy_solver();
  if (name == "firstfit") return make_fit_solver(false);
  if (name == "bestfit") return make_fit_solver(true);
  if (name == "exact") return make_exact_solver(false);
  if (name == "best") return make_exact_solver(true);
  fail("", "--solver " + name, "unknown solver (" + join(lx_solver_names(), ", ") + ")");
}

int64_t effective_capacity(const LxProblem& problem, const LxSolveOptions& options) {
  return options.place_all ? std::numeric_limits<int64_t>::max() / 4 : problem.capacity;
}

}  // namespace spyre::compiler
