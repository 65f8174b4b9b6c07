#pragma once
// The LX scratchpad planning problem, independent of where it came from (a
// compiled graph, a pattern file, a torch-spyre buffer list, a MiniMalloc
// CSV): buffers with live ranges and sizes, one core's usable LX as the
// capacity, and how much HBM traffic each buffer saves when it lives in LX.
// A plan places some buffers at LX addresses (possibly in several pieces when
// a solver splits a live range) and leaves the rest in HBM.

#include <cstdint>
#include <string>
#include <vector>

namespace spyre::compiler {

// The next multiple of the alignment (LX addresses are aligned; sizes are not).
inline int64_t align_up(int64_t value, int64_t alignment) {
  return alignment > 1 ? (value + alignment - 1) / alignment * alignment : value;
}

// Sizes, capacities and steps beyond these are bad input: no memory this
// tool models is near 2^48 bytes, and keeping far below INT64_MAX lets byte
// totals add up without overflow.
constexpr int64_t kMaxLxBytes = int64_t{1} << 48;
constexpr int64_t kMaxLxStep = int64_t{1} << 40;

struct LxBuffer {
  std::string name;
  int64_t size = 0;                   // bytes; torch-spyre aligns start addresses only, not sizes
  int64_t lower = 0, upper = 0;       // live over time steps [lower, upper)
  std::vector<int> in_place_parents;  // buffers whose bytes this one may take over (torch-spyre's in_place_parents)
  // Time steps at which an op reads or writes the buffer, ascending; the HBM
  // bytes it saves in LX are size x uses. Empty: one use (MiniMalloc CSVs).
  std::vector<int64_t> uses;
  // The value comes from HBM (a clone of a graph input): its first use reads
  // HBM wherever the buffer lives, the later ones are what LX saves.
  bool first_use_is_read = false;
  int64_t hbm_bytes_saved() const {
    if (uses.empty()) return size;
    return size * static_cast<int64_t>(uses.size() - (first_use_is_read ? 1 : 0));
  }
};

struct LxProblem {
  std::string source;  // file or graph, for messages
  int64_t capacity = 0;
  int64_t alignment = 128;
  std::vector<LxBuffer> buffers;
  // Extra HBM bytes the workload moves whatever the plan (graph inputs and
  // outputs of patterns), so hbm_bytes covers the whole program.
  int64_t fixed_hbm_bytes = 0;
};

// One stretch of a buffer's life in LX.
struct LxPlacement {
  int64_t address = 0;
  int64_t lower = 0, upper = 0;  // time steps [lower, upper) it holds [address, address + size)
};

struct LxPlan {
  std::string solver;
  // Per buffer: its placements (empty: it stays in HBM). Without live-range
  // splitting a placed buffer has one placement covering its whole life.
  std::vector<std::vector<LxPlacement>> placements;
  int64_t spill_bytes = 0;  // HBM traffic the plan adds: stores and reloads of split buffers
  double solve_ms = 0;
  bool complete = true;  // false when a search stopped at its limit before proving its answer
  std::string note;      // the solver's remark on how it got the plan
};

// Why `parent` cannot hand its bytes to `child` in place, or "" when it can
// (torch-spyre's in-place checks): the child starts at the parent's last use,
// that use reads the parent (a computed parent needs a use after its write),
// and the child is no larger.
std::string in_place_violation(const LxProblem& problem, int child, int parent);
// `buffers` reordered so in-place parents come before their children, keeping
// the given order wherever the edges leave it free (edges to buffers outside
// the list are ignored). Shorter than the list when parents form a cycle.
std::vector<int> parents_first(const LxProblem& problem, const std::vector<int>& buffers);
// A buffer on a cycle of in-place parents, or -1 (parents must come first).
int in_place_cycle(const LxProblem& problem);

// Two buffers may share LX bytes at the same time only as an in-place pair:
// the child is produced by the op that reads the parent for the last time and
// starts at the parent's address.
bool may_share(const LxProblem& problem, int a, int b);

// Every violation of the plan: overlapping live placements, placements
// outside [0, capacity), misaligned addresses, placements outside a buffer's
// life or leaving part of a use uncovered. Empty: the plan is valid.
std::vector<std::string> validate_plan(const LxProblem& problem, const LxPlan& plan);

int64_t peak_address(const LxPlan& plan, const LxProblem& problem);  // highest byte used + 1
bool all_placed(const LxPlan& plan);
// HBM traffic with this plan: fixed bytes, plus every use of a buffer not in LX
// at that time, plus the plan's spills and reloads.
int64_t plan_hbm_bytes(const LxProblem& problem, const LxPlan& plan);
// The HBM traffic a split buffer's placements add: a reload for every
// placement that does not start where the value is produced, and one store
// when the value is produced in LX but needed from HBM later (a value that
// came from HBM is there already).
int64_t split_traffic(const LxBuffer& buffer, const std::vector<LxPlacement>& placements);
// The most bytes live at any one time (a lower bound on the peak of any plan
// placing everything).
int64_t peak_live_bytes(const LxProblem& problem);

}  // namespace spyre::compiler
