// torch-spyre's FirstFitLayoutSolver and BestFitLayoutSolver (seed 000; its
// gap_solver.py as of main in 2026). Every buffer is seen up front and placed
// once, in priority order:
//   - score = (life - in-place discount) / (uses + write bonus), lowest
//     first, ties by the shorter life, then input order. The discount is 0.25
//     for having in-place parents and 0.25 for being one (a pair's bytes serve
//     two values); the write bonus is 0.5 when the first use writes the value
//     (pinned, it also saves that write to HBM). Few, dense uses win;
//   - parents before their in-place children (a topological order keeping
//     the score order where it is free).
// Each buffer gets the free address ranges during its life. First it tries
// its in-place parents' slots: with its parents not counted as taken, a gap
// that holds a whole parent slot and the child puts the child on that parent
// (the first such parent it declares). Otherwise the parents count as taken
// like everything else live, and the buffer goes to the first gap that holds
// it from an aligned start (first fit) or the one leaving the fewest bytes
// (best fit, first of equals). Sizes are not padded: only start addresses are
// aligned. A buffer larger than the capacity takes no part.

#include <algorithm>
#include <chrono>

#include "compiler/lx/lx_solver.h"

namespace spyre::compiler {

namespace {

struct Gap {
  int64_t begin, end;
};

// The order torch-spyre's fit solvers place buffers in (indices of `eligible`).
std::vector<int> fit_order(const LxProblem& p, const std::vector<int>& eligible) {
  std::vector<bool> is_parent(p.buffers.size(), false);
  for (int b : eligible) {
    for (int parent : p.buffers[static_cast<size_t>(b)].in_place_parents) is_parent[static_cast<size_t>(parent)] = true;
  }
  auto score = [&](int b) {
    const LxBuffer& x = p.buffers[static_cast<size_t>(b)];
    const double discount =
        (x.in_place_parents.empty() ? 0.0 : 0.25) + (is_parent[static_cast<size_t>(b)] ? 0.25 : 0.0);
    const double weight = static_cast<double>(x.uses.size()) + (x.first_use_is_read ? 0.0 : 0.5);
    return (static_cast<double>(x.upper - x.lower) - discount) / weight;
  };
  std::vector<int> by_score = eligible;
  std::stable_sort(by_score.begin(), by_score.end(), [&](int a, int b) {
    const double sa = score(a), sb = score(b);
    if (sa != sb) return sa < sb;
    return p.buffers[static_cast<size_t>(a)].upper - p.buffers[static_cast<size_t>(a)].lower <
           p.buffers[static_cast<size_t>(b)].upper - p.buffers[static_cast<size_t>(b)].lower;
  });
  // Inputs are acyclic (checked where they are read), so every buffer comes out.
  return parents_first(p, by_score);
}

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
    std::vector<int> eligible;
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      if (p.buffers[b].size <= capacity) eligible.push_back(static_cast<int>(b));
    }
    std::vector<int64_t> address(p.buffers.size(), -1);
    std::vector<int> placed;
    for (int b : fit_order(p, eligible)) {
      const LxBuffer& buf = p.buffers[static_cast<size_t>(b)];
      auto is_declared_parent = [&](int o) {
        return std::find(buf.in_place_parents.begin(), buf.in_place_parents.end(), o) != buf.in_place_parents.end();
      };
      // Address ranges taken during b's life, with and without its parents.
      std::vector<Gap> taken, taken_but_parents;
      for (int o : placed) {
        const LxBuffer& other = p.buffers[static_cast<size_t>(o)];
        if (other.upper <= buf.lower || buf.upper <= other.lower) continue;
        const Gap g{address[static_cast<size_t>(o)], address[static_cast<size_t>(o)] + other.size};
        taken.push_back(g);
        if (!is_declared_parent(o)) taken_but_parents.push_back(g);
      }
      int64_t at = -1;
      // Gaps (parents not taken) that hold a whole parent slot, each with the
      // first parent it holds.
      std::vector<Gap> parent_gaps;
      std::vector<int64_t> parent_address;
      for (const Gap& g : free_gaps(taken_but_parents, capacity)) {
        for (int parent : buf.in_place_parents) {
          const int64_t pa = address[static_cast<size_t>(parent)];
          if (pa >= 0 && g.begin <= pa && pa + p.buffers[static_cast<size_t>(parent)].size <= g.end) {
            parent_gaps.push_back(g);
            parent_address.push_back(pa);
            break;
          }
        }
      }
      const int chosen_parent_gap = pick(parent_gaps, buf.size, p.alignment);
      if (chosen_parent_gap >= 0) {
        at = parent_address[static_cast<size_t>(chosen_parent_gap)];
      } else {
        const std::vector<Gap> gaps = free_gaps(taken, capacity);
        const int chosen = pick(gaps, buf.size, p.alignment);
        if (chosen >= 0) at = align_up(gaps[static_cast<size_t>(chosen)].begin, p.alignment);
      }
      if (at < 0) continue;  // stays in HBM
      placed.push_back(b);
      address[static_cast<size_t>(b)] = at;
      plan.placements[static_cast<size_t>(b)].push_back({at, buf.lower, buf.upper});
    }
    plan.solve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return plan;
  }

 private:
  // The gap a buffer of `size` bytes goes to (its index), or -1.
  int pick(const std::vector<Gap>& gaps, int64_t size, int64_t alignment) const {
    int chosen = -1;
    int64_t least_waste = 0;
    for (size_t k = 0; k < gaps.size(); ++k) {
      const int64_t at = align_up(gaps[k].begin, alignment);
      if (at + size > gaps[k].end) continue;
      if (!best_) return static_cast<int>(k);
      const int64_t waste = gaps[k].end - at - size;
      if (chosen < 0 || waste < least_waste) {
        chosen = static_cast<int>(k);
        least_waste = waste;
      }
    }
    return chosen;
  }

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
