#pragma once
// Solvers for the LX planning problem behind one interface, selectable by
// name like torch-spyre's config.layout_solver:
//   greedy    torch-spyre's GreedyLayoutSolver: chronological, in-place reuse,
//             then address 0, above the high-water mark, then gaps;
//   firstfit  torch-spyre's FirstFitLayoutSolver: all buffers up front, by
//             priority score (few, dense uses first), the first free gap;
//   bestfit   the same, the gap leaving the smallest remainder;
//   exact     a complete search over canonical placements (lx_solver_exact.cpp);
//   best      the strongest: exact, plus live-range splitting (a buffer that
//             does not fit through a dormant stretch is evicted and reloaded
//             from HBM when that moves fewer bytes).
// exact and best are never worse in HBM bytes than the first three.
// Every solver leaves a buffer it cannot fit in HBM. Problems are assumed
// checked (in_place_violation, in_place_cycle, uses strictly increasing).

#include <memory>
#include <string>
#include <vector>

#include "compiler/lx/lx_problem.h"

namespace spyre::compiler {

struct LxSolveOptions {
  // Strip packing: place every buffer, as low as the solver can, ignoring the
  // capacity (benchmarks report the height reached).
  bool place_all = false;
  // With place_all: search below the capacity too, for the lowest height.
  bool minimize_height = false;
  // Searches stop after this many nodes or this much time and return the best
  // plan they have (marked incomplete).
  int64_t node_limit = 50'000'000;
  // best: may cut a buffer's live range (evict while dormant, reload later).
  // Off where the consumer cannot insert the store and reload.
  bool allow_eviction = true;
  double time_limit_s = 30;
};

class LxSolver {
 public:
  virtual ~LxSolver() = default;
  virtual std::string name() const = 0;
  virtual LxPlan solve(const LxProblem& problem, const LxSolveOptions& options) const = 0;
};

// Throws SpyreError naming the known solvers for an unknown name.
std::unique_ptr<LxSolver> make_lx_solver(const std::string& name);
std::vector<std::string> lx_solver_names();

// Shared by the heuristics: with place_all, the capacity is unbounded.
int64_t effective_capacity(const LxProblem& problem, const LxSolveOptions& options);

std::unique_ptr<LxSolver> make_greedy_solver();
std::unique_ptr<LxSolver> make_fit_solver(bool best_fit);
std::unique_ptr<LxSolver> make_exact_solver(bool split);

}  // namespace spyre::compiler
