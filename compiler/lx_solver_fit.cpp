// torch-spyre's FirstFitLayoutSolver and BestFitLayoutSolver (seed 000): see
// every buffer up front, order them by start time with ties broken by the
// shorter life, and give each a free gap of the address space during its
// whole life — the free space left by every placed buffer it overlaps in
// time, plus its in-place parents' addresses, which it may land on. First fit
// takes the lowest gap that fits, best fit the one leaving the smallest
// remainder.

#include <algorithm>
#include <chrono>
#include <numeric>

#include "compiler/lx_solver.h"

namespace spyre::compiler {

namespace {

struct Gap {
  int64_t begin, end;
};

class FitSolver : public LxSolver {
 public:
  explicit FitSolver(bool best) : best_(best) {}
  std::string name() const override { return best_ ? "bestfit" : "firstfit"; }

  LxPlan solve(const LxProblem& p, const LxSolveOptions& options) const override {
    const auto start = std::chrono::steady_clock::now();
    const int64_t capacity = effective_capacity(p, options);
    LxPlan plan;
    plan.solver = name();
    plan.placements.assign(p.buffers.size(), {});
    std::vector<int> order(p.buffers.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const LxBuffer &x = p.buffers[static_cast<size_t>(a)], &y = p.buffers[static_cast<size_t>(b)];
      if (x.lower != y.lower) return x.lower < y.lower;
      return x.upper - x.lower < y.upper - y.lower;
    });
    std::vector<int64_t> address(p.buffers.size(), -1);
    std::vector<int> placed;
    for (int b : order) {
      const LxBuffer& buf = p.buffers[static_cast<size_t>(b)];
      // Address ranges taken during b's life, with and without in-place parents.
      std::vector<Gap> taken, taken_but_parents;
      for (int o : placed) {
        const LxBuffer& other = p.buffers[static_cast<size_t>(o)];
        if (other.upper <= buf.lower || buf.upper <= other.lower) continue;
        const Gap g{address[static_cast<size_t>(o)], address[static_cast<size_t>(o)] + other.size};
        taken.push_back(g);
        if (!may_share(p, o, b)) taken_but_parents.push_back(g);
      }
      std::vector<Gap> candidates = free_gaps(taken, capacity);
      for (int parent : buf.in_place_parents) {
        const int64_t pa = address[static_cast<size_t>(parent)];
        if (pa < 0 || !may_share(p, parent, b)) continue;
        for (const Gap& g : free_gaps(taken_but_parents, capacity)) {
          if (g.begin <= pa && pa < g.end) candidates.push_back({pa, g.end});
        }
      }
      int64_t chosen = -1, remainder = -1;
      for (const Gap& g : candidates) {
        if (g.end - g.begin < buf.size) continue;
        const int64_t left = g.end - g.begin - buf.size;
        const bool better =
            chosen < 0 || (best_ ? left < remainder || (left == remainder && g.begin < chosen) : g.begin < chosen);
        if (better) {
          chosen = g.begin;
          remainder = left;
        }
      }
      if (chosen < 0) continue;  // stays in HBM
      address[static_cast<size_t>(b)] = chosen;
      placed.push_back(b);
      plan.placements[static_cast<size_t>(b)].push_back({chosen, buf.lower, buf.upper});
    }
    plan.solve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return plan;
  }

 private:
  static std::vector<Gap> free_gaps(std::vector<Gap> taken, int64_t capacity) {
    std::sort(taken.begin(), taken.end(), [](const Gap& a, const Gap& b) { return a.begin < b.begin; });
    std::vector<Gap> gaps;
    int64_t cursor = 0;
    for (const Gap& t : taken) {
      if (t.begin > cursor) gaps.push_back({cursor, t.begin});
      cursor = std::max(cursor, t.end);
    }
    if (cursor < capacity) gaps.push_back({cursor, capacity});
    return gaps;
  }

  bool best_;
};

}  // namespace

std::unique_ptr<LxSolver> make_fit_solver(bool best_fit) { return std::make_unique<FitSolver>(best_fit); }

}  // namespace spyre::compiler
