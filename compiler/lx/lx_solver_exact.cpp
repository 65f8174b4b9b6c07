// The exact LX solver: a depth-first search over canonical placements, in the
// spirit of MiniMalloc (Moffitt, ASPLOS 2023; its published parameter list
// names the techniques) but of this project's design and code.
//
// Canonical placements: any plan can be turned into one where buffers, taken
// in order of address, each sit either at 0 or on top of a buffer placed
// before them that overlaps them in time (let every buffer fall as far as it
// can). So the search places buffers one at a time in non-decreasing address
// order, each exactly on what is below it; the choice is only which buffer
// comes next. Time is cut into sections where the set of live buffers does
// not change; per section the search keeps the "floor" (top of the highest
// placed buffer) and the bytes still to place.
//
// Pruning and ordering:
//   - spatial inference: in every section, the lowest address anything still
//     to come can take there — the floor, the last address placed, and the
//     lowest support of the buffers still to come that cross it — plus the
//     bytes still to place there must fit the capacity;
//   - dominance: placing a buffer at or above the top some buffer still to
//     come would reach on its present support (it would fit entirely in space
//     that otherwise stays empty) is never better, so candidates stop there;
//   - a buffer whose support is below the last address placed needs a buffer
//     still to come under it; with none left, the state is dead;
//   - symmetry: buffers at one address with disjoint lives go in one order;
//   - decomposition: buffers still to place that fall into groups with
//     disjoint lives are independent problems, searched one after the other
//     without backtracking between them;
//   - failed states (buffers left and floors) are remembered;
//   - candidates at equal addresses go by a static order: buffers in the most
//     crowded sections first, then by area, then by width; searches restart
//     with other orders of the same keys when one runs long.
// In-place pairs add one candidate address: the child on its parent.
//
// With the capacity bounding LX and not every buffer fitting, the search
// chooses which to leave in HBM: drop sets are tried in order of the HBM
// traffic they cost (best first), so the first that packs is optimal.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <numeric>
#include <queue>
#include <random>
#include <thread>
#include <unordered_set>

#include "compiler/lx/lx_solver.h"

namespace spyre::compiler {

namespace {

using Clock = std::chrono::steady_clock;

struct Budget {
  int64_t nodes = 0, node_limit = 0;
  Clock::time_point deadline;
  // In a portfolio: this search's place in the portfolio's sequence, and the
  // earliest place that has answered; a later search stops, an earlier one
  // runs on (its answer would come first on one thread).
  int64_t sequence = 0;
  const std::atomic<int64_t>* answered = nullptr;
  bool exhausted = false;
  bool spend() {
    if (exhausted) return false;
    if (++nodes > node_limit ||
        ((nodes & 255) == 0 && (Clock::now() > deadline || (answered && answered->load() < sequence))))
      exhausted = true;
    return !exhausted;
  }
};

// The portfolio, alternately handed to two threads: (T)otal of the most
// crowded section the buffer spans, (A)rea, (W)idth of its life, (C)ount of
// sections it spans, (O)verlapping buffers; each descending.
const char* const kOrders[] = {"TWA", "TW", "TA", "TCA", "TC", "OTA"};

// One packing search over a subset of the buffers at a given capacity.
class Packer {
 public:
  Packer(const LxProblem& p, const std::vector<int>& subset, int64_t capacity, Budget& budget, const std::string& order)
      : p_(p), ids_(subset), capacity_(capacity), budget_(budget) {
    const size_t n = ids_.size();
    std::vector<int64_t> points;
    for (int b : ids_) {
      points.push_back(buf(b).lower);
      points.push_back(buf(b).upper);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    const size_t sections = points.empty() ? 0 : points.size() - 1;
    first_.resize(n);
    last_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      first_[i] = static_cast<int>(std::lower_bound(points.begin(), points.end(), buf(ids_[i]).lower) - points.begin());
      last_[i] = static_cast<int>(std::lower_bound(points.begin(), points.end(), buf(ids_[i]).upper) - points.begin());
    }
    floor_.assign(sections, 0);
    remaining_.assign(sections, 0);
    low_.assign(sections, 0);
    parents_.resize(n);
    std::vector<int> local(p.buffers.size(), -1);
    for (size_t i = 0; i < n; ++i) local[static_cast<size_t>(ids_[i])] = static_cast<int>(i);
    for (size_t i = 0; i < n; ++i) {
      for (int parent : buf(ids_[i]).in_place_parents) {
        if (local[static_cast<size_t>(parent)] >= 0 && may_share(p, parent, ids_[i]))
          parents_[i].push_back(local[static_cast<size_t>(parent)]);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      for (int s = own_first(static_cast<int>(i)); s < last_[i]; ++s)
        remaining_[static_cast<size_t>(s)] += size(static_cast<int>(i));
    }
    overlaps_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        if (i != j && first_[i] < last_[j] && first_[j] < last_[i]) overlaps_[i].push_back(static_cast<int>(j));
      }
    }
    base_.assign(n, 0);
    address_.assign(n, -1);
    for (size_t i = 0; i < n; ++i) unplaced_overlaps_.push_back(static_cast<int>(overlaps_[i].size()));
    // Buffers left crossing each boundary between sections: where none do,
    // the problem falls apart in time.
    cuts_.assign(sections, 0);
    for (size_t i = 0; i < n; ++i) {
      for (int s = first_[i]; s + 1 < last_[i]; ++s) ++cuts_[static_cast<size_t>(s)];
    }
    std::mt19937_64 rng(12345);
    for (size_t i = 0; i < n; ++i) zobrist_.push_back(rng());
    for (size_t s = 0; s < sections; ++s) section_key_.push_back(rng());
    order_ = order;
    rank_.assign(n, 0);
  }

  // True when every buffer of the subset was placed within the capacity.
  bool run() {
    std::vector<int> all(ids_.size());
    std::iota(all.begin(), all.end(), 0);
    rank_members(all);
    return search(all, 0, -1);
  }
  std::vector<int64_t> addresses() const {
    std::vector<int64_t> out(p_.buffers.size(), -1);
    for (size_t i = 0; i < ids_.size(); ++i) out[static_cast<size_t>(ids_[i])] = address_[i];
    return out;
  }

 private:
  const LxBuffer& buf(int b) const { return p_.buffers[static_cast<size_t>(b)]; }
  int64_t size(int i) const { return buf(ids_[static_cast<size_t>(i)]).size; }
  // An in-place child may need no room of its own in the section it shares.
  int own_first(int i) const {
    return parents_[static_cast<size_t>(i)].empty() ? first_[static_cast<size_t>(i)]
                                                    : first_[static_cast<size_t>(i)] + 1;
  }
  bool placed(int i) const { return address_[static_cast<size_t>(i)] >= 0; }

  // Ranks `members` by the static order's keys, with totals as they are now
  // (the most crowded section a buffer spans, counting what is left). Ranks
  // are a function of the members and the order, so the ranking id that
  // failed-state keys carry identifies them.
  void rank_members(const std::vector<int>& members) {
    std::vector<int64_t> total(members.size(), 0);
    for (size_t k = 0; k < members.size(); ++k) {
      const int i = members[k];
      for (int s = first_[static_cast<size_t>(i)]; s < last_[static_cast<size_t>(i)]; ++s)
        total[k] = std::max(total[k], remaining_[static_cast<size_t>(s)]);
    }
    auto key = [&](size_t k, char c) -> int64_t {
      const int i = members[k];
      const LxBuffer& b = buf(ids_[static_cast<size_t>(i)]);
      switch (c) {
        case 'T':
          return total[k];
        case 'A':
          return size(i) * (b.upper - b.lower);
        case 'Z':
          return size(i);
        case 'C':
          return last_[static_cast<size_t>(i)] - first_[static_cast<size_t>(i)];
        case 'O':
          return static_cast<int64_t>(overlaps_[static_cast<size_t>(i)].size());
        default:
          return b.upper - b.lower;  // W
      }
    };
    std::vector<size_t> by(members.size());
    std::iota(by.begin(), by.end(), 0);
    std::sort(by.begin(), by.end(), [&](size_t a, size_t b) {
      for (char c : order_) {
        const int64_t ka = key(a, c), kb = key(b, c);
        if (ka != kb) return ka > kb;
      }
      return members[a] < members[b];
    });
    uint64_t id = 0x51ED27;
    for (int i : members) id ^= zobrist_[static_cast<size_t>(i)] * 0x9E3779B97F4A7C15ULL;
    ranking_id_ = id;
    for (size_t r = 0; r < by.size(); ++r) rank_[static_cast<size_t>(members[by[r]])] = static_cast<int>(r);
  }

  struct Undo {
    int buffer;
    std::vector<std::pair<int, int64_t>> floors, bases;
  };

  void place(int i, int64_t at) {
    Undo undo;
    undo.buffer = i;
    const int64_t top = at + size(i);
    address_[static_cast<size_t>(i)] = at;
    for (int s = first_[static_cast<size_t>(i)]; s < last_[static_cast<size_t>(i)]; ++s) {
      if (s >= own_first(i)) remaining_[static_cast<size_t>(s)] -= size(i);
      if (floor_[static_cast<size_t>(s)] < top) {
        undo.floors.emplace_back(s, floor_[static_cast<size_t>(s)]);
        floor_[static_cast<size_t>(s)] = top;
      }
    }
    for (int s = first_[static_cast<size_t>(i)]; s + 1 < last_[static_cast<size_t>(i)]; ++s) {
      if (--cuts_[static_cast<size_t>(s)] == 0) new_cut_ = true;
    }
    for (int j : overlaps_[static_cast<size_t>(i)]) {
      --unplaced_overlaps_[static_cast<size_t>(j)];
      if (!placed(j) && base_[static_cast<size_t>(j)] < top) {
        undo.bases.emplace_back(j, base_[static_cast<size_t>(j)]);
        base_[static_cast<size_t>(j)] = top;
      }
    }
    trail_.push_back(std::move(undo));
  }

  void undo_to(size_t height) {
    while (trail_.size() > height) {
      const Undo& undo = trail_.back();
      const int i = undo.buffer;
      for (int s = own_first(i); s < last_[static_cast<size_t>(i)]; ++s) remaining_[static_cast<size_t>(s)] += size(i);
      for (auto it = undo.floors.rbegin(); it != undo.floors.rend(); ++it)
        floor_[static_cast<size_t>(it->first)] = it->second;
      for (auto it = undo.bases.rbegin(); it != undo.bases.rend(); ++it)
        base_[static_cast<size_t>(it->first)] = it->second;
      for (int j : overlaps_[static_cast<size_t>(i)]) ++unplaced_overlaps_[static_cast<size_t>(j)];
      for (int s = first_[static_cast<size_t>(i)]; s + 1 < last_[static_cast<size_t>(i)]; ++s)
        ++cuts_[static_cast<size_t>(s)];
      address_[static_cast<size_t>(i)] = -1;
      trail_.pop_back();
    }
  }

  // Groups of buffers with overlapping lives (connected by overlap).
  std::vector<std::vector<int>> components(const std::vector<int>& left) const {
    std::vector<int> by_start = left;
    std::sort(by_start.begin(), by_start.end(),
              [&](int a, int b) { return first_[static_cast<size_t>(a)] < first_[static_cast<size_t>(b)]; });
    std::vector<std::vector<int>> groups;
    int reach = -1;
    for (int i : by_start) {
      if (groups.empty() || first_[static_cast<size_t>(i)] >= reach) groups.emplace_back();
      groups.back().push_back(i);
      reach = std::max(reach, last_[static_cast<size_t>(i)]);
    }
    return groups;
  }

  // What the search below a node depends on: the buffers left, the floors
  // over their sections, the last address and (for the symmetry rule) the
  // rank of the last buffer placed.
  uint64_t state_key(const std::vector<int>& left, int64_t last_address, int last_placed) const {
    uint64_t h =
        (static_cast<uint64_t>(last_address) * 0x9E3779B97F4A7C15ULL) ^ ranking_id_ ^
        (static_cast<uint64_t>(last_placed < 0 ? -1 : rank_[static_cast<size_t>(last_placed)]) * 0xC2B2AE3D27D4EB4FULL);
    int lo = INT32_MAX, hi = -1;
    for (int i : left) {
      h ^= zobrist_[static_cast<size_t>(i)];
      lo = std::min(lo, first_[static_cast<size_t>(i)]);
      hi = std::max(hi, last_[static_cast<size_t>(i)]);
    }
    for (int s = lo; s < hi; ++s)
      h ^= section_key_[static_cast<size_t>(s)] * static_cast<uint64_t>(floor_[static_cast<size_t>(s)] + 1);
    return h;
  }

  // The in-place address of buffer i on a placed parent, if it is allowed:
  // nothing placed above the parent's address where the child lives on.
  // In-place placements stand outside the canonical address order (the
  // child's address is fixed by its parent, not chosen).
  int64_t in_place_address(int i) const {
    for (int parent : parents_[static_cast<size_t>(i)]) {
      const int64_t pa = address_[static_cast<size_t>(parent)];
      if (pa < 0) continue;
      bool clear = true;
      for (int s = first_[static_cast<size_t>(i)] + 1; s < last_[static_cast<size_t>(i)] && clear; ++s)
        clear = floor_[static_cast<size_t>(s)] <= pa;
      if (clear && pa + size(i) <= capacity_) return pa;
    }
    return -1;
  }

  // Spatial inference over the sections the buffers left span.
  bool sections_fit(const std::vector<int>& left, int64_t last_address) {
    int lo = INT32_MAX, hi = -1;
    for (int i : left) {
      lo = std::min(lo, first_[static_cast<size_t>(i)]);
      hi = std::max(hi, last_[static_cast<size_t>(i)]);
    }
    for (int s = lo; s < hi; ++s) low_[static_cast<size_t>(s)] = INT64_MAX;
    for (int i : left) {
      int64_t at = std::max(base_[static_cast<size_t>(i)], last_address);
      const int64_t in_place = in_place_address(i);  // on its parent: below the canonical order
      if (in_place >= 0) at = std::min(at, in_place);
      for (int s = own_first(i); s < last_[static_cast<size_t>(i)]; ++s)
        low_[static_cast<size_t>(s)] = std::min(low_[static_cast<size_t>(s)], at);
    }
    for (int s = lo; s < hi; ++s) {
      if (remaining_[static_cast<size_t>(s)] == 0) continue;
      const int64_t bottom = std::max({floor_[static_cast<size_t>(s)], last_address, low_[static_cast<size_t>(s)]});
      if (bottom + remaining_[static_cast<size_t>(s)] > capacity_) return false;
    }
    return true;
  }

  bool fail(uint64_t key) {
    if (failed_.size() < (1u << 22)) failed_.insert(key);
    return false;
  }

  // Places every buffer of `left` (all unplaced); on failure the state is as before.
  bool search(const std::vector<int>& left, int64_t last_address, int last_placed) {
    if (left.empty()) return true;
    if (!budget_.spend()) return false;
    const uint64_t key = state_key(left, last_address, last_placed);
    if (failed_.count(key)) return false;
    if (!sections_fit(left, last_address)) return fail(key);
    // Independent groups: each must pack; none can help another.
    // Only a placement that left no buffer crossing some boundary can split it.
    std::vector<std::vector<int>> groups;
    if (new_cut_) {
      new_cut_ = false;
      groups = components(left);
    }
    if (groups.size() > 1) {
      const size_t height = trail_.size();
      const uint64_t outer_id = ranking_id_;
      std::vector<int> outer_rank;
      for (int i : left) outer_rank.push_back(rank_[static_cast<size_t>(i)]);
      auto restore_ranks = [&] {
        ranking_id_ = outer_id;
        for (size_t k = 0; k < left.size(); ++k) rank_[static_cast<size_t>(left[k])] = outer_rank[k];
      };
      for (auto& g : groups) {
        // Each group is a problem of its own: rank it by what it holds now.
        rank_members(g);
        if (!search(g, 0, -1)) {
          restore_ranks();
          undo_to(height);
          return budget_.exhausted ? false : fail(key);
        }
      }
      restore_ranks();
      return true;
    }
    struct Candidate {
      int i;
      int64_t at;
      bool in_place = false;
    };
    std::vector<Candidate> candidates;
    int64_t lowest_top = INT64_MAX;  // dominance: nothing goes at or above it
    for (int i : left) {
      const int64_t in_place = in_place_address(i);
      if (in_place >= 0) candidates.push_back({i, in_place, true});
      const int64_t at = base_[static_cast<size_t>(i)];
      lowest_top = std::min(lowest_top, at + size(i));
      if (at < last_address) {
        // Its support is below the last address: something still to come
        // must lift it, or this state is dead.
        if (in_place < 0 && unplaced_overlaps_[static_cast<size_t>(i)] == 0) return fail(key);
        continue;
      }
      if (at + size(i) > capacity_) continue;
      if (at != in_place) candidates.push_back({i, at});
    }
    // In-place handovers first (they cost no room), then by address.
    std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
      if (a.in_place != b.in_place) return a.in_place;
      return a.at != b.at ? a.at < b.at : rank_[static_cast<size_t>(a.i)] < rank_[static_cast<size_t>(b.i)];
    });
    std::vector<int> rest;
    rest.reserve(left.size());
    for (const Candidate& c : candidates) {
      if (c.in_place) {
        const size_t height = trail_.size();
        place(c.i, c.at);
        rest.clear();
        for (int i : left) {
          if (i != c.i) rest.push_back(i);
        }
        if (search(rest, last_address, last_placed)) return true;
        undo_to(height);
        if (budget_.exhausted) return false;
        continue;
      }
      if (c.at >= lowest_top) break;
      // Buffers at one address (necessarily with disjoint lives) go in rank order.
      if (last_placed >= 0 && c.at == last_address &&
          rank_[static_cast<size_t>(c.i)] < rank_[static_cast<size_t>(last_placed)])
        continue;
      const size_t height = trail_.size();
      place(c.i, c.at);
      rest.clear();
      for (int i : left) {
        if (i != c.i) rest.push_back(i);
      }
      if (search(rest, c.at, c.i)) return true;
      undo_to(height);
      if (budget_.exhausted) return false;
    }
    return fail(key);
  }

  const LxProblem& p_;
  std::vector<int> ids_;
  int64_t capacity_;
  Budget& budget_;
  std::vector<int> first_, last_;
  std::vector<int64_t> floor_, remaining_, low_;
  std::vector<std::vector<int>> parents_, overlaps_;
  std::vector<int64_t> base_, address_;
  std::vector<int> unplaced_overlaps_;  // per buffer: overlapping buffers not placed yet
  std::vector<int> cuts_;               // per section boundary: buffers left crossing it
  bool new_cut_ = false;                // the last placement brought some cut to zero
  std::vector<uint64_t> zobrist_, section_key_;
  std::string order_;
  std::vector<int> rank_;
  uint64_t ranking_id_ = 0;
  std::vector<Undo> trail_;
  std::unordered_set<uint64_t> failed_;
};

// Packs with a portfolio of static orders: each order searches with a node
// limit that doubles every round (a search that runs long under one order
// often ends at once under another). The searches form one sequence (round by
// round, order by order) and the earliest that answers — a packing, or a
// proof that none exists — decides, so the plan does not depend on which
// thread is faster: two threads split the orders, and a search stops only
// when an earlier one has answered. Only the time limit can make runs differ.
bool pack(const LxProblem& p, const std::vector<int>& subset, int64_t capacity, Budget& budget,
          std::vector<int64_t>& address) {
  const std::vector<std::string> orders(std::begin(kOrders), std::end(kOrders));
  const auto per_round = static_cast<int64_t>(orders.size());
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  struct Answer {
    int64_t sequence = kNone;
    bool found = false;
    std::vector<int64_t> address;
  };
  std::atomic<int64_t> answered{kNone};
  std::mutex mutex;
  Answer answer;
  // Nodes of the searches up to the answer (each ran to its own end, so the
  // count does not depend on timing); per worker, for its share of the limit.
  const bool two = subset.size() > 64 && std::thread::hardware_concurrency() >= 2;
  const int workers = two ? 2 : 1;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> spent(static_cast<size_t>(workers));  // (sequence, nodes)
  auto worker = [&](int w) {
    const int64_t share = (budget.node_limit - budget.nodes) / workers;
    int64_t used = 0;
    int64_t slice = 2 * static_cast<int64_t>(subset.size()) + 2;
    for (int64_t round = 0;; ++round, slice *= 2) {
      for (int64_t k = w; k < per_round; k += workers) {
        const int64_t sequence = round * per_round + k;
        if (answered.load() < sequence) return;
        if (used >= share || Clock::now() > budget.deadline) return;
        Budget local;
        local.node_limit = slice;
        local.deadline = budget.deadline;
        local.sequence = sequence;
        local.answered = &answered;
        Packer packer(p, subset, capacity, local, orders[static_cast<size_t>(k)]);
        const bool ok = packer.run();
        used += local.nodes;
        spent[static_cast<size_t>(w)].emplace_back(sequence, local.nodes);
        if (ok || !local.exhausted) {
          std::lock_guard<std::mutex> lock(mutex);
          if (sequence < answer.sequence) {
            answer.sequence = sequence;
            answer.found = ok;
            answer.address = ok ? packer.addresses() : std::vector<int64_t>{};
            answered.store(sequence);
          }
          return;
        }
      }
    }
  };
  if (two) {
    std::thread helper(worker, 1);
    worker(0);
    helper.join();
  } else {
    worker(0);
  }
  for (const auto& list : spent) {
    for (const auto& [sequence, nodes] : list) budget.nodes += sequence <= answer.sequence ? nodes : 0;
  }
  if (answer.sequence == kNone) {  // every worker ran out of nodes or time
    budget.exhausted = true;
    return false;
  }
  if (answer.found) address = answer.address;
  return answer.found;
}

LxPlan plan_from(const LxProblem& p, const std::vector<int64_t>& address) {
  LxPlan plan;
  plan.placements.assign(p.buffers.size(), {});
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    if (address[b] >= 0) plan.placements[b].push_back({address[b], p.buffers[b].lower, p.buffers[b].upper});
  }
  return plan;
}

bool has_in_place_pairs(const LxProblem& p) {
  for (const auto& b : p.buffers) {
    if (!b.in_place_parents.empty()) return true;
  }
  return false;
}

// Live-range splitting: the buffer cut at one stretch between two uses, into
// the part up to the earlier use and the part from the later one. Dormant in
// between, it holds no LX; the second part is reloaded from HBM. The cut goes
// where it relieves the most pressure: the stretch in which the other
// buffers' live bytes peak highest, and only where the buffer would not fit
// beside them.
struct Split {
  int buffer;
  LxBuffer first, second;
};

std::vector<Split> splittable(const LxProblem& p) {
  std::vector<Split> out;
  if (p.buffers.empty()) return out;
  int64_t t0 = p.buffers[0].lower, t1 = p.buffers[0].upper;
  for (const auto& b : p.buffers) {
    t0 = std::min(t0, b.lower);
    t1 = std::max(t1, b.upper);
  }
  if (t1 - t0 > 1'000'000) return out;  // time steps are ops here; a long horizon is not an op graph
  std::vector<int64_t> live(static_cast<size_t>(t1 - t0), 0);
  for (const auto& b : p.buffers) {
    for (int64_t t = b.lower; t < b.upper; ++t) live[static_cast<size_t>(t - t0)] += b.size;
  }
  // In-place pairs hand bytes over at one op; neither side is cut.
  std::vector<bool> is_parent(p.buffers.size(), false);
  for (const auto& b : p.buffers) {
    for (int parent : b.in_place_parents) is_parent[static_cast<size_t>(parent)] = true;
  }
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const LxBuffer& buf = p.buffers[b];
    if (is_parent[b] || !buf.in_place_parents.empty()) continue;
    size_t cut = 0;
    int64_t best_pressure = p.capacity, best_gap = 0;
    for (size_t u = 1; u < buf.uses.size(); ++u) {
      const int64_t gap = buf.uses[u] - buf.uses[u - 1] - 1;  // steps with no use
      if (gap < 1) continue;
      int64_t pressure = 0;  // everything live in the stretch, this buffer included
      for (int64_t t = buf.uses[u - 1] + 1; t < buf.uses[u]; ++t)
        pressure = std::max(pressure, live[static_cast<size_t>(t - t0)]);
      if (pressure > best_pressure || (pressure == best_pressure && cut != 0 && gap > best_gap)) {
        best_pressure = pressure;
        best_gap = gap;
        cut = u;
      }
    }
    if (cut == 0) continue;
    Split s{static_cast<int>(b), buf, buf};
    s.first.name += "/1";
    s.first.uses.assign(buf.uses.begin(), buf.uses.begin() + static_cast<long>(cut));
    s.first.upper = s.first.uses.back() + 1;
    s.second.name += "/2";
    s.second.uses.assign(buf.uses.begin() + static_cast<long>(cut), buf.uses.end());
    s.second.lower = s.second.uses.front();
    s.second.first_use_is_read = true;  // a reload reads HBM
    out.push_back(s);
  }
  return out;
}

class ExactSolver : public LxSolver {
 public:
  explicit ExactSolver(bool split) : split_(split) {}
  std::string name() const override { return split_ ? "best" : "exact"; }

  LxPlan solve(const LxProblem& p, const LxSolveOptions& options) const override {
    const auto start = Clock::now();
    Budget budget;
    budget.node_limit = options.node_limit;
    budget.deadline = start + std::chrono::milliseconds(static_cast<int64_t>(options.time_limit_s * 1000));
    // The search stacks buffers exactly on one another, so it works on sizes
    // padded to the alignment: with aligned addresses, two buffers overlap
    // padded exactly when they overlap unpadded. Only the capacity's partial
    // last alignment block, which a padded top cannot use, is lost to it.
    LxProblem padded = p;
    for (auto& b : padded.buffers) b.size = align_up(b.size, p.alignment);
    if (p.alignment > 1) padded.capacity = p.capacity / p.alignment * p.alignment;
    std::vector<int> all(p.buffers.size());
    std::iota(all.begin(), all.end(), 0);
    LxPlan plan =
        options.place_all ? lowest_height(padded, all, options, budget) : most_traffic_saved(padded, all, budget);
    if (!options.place_all && split_ && options.allow_eviction) plan = with_splits(padded, std::move(plan), budget);
    plan.spill_bytes = 0;
    for (size_t b = 0; b < p.buffers.size(); ++b) plan.spill_bytes += split_traffic(p.buffers[b], plan.placements[b]);
    if (!options.place_all) plan = no_worse_than_heuristics(p, std::move(plan), budget.exhausted);
    plan.solver = name();
    plan.complete = !budget.exhausted;
    plan.solve_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return plan;
  }

 private:
  // The search is exact up to what padding and a stopped search lose; the
  // torch-spyre heuristics are cheap, so their plan is taken when it moves
  // fewer HBM bytes (a guarantee, not a hope).
  static LxPlan no_worse_than_heuristics(const LxProblem& p, LxPlan plan, bool stopped) {
    int64_t bytes = plan_hbm_bytes(p, plan);
    for (const char* heuristic : {"greedy", "firstfit", "bestfit"}) {
      LxPlan other = make_lx_solver(heuristic)->solve(p, LxSolveOptions{});
      const int64_t other_bytes = plan_hbm_bytes(p, other);
      if (other_bytes < bytes) {
        bytes = other_bytes;
        other.note = std::string(heuristic) + "'s plan: it moves fewer bytes than the search found (" +
                     (stopped ? "search limit" : "padding to the alignment") + ")";
        plan = std::move(other);
      }
    }
    return plan;
  }

  // Solves again with every splittable buffer cut in two (each part kept or
  // left in HBM on its own), maps the plan back onto the whole buffers, then
  // puts back together, one at a time, each cut that moving fewer bytes does
  // not need (a cut the search used without need costs a store and a reload).
  // Keeps the result only when it moves fewer HBM bytes than the plan without
  // cuts.
  LxPlan with_splits(const LxProblem& p, LxPlan whole, Budget& budget) const {
    const std::vector<Split> splits = splittable(p);
    if (splits.empty() || all_placed(whole)) return whole;
    std::vector<bool> cut_on(splits.size(), true);
    LxPlan best = solve_cut(p, splits, cut_on, budget);
    int64_t best_bytes = plan_hbm_bytes(p, best);
    for (size_t k = 0; k < splits.size() && !budget.exhausted; ++k) {
      cut_on[k] = false;
      LxPlan fewer = solve_cut(p, splits, cut_on, budget);
      const int64_t bytes = plan_hbm_bytes(p, fewer);
      if (bytes <= best_bytes) {
        best = std::move(fewer);
        best_bytes = bytes;
      } else {
        cut_on[k] = true;
      }
    }
    if (best_bytes >= plan_hbm_bytes(p, whole)) return whole;
    int evicted = 0;
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      const auto& pls = best.placements[b];
      evicted += pls.size() > 1 || (pls.size() == 1 && pls[0].lower != p.buffers[b].lower) ? 1 : 0;
    }
    best.note = std::to_string(evicted) + " buffer(s) evicted while dormant and reloaded from HBM";
    return best;
  }

  // The plan for the problem with the switched-on cuts, mapped back onto the
  // whole buffers, with its spill traffic.
  LxPlan solve_cut(const LxProblem& p, const std::vector<Split>& splits, const std::vector<bool>& cut_on,
                   Budget& budget) const {
    LxProblem cut = p;
    cut.buffers.clear();
    std::vector<int> origin;  // per cut buffer: the whole buffer it is (part of)
    std::vector<int> split_of(p.buffers.size(), -1);
    for (size_t k = 0; k < splits.size(); ++k) {
      if (cut_on[k]) split_of[static_cast<size_t>(splits[k].buffer)] = static_cast<int>(k);
    }
    std::vector<int> index_of(p.buffers.size(), -1);
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      if (split_of[b] < 0) {
        index_of[b] = static_cast<int>(cut.buffers.size());
        cut.buffers.push_back(p.buffers[b]);
        origin.push_back(static_cast<int>(b));
      } else {
        for (const LxBuffer* part :
             {&splits[static_cast<size_t>(split_of[b])].first, &splits[static_cast<size_t>(split_of[b])].second}) {
          cut.buffers.push_back(*part);
          origin.push_back(static_cast<int>(b));
        }
      }
    }
    // Cut buffers are never in-place parents or children (splittable), so
    // every parent keeps an index.
    for (auto& b : cut.buffers) {
      for (int& parent : b.in_place_parents) parent = index_of[static_cast<size_t>(parent)];
    }
    std::vector<int> all(cut.buffers.size());
    std::iota(all.begin(), all.end(), 0);
    const LxPlan parts = most_traffic_saved(cut, all, budget);
    LxPlan mapped;
    mapped.placements.assign(p.buffers.size(), {});
    for (size_t c = 0; c < cut.buffers.size(); ++c) {
      for (const auto& pl : parts.placements[c]) mapped.placements[static_cast<size_t>(origin[c])].push_back(pl);
    }
    // Two parts at one address with nothing else there in between are one
    // placement: no eviction needed.
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      auto& pls = mapped.placements[b];
      if (pls.size() != 2 || pls[0].address != pls[1].address) continue;
      LxPlan merged = mapped;
      merged.placements[b] = {{pls[0].address, pls[0].lower, pls[1].upper}};
      if (validate_plan(p, merged).empty()) mapped = std::move(merged);
    }
    for (size_t b = 0; b < p.buffers.size(); ++b)
      mapped.spill_bytes += split_traffic(p.buffers[b], mapped.placements[b]);
    return mapped;
  }

  // Strip packing: pack at the capacity if possible (the question benchmarks
  // ask); otherwise, or when asked to minimize, bisect for the lowest height
  // between the live-bytes bound and a best-fit packing's height.
  LxPlan lowest_height(const LxProblem& p, const std::vector<int>& all, const LxSolveOptions& options,
                       Budget& budget) const {
    LxPlan best = make_fit_solver(true)->solve(p, options);
    best.note = "best-fit packing";
    int64_t hi = peak_address(best, p);
    const int64_t unit = std::max<int64_t>(p.alignment, 1);
    const int64_t bound = has_in_place_pairs(p) ? 0 : (peak_live_bytes(p) + unit - 1) / unit * unit;
    if (hi <= p.capacity && !options.minimize_height) return best;
    int64_t lo = bound;
    std::vector<int64_t> address;
    // The capacity first: below it only when minimizing.
    if (p.capacity >= bound && p.capacity < hi) {
      if (pack(p, all, p.capacity, budget, address)) {
        best = plan_from(p, address);
        best.note = "packed within the capacity";
        hi = peak_address(best, p);
        if (!options.minimize_height) return best;
      } else if (!budget.exhausted) {
        lo = p.capacity + unit;
      }
    }
    if (!options.minimize_height) lo = std::max(lo, std::min(p.capacity + unit, hi));
    while (lo < hi && !budget.exhausted) {
      const int64_t mid = lo + (hi - lo) / unit / 2 * unit;
      if (pack(p, all, mid, budget, address)) {
        best = plan_from(p, address);
        best.note = "packed within " + std::to_string(mid) + " bytes";
        hi = peak_address(best, p);
      } else if (!budget.exhausted) {
        lo = mid + unit;
      }
    }
    if (lo >= hi && options.minimize_height) best.note += " (proved lowest)";
    return best;
  }

  // Within the capacity: everything if it packs; else the drop set costing
  // the least HBM traffic whose remainder packs.
  LxPlan most_traffic_saved(const LxProblem& p, const std::vector<int>& all, Budget& budget) const {
    std::vector<int64_t> address;
    if (pack(p, all, p.capacity, budget, address)) return plan_from(p, address);
    std::vector<int> order;
    for (int b : all) {
      if (p.buffers[static_cast<size_t>(b)].size <= p.capacity) order.push_back(b);
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      return p.buffers[static_cast<size_t>(a)].hbm_bytes_saved() < p.buffers[static_cast<size_t>(b)].hbm_bytes_saved();
    });
    struct DropSet {
      int64_t cost;
      std::vector<int> positions;  // into order, ascending
      bool operator>(const DropSet& o) const { return cost > o.cost; }
    };
    std::priority_queue<DropSet, std::vector<DropSet>, std::greater<>> queue;
    queue.push({0, {}});
    int tried = 0;
    while (!queue.empty() && tried < 20000 && !budget.exhausted) {
      DropSet d = queue.top();
      queue.pop();
      std::vector<bool> dropped(p.buffers.size(), false);
      for (int pos : d.positions) dropped[static_cast<size_t>(order[static_cast<size_t>(pos)])] = true;
      std::vector<int> keep;
      for (int b : order) {
        if (!dropped[static_cast<size_t>(b)]) keep.push_back(b);
      }
      if (!d.positions.empty() || keep.size() < all.size()) {
        ++tried;
        LxProblem sub = p;
        sub.buffers.clear();
        for (int b : keep) sub.buffers.push_back(p.buffers[static_cast<size_t>(b)]);
        if ((peak_live_bytes(sub) <= p.capacity || has_in_place_pairs(p)) && pack(p, keep, p.capacity, budget, address))
          return plan_from(p, address);
      }
      const int next = d.positions.empty() ? 0 : d.positions.back() + 1;
      for (int pos = next; pos < static_cast<int>(order.size()) && queue.size() < 200000; ++pos) {
        DropSet child = d;
        child.positions.push_back(pos);
        child.cost += p.buffers[static_cast<size_t>(order[static_cast<size_t>(pos)])].hbm_bytes_saved();
        queue.push(std::move(child));
      }
    }
    // Out of budget: best fit's choice is a valid fallback.
    LxPlan plan = make_fit_solver(true)->solve(p, LxSolveOptions{});
    plan.note = "search limit reached; best-fit placement";
    budget.exhausted = true;
    return plan;
  }

  bool split_;
};

}  // namespace

std::unique_ptr<LxSolver> make_exact_solver(bool split) { return std::make_unique<ExactSolver>(split); }

}  // namespace spyre::compiler
