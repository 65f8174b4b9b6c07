// torch-spyre's GreedyLayoutSolver (seed 000): walk the time steps in order;
// at each, free the buffers that died, then place each buffer born there:
// on top of an in-place parent alive at the previous step when it fits in the
// parent's slot, else at address 0, else above the high-water mark, else in
// the first gap between live allocations that fits. Decisions are final and
// local: nothing knows what comes later.

#include <algorithm>
#include <chrono>
#include <map>

#include "compiler/lx_solver.h"

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
      for (const auto& b : p.buffers) hi += b.size;
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
  LxPlan run(const LxProblem& p, int64_t capacity) const {
    LxPlan plan;
    plan.solver = name();
    plan.placements.assign(p.buffers.size(), {});
    // Live allocations: address -> (end address, owning buffer).
    struct Slot {
      int64_t end;
      int owner;
    };
    std::map<int64_t, Slot> live;
    std::map<int64_t, std::vector<int>> born;
    for (size_t b = 0; b < p.buffers.size(); ++b) born[p.buffers[b].lower].push_back(static_cast<int>(b));
    std::vector<int64_t> address(p.buffers.size(), -1);
    auto fits = [&](int64_t at, int64_t size) {
      if (at < 0 || at + size > capacity) return false;
      for (const auto& [a, s] : live) {
        if (a < at + size && at < s.end) return false;
      }
      return true;
    };
    for (const auto& [t, buffers] : born) {
      // Free every allocation whose owner died at or before t.
      for (auto it = live.begin(); it != live.end();) {
        it = p.buffers[static_cast<size_t>(it->second.owner)].upper <= t ? live.erase(it) : std::next(it);
      }
      for (int b : buffers) {
        const int64_t size = p.buffers[static_cast<size_t>(b)].size;
        int64_t at = -1;
        for (int parent : p.buffers[static_cast<size_t>(b)].in_place_parents) {
          const int64_t pa = address[static_cast<size_t>(parent)];
          auto slot = pa >= 0 ? live.find(pa) : live.end();
          if (slot == live.end() || slot->second.owner != parent || !may_share(p, parent, b)) continue;
          if (slot->second.end - pa >= size) {
            at = pa;
            live.erase(slot);  // the child takes the parent's slot over
            break;
          }
        }
        if (at < 0 && fits(0, size)) at = 0;
        if (at < 0) {
          int64_t high = 0;
          for (const auto& [a, s] : live) high = std::max(high, s.end);
          if (fits(high, size)) at = high;
        }
        if (at < 0) {
          int64_t cursor = 0;
          for (const auto& [a, s] : live) {
            if (a - cursor >= size && fits(cursor, size)) {
              at = cursor;
              break;
            }
            cursor = std::max(cursor, s.end);
          }
        }
        if (at < 0) continue;  // stays in HBM
        address[static_cast<size_t>(b)] = at;
        live[at] = {at + size, b};
        plan.placements[static_cast<size_t>(b)].push_back(
            {at, p.buffers[static_cast<size_t>(b)].lower, p.buffers[static_cast<size_t>(b)].upper});
      }
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<LxSolver> make_greedy_solver() { return std::make_unique<GreedySolver>(); }

}  // namespace spyre::compiler
