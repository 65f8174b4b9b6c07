#include "compiler/lx/lx_problem.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>

namespace spyre::compiler {

namespace {

bool is_parent(const LxBuffer& child, int parent) {
  return std::find(child.in_place_parents.begin(), child.in_place_parents.end(), parent) !=
         child.in_place_parents.end();
}

}  // namespace

std::string in_place_violation(const LxProblem& p, int child, int parent) {
  const LxBuffer& c = p.buffers[static_cast<size_t>(child)];
  const LxBuffer& x = p.buffers[static_cast<size_t>(parent)];
  if (child == parent) return "a buffer cannot be its own in-place parent";
  if (x.upper != c.lower + 1)
    return "in-place parent '" + x.name + "' ends at step " + std::to_string(x.upper) + " (last use " +
           std::to_string(x.upper - 1) + "), so its child must start at " + std::to_string(x.upper - 1) + ", not " +
           std::to_string(c.lower);
  const bool read_after_write = x.uses.size() > 1 && x.uses.back() > x.uses.front();
  if (!x.first_use_is_read && !read_after_write)
    return "in-place parent '" + x.name + "' is computed and never read (one use), so it has nothing to hand over";
  if (c.size > x.size)
    return "in-place child '" + c.name + "' (" + std::to_string(c.size) + " B) is larger than its parent '" + x.name +
           "' (" + std::to_string(x.size) + " B)";
  return "";
}

std::vector<int> parents_first(const LxProblem& p, const std::vector<int>& buffers) {
  // Kahn's algorithm; among the ready buffers the earliest in `buffers` goes first.
  std::vector<int> rank(p.buffers.size(), -1), waiting(p.buffers.size(), 0);
  std::vector<std::vector<int>> children(p.buffers.size());
  for (size_t r = 0; r < buffers.size(); ++r) rank[static_cast<size_t>(buffers[r])] = static_cast<int>(r);
  for (int b : buffers) {
    for (int parent : p.buffers[static_cast<size_t>(b)].in_place_parents) {
      if (rank[static_cast<size_t>(parent)] < 0) continue;
      children[static_cast<size_t>(parent)].push_back(b);
      ++waiting[static_cast<size_t>(b)];
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;  // ranks
  for (int b : buffers) {
    if (waiting[static_cast<size_t>(b)] == 0) ready.push(rank[static_cast<size_t>(b)]);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int b = buffers[static_cast<size_t>(ready.top())];
    ready.pop();
    order.push_back(b);
    for (int c : children[static_cast<size_t>(b)]) {
      if (--waiting[static_cast<size_t>(c)] == 0) ready.push(rank[static_cast<size_t>(c)]);
    }
  }
  return order;
}

int in_place_cycle(const LxProblem& p) {
  std::vector<int> all(p.buffers.size());
  std::iota(all.begin(), all.end(), 0);
  const std::vector<int> order = parents_first(p, all);
  if (order.size() == all.size()) return -1;
  std::vector<bool> ordered(p.buffers.size(), false);
  for (int b : order) ordered[static_cast<size_t>(b)] = true;
  return static_cast<int>(std::find(ordered.begin(), ordered.end(), false) - ordered.begin());
}

bool may_share(const LxProblem& p, int a, int b) {
  const LxBuffer& x = p.buffers[static_cast<size_t>(a)];
  const LxBuffer& y = p.buffers[static_cast<size_t>(b)];
  return (is_parent(y, a) && y.lower == x.upper - 1) || (is_parent(x, b) && x.lower == y.upper - 1);
}

std::vector<std::string> validate_plan(const LxProblem& p, const LxPlan& plan) {
  std::vector<std::string> errors;
  if (plan.placements.size() != p.buffers.size()) {
    errors.push_back("the plan has " + std::to_string(plan.placements.size()) + " entries for " +
                     std::to_string(p.buffers.size()) + " buffers");
    return errors;
  }
  struct Piece {
    int buffer;
    LxPlacement at;
  };
  std::vector<Piece> pieces;
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const LxBuffer& buf = p.buffers[b];
    for (const auto& pl : plan.placements[b]) {
      const std::string who = "buffer '" + buf.name + "' at " + std::to_string(pl.address) + " [" +
                              std::to_string(pl.lower) + ", " + std::to_string(pl.upper) + ")";
      if (pl.address < 0 || pl.address + buf.size > p.capacity)
        errors.push_back(who + " lies outside [0, " + std::to_string(p.capacity) + ")");
      if (p.alignment > 0 && pl.address % p.alignment != 0)
        errors.push_back(who + " is not " + std::to_string(p.alignment) + "-byte aligned");
      if (pl.lower < buf.lower || pl.upper > buf.upper || pl.lower >= pl.upper)
        errors.push_back(who + " is outside the buffer's life [" + std::to_string(buf.lower) + ", " +
                         std::to_string(buf.upper) + ")");
      pieces.push_back({static_cast<int>(b), pl});
    }
    // A split buffer's pieces must not overlap each other in time.
    auto sorted = plan.placements[b];
    std::sort(sorted.begin(), sorted.end(),
              [](const LxPlacement& x, const LxPlacement& y) { return x.lower < y.lower; });
    for (size_t i = 1; i < sorted.size(); ++i) {
      if (sorted[i].lower < sorted[i - 1].upper)
        errors.push_back("buffer '" + buf.name + "' has two placements live at step " +
                         std::to_string(sorted[i].lower));
    }
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& x, const Piece& y) { return x.at.lower < y.at.lower; });
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (size_t j = i + 1; j < pieces.size() && pieces[j].at.lower < pieces[i].at.upper; ++j) {
      const Piece &x = pieces[i], &y = pieces[j];
      if (x.buffer == y.buffer) continue;
      const int64_t sx = p.buffers[static_cast<size_t>(x.buffer)].size,
                    sy = p.buffers[static_cast<size_t>(y.buffer)].size;
      if (x.at.address >= y.at.address + sy || y.at.address >= x.at.address + sx) continue;
      // An in-place child takes over its parent's bytes at the op that hands them over.
      const int64_t overlap_lo = std::max(x.at.lower, y.at.lower), overlap_hi = std::min(x.at.upper, y.at.upper);
      if (may_share(p, x.buffer, y.buffer) && x.at.address == y.at.address && overlap_hi - overlap_lo == 1) continue;
      errors.push_back("buffers '" + p.buffers[static_cast<size_t>(x.buffer)].name + "' and '" +
                       p.buffers[static_cast<size_t>(y.buffer)].name + "' overlap in LX at step " +
                       std::to_string(overlap_lo));
    }
  }
  return errors;
}

int64_t peak_address(const LxPlan& plan, const LxProblem& p) {
  int64_t peak = 0;
  for (size_t b = 0; b < plan.placements.size(); ++b) {
    for (const auto& pl : plan.placements[b]) peak = std::max(peak, pl.address + p.buffers[b].size);
  }
  return peak;
}

bool all_placed(const LxPlan& plan) {
  for (const auto& pl : plan.placements) {
    if (pl.empty()) return false;
  }
  return true;
}

int64_t plan_hbm_bytes(const LxProblem& p, const LxPlan& plan) {
  int64_t bytes = p.fixed_hbm_bytes + plan.spill_bytes;
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const LxBuffer& buf = p.buffers[b];
    const auto& pls = b < plan.placements.size() ? plan.placements[b] : std::vector<LxPlacement>{};
    auto in_lx = [&](int64_t t) {
      for (const auto& pl : pls) {
        if (pl.lower <= t && t < pl.upper) return true;
      }
      return false;
    };
    if (buf.uses.empty()) {
      if (pls.empty()) bytes += buf.size;
      continue;
    }
    for (size_t u = 0; u < buf.uses.size(); ++u) {
      if (!in_lx(buf.uses[u]) || (u == 0 && buf.first_use_is_read)) bytes += buf.size;
    }
  }
  return bytes;
}

int64_t split_traffic(const LxBuffer& buffer, const std::vector<LxPlacement>& placements) {
  int64_t bytes = 0;
  const LxPlacement* producer = nullptr;
  for (const auto& pl : placements) {
    if (pl.lower == buffer.lower) {
      producer = &pl;
    } else {
      bytes += buffer.size;  // reload
    }
  }
  // Produced in LX but read later from HBM or reloaded: stored before it leaves.
  if (producer != nullptr && !buffer.first_use_is_read) {
    const bool needed_after =
        std::any_of(buffer.uses.begin(), buffer.uses.end(), [&](int64_t t) { return t >= producer->upper; });
    if (needed_after) bytes += buffer.size;
  }
  return bytes;
}

int64_t peak_live_bytes(const LxProblem& p) {
  std::map<int64_t, int64_t> delta;
  for (const auto& b : p.buffers) {
    delta[b.lower] += b.size;
    delta[b.upper] -= b.size;
  }
  int64_t live = 0, peak = 0;
  for (const auto& [t, d] : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace spyre::compiler
