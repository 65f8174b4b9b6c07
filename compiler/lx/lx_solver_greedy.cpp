// torch-spyre's GreedyLayoutSolver (seed 000; its greedy_solver.py as of main
// in 2026): walk the steps where some buffer is born or dies; at each, free
// the buffers that died, then place each buffer born there, in input order:
//   1. on an in-place parent still live (it dies at the next step), when the
//      child is no larger and no other child took that parent's slot — the
//      parent keeps its slot until it dies, so the bytes above the child stay
//      taken for the handover step;
//   2. at address 0 when everything live lies at or above the child's size;
//   3. at the high-water mark, rounded up to the alignment, when that fits;
//   4. in the first gap between live allocations (merged, so a parent and its
//      child count as one) that holds it from an aligned start.
// Sizes are not padded: only start addresses are aligned. A buffer larger
// than the capacity never takes part. Decisions are final and local: nothing
// knows what comes later.

#include <algorithm>
#include <chrono>
#include <set>

#include "compiler/lx/lx_solver.h"

namespace spyre::compiler {

namespace {

class GreedySolver : public LxSolver {
 public:
  std::string name() const override { return "greedy"; }

  LxPlan solve(const LxProblem& p, const LxSolveOptions& options) const override {
    const auto start = std::chrono::steady_clock::now();
    LxPlan plan;
    if (options.place_all) {
      // The capacity steers greedy's choices (above the high-water mark only
      // while that fits), so its height is the smallest capacity at which it
      // places every buffer, found by bisection.
      const int64_t unit = std::max<int64_t>(p.alignment, 1);
      int64_t lo = peak_live_bytes(p) / unit * unit, hi = 0;
      for (const auto& b : p.buffers) hi += align_up(b.size, unit);
      plan = run(p, hi);
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / unit / 2 * unit;
        LxPlan attempt = run(p, mid);
        if (all_placed(attempt)) {
          plan = std::move(attempt);
          hi = mid;
        } else {
          lo = mid + unit;
        }
      }
      plan.note = "smallest capacity at which greedy places every buffer";
    } else {
      plan = run(p, p.capacity);
    }
    plan.solve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return plan;
  }

 private:
  struct Live {
    int64_t begin, end;
    int owner;
  };

  // Where a buffer of `size` bytes goes among the live allocations, or -1.
  static int64_t free_block(const std::vector<Live>& live, int64_t size, int64_t capacity, int64_t alignment) {
    if (size > capacity) return -1;
    int64_t lowest = capacity, highest = 0;
    for (const Live& l : live) {
      lowest = std::min(lowest, l.begin);
      highest = std::max(highest, l.end);
    }
    if (live.empty() || lowest >= size) return 0;
    const int64_t above = align_up(highest, alignment);
    if (above + size <= capacity) return above;
    std::vector<std::pair<int64_t, int64_t>> spans;
    for (const Live& l : live) spans.emplace_back(l.begin, l.end);
    std::sort(spans.begin(), spans.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (const auto& s : spans) {
      if (!merged.empty() && s.first <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, s.second);
      } else {
        merged.push_back(s);
      }
    }
    for (size_t k = 0; k + 1 < merged.size(); ++k) {
      const int64_t at = align_up(merged[k].second, alignment);
      if (merged[k + 1].first - at >= size) return at;
    }
    return -1;
  }

  LxPlan run(const LxProblem& p, int64_t capacity) const {
    LxPlan plan;
    plan.solver = name();
    plan.placements.assign(p.buffers.size(), {});
    std::set<int64_t> steps;
    for (const auto& b : p.buffers) {
      if (b.size > capacity) continue;
      steps.insert(b.lower);
      steps.insert(b.upper);
    }
    std::vector<Live> live;
    std::vector<bool> handed_over(p.buffers.size(), false);  // a parent's slot went to one child
    for (int64_t t : steps) {
      std::erase_if(live, [&](const Live& l) { return p.buffers[static_cast<size_t>(l.owner)].upper == t; });
      for (size_t b = 0; b < p.buffers.size(); ++b) {
        const LxBuffer& buf = p.buffers[b];
        if (buf.lower != t || buf.size > capacity) continue;
        int64_t at = -1;
        for (int parent : buf.in_place_parents) {
          if (handed_over[static_cast<size_t>(parent)]) continue;
          auto slot = std::find_if(live.begin(), live.end(), [&](const Live& l) { return l.owner == parent; });
          if (slot == live.end() || buf.size > slot->end - slot->begin) continue;
          at = slot->begin;
          handed_over[static_cast<size_t>(parent)] = true;
          break;
        }
        if (at < 0) at = free_block(live, buf.size, capacity, p.alignment);
        if (at < 0) continue;  // stays in HBM
        live.push_back({at, at + buf.size, static_cast<int>(b)});
        plan.placements[b].push_back({at, buf.lower, buf.upper});
      }
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<LxSolver> make_greedy_solver() { return std::make_unique<GreedySolver>(); }

}  // namespace spyre::compiler
