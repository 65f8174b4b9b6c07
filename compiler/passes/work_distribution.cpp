// Work distribution (torch-spyre's work_distribution pass, seed 001): starting
// from the splits span reduction committed, give the remaining cores to the
// output dims in decreasing order of their stick-adjusted size, each taking
// core_split(units, remaining) — the largest divisor of its units that is at
// most the cores left — and then to at most one reduction dim (matmul's K
// among them): the one with the largest core_split of what remains, unless span
// reduction already split a reduction dim. --split overrides all of it per op.
// With --work-division model, each batchmatmul instead takes the fastest of
// its legal splits as the card model (options.split_cost) times them; with
// model-all every pointwise op, reduction and copy also takes the fastest of
// the rule's divisions at each core count, each timed as a program of that op
// alone (op_split.h), when it beats the rule's own by kOpSearchMargin. With
// --work-division torch-spyre, each batchmatmul takes what torch-spyre's
// analytic matmul planner picks (torch_spyre_planner.h), unless it uses fewer
// cores than the rule's split, as torch-spyre's own pass keeps the rule's then.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>

#include "compiler/ir/iteration_space.h"
#include "compiler/passes/passes.h"
#include "compiler/split/bmm_search.h"
#include "compiler/split/op_split.h"
#include "compiler/split/torch_spyre_planner.h"
#include "compiler/split/work_div_hint.h"
#include "runtime/error.h"
#include "runtime/text.h"

namespace spyre::compiler {

int64_t core_split(int64_t units, int64_t cores) {
  for (int64_t c = std::min(units, cores); c > 1; --c) {
    if (units % c == 0) return c;
  }
  return 1;
}

std::vector<int64_t> default_rule_slices(const IterationSpace& space, const std::vector<int64_t>& units,
                                         std::vector<int64_t> slices, int cores) {
  int64_t remaining = cores / std::accumulate(slices.begin(), slices.end(), int64_t{1}, std::multiplies<>());
  bool reduction_split = false;
  std::vector<size_t> outputs;
  for (size_t i = 0; i < space.dims.size(); ++i) {
    if (space.dims[i].reduction) {
      reduction_split = reduction_split || slices[i] > 1;
    } else if (slices[i] == 1) {
      outputs.push_back(i);
    }
  }
  std::stable_sort(outputs.begin(), outputs.end(), [&](size_t a, size_t b) { return units[a] > units[b]; });
  for (size_t i : outputs) {
    slices[i] = core_split(units[i], remaining);
    remaining /= slices[i];
  }
  if (!reduction_split) {
    size_t best = space.dims.size();
    int64_t best_split = 1;
    for (size_t i = 0; i < space.dims.size(); ++i) {
      if (!space.dims[i].reduction) continue;
      const int64_t s = core_split(units[i], remaining);
      if (s > best_split) {
        best = i;
        best_split = s;
      }
    }
    if (best < space.dims.size()) slices[best] = best_split;
  }
  return slices;
}

namespace {

std::vector<int64_t> overridden(const Graph& g, const Op& op, const IterationSpace& space,
                                const std::vector<int64_t>& units, const std::vector<int64_t>& minimum,
                                const std::map<std::string, int64_t>& wanted, int cores) {
  const std::string where = "--split " + g.tensors[static_cast<size_t>(op.outputs[0])].name;
  std::vector<int64_t> slices(space.dims.size(), 1);
  for (const auto& [label, n] : wanted) {
    const int i = space.find(label);
    if (i < 0) {
      std::vector<std::string> labels;
      for (const auto& d : space.dims) labels.push_back(d.label);
      fail("", where, op.type + " has no dim '" + label + "' (its dims: " + join(labels, ", ") + ")");
    }
    if (const std::string why = undivided_dims(g, space)[static_cast<size_t>(i)]; n > 1 && !why.empty())
      fail("", where, "dim '" + label + "' is never divided: " + why);
    const int64_t u = units[static_cast<size_t>(i)];
    if (n < 1 || u % n != 0) {
      const IterDim& d = space.dims[static_cast<size_t>(i)];
      const bool sticks = u != d.size;
      const bool partial = sticks && d.stick_elems > 0 && d.size % d.stick_elems != 0;
      fail("", where,
           "dim '" + label + "' has " + std::to_string(u) +
               (partial  ? " sticks (the last one partial)"
                : sticks ? " whole sticks"
                         : " elements") +
               ", which " + std::to_string(n) + " slices do not divide");
    }
    slices[static_cast<size_t>(i)] = n;
  }
  for (size_t i = 0; i < slices.size(); ++i) {
    if (slices[i] % minimum[i] != 0) {
      fail("", where,
           "dim '" + space.dims[i].label + "' needs a multiple of " + std::to_string(minimum[i]) +
               " slices to keep tensors within the per-core span limit");
    }
  }
  const int64_t used = std::accumulate(slices.begin(), slices.end(), int64_t{1}, std::multiplies<>());
  if (used > cores)
    fail("", where,
         "uses " + std::to_string(used) + " cores, more than the " + std::to_string(cores) + " available (--cores)");
  return slices;
}

// The search's record on the op: the note the decisions print (the pick,
// how many candidates were scored and simulated, ties, the default rule's
// candidate and time) and every candidate's time, fastest first.
// `margin`: the pick is the default rule's because the fastest does not beat
// it by kOpSearchMargin (else a pick other than the fastest is a tie).
void record_search(Op& op, const std::vector<std::string>& names, const std::vector<SplitTime>& times,
                   const SplitPick& picked, const std::function<bool(size_t)>& is_default_rule, bool margin = false) {
  const size_t best = picked.pick;
  const size_t simulated =
      static_cast<size_t>(std::count_if(times.begin(), times.end(), [](const SplitTime& t) { return !t.lower_bound; }));
  std::string rule = "-";
  char rule_us[32] = "-";
  for (size_t i = 0; i < names.size(); ++i) {
    if (is_default_rule(i)) {
      rule = names[i];
      std::snprintf(rule_us, sizeof rule_us, "%s%.1f us", times[i].lower_bound ? ">= " : "", times[i].kernel_us);
    }
  }
  char tie[200] = "";
  if (picked.fastest != best && margin)
    std::snprintf(tie, sizeof tie,
                  " (the default rule's) over the fastest, %s %.1f us (within %.0f%%, which the op alone cannot tell)",
                  names[picked.fastest].c_str(), times[picked.fastest].kernel_us, kOpSearchMargin * 100);
  else if (picked.fastest != best)
    std::snprintf(tie, sizeof tie, " on more cores than the fastest, %s %.1f us (a tie: within %.0f%%)",
                  names[picked.fastest].c_str(), times[picked.fastest].kernel_us, kSplitTimeTolerance * 100);
  char note[480];
  std::snprintf(note, sizeof note,
                "model: %s %s%.1f us, %s of %zu splits%s (%zu simulated, the rest bounded above it; the default "
                "rule's %s: %s)",
                names[best].c_str(), times[best].lower_bound ? ">= " : "", times[best].kernel_us,
                picked.fastest == best ? "fastest" : "picked", names.size(), tie, simulated, rule.c_str(), rule_us);
  op.work_division = note;
  op.split_candidates.clear();
  for (size_t i = 0; i < names.size(); ++i)
    op.split_candidates.push_back({names[i], times[i].kernel_us, times[i].lower_bound, times[i].bound_us});
  std::stable_sort(op.split_candidates.begin(), op.split_candidates.end(),
                   [](const auto& a, const auto& b) { return a.kernel_us < b.kernel_us; });
}

// --work-division model for a pointwise op, reduction or copy: the default
// rule's division on each core count (op_split_candidates) compiled alone and
// timed by the card model; the fastest (or of those within
// kSplitTimeTolerance the one on the most cores) replaces the rule's division
// when it is more than kOpSearchMargin faster. Empty when the model times no
// such ops, the op has one division or the rule's division stays.
std::vector<int64_t> model_op_slices(const Graph& g, Op& op, const IterationSpace& space,
                                     const std::vector<int64_t>& units, const std::vector<int64_t>& default_slices,
                                     const CompileOptions& options) {
  const auto candidates = op_split_candidates(space, units, span_minimum(op, space), options.cores);
  if (candidates.size() < 2) return {};  // one legal division: nothing to choose
  const OpSplitQuery query = op_split_query(g, op, candidates, options);
  if (query.splits.empty()) return {};
  const std::vector<SplitTime> times = options.split_cost->op_kernel_us(query);
  if (times.size() != candidates.size()) return {};
  std::vector<int64_t> cores;
  for (const auto& load : query.loads) cores.push_back(load.cores);
  SplitPick picked = pick_split(cores, times);
  if (picked.pick == candidates.size() || !std::isfinite(times[picked.pick].kernel_us)) return {};
  const auto rule = std::find(candidates.begin(), candidates.end(), default_slices);
  const size_t r = static_cast<size_t>(rule - candidates.begin());
  bool margin_kept_rule = false;
  // A rule's division timed only by its bound keeps its place unless even
  // the bound is more than the margin slower.
  if (rule != candidates.end() && r != picked.pick &&
      times[r].kernel_us <= times[picked.pick].kernel_us * (1 + kOpSearchMargin)) {
    picked.pick = r;
    margin_kept_rule = true;
  }
  record_search(
      op, query.splits, times, picked, [&](size_t i) { return i == r; }, margin_kept_rule);
  return candidates[picked.pick];
}

// --work-division model for a batchmatmul: rows (mb), columns (out), the
// reduction (in) and any number of batch dims (x; the attention bmms' head
// dims), timed as one matmul whose batch is their product (bmm_search.h).
// Every legal split the span minimums and the dims' split units allow is
// timed by the card model; the fastest becomes the slices, or of the splits
// within kSplitTimeTolerance of it the one with the most cores (pick_split).
// Empty when the op has another reduction dim.
std::vector<int64_t> model_slices(Op& op, const IterationSpace& space, const std::vector<int64_t>& units,
                                  const std::vector<int64_t>& minimum, const std::vector<int64_t>& default_slices,
                                  const CompileOptions& options) {
  const BmmSearch search = bmm_search(space, units, minimum, options.cores);
  const MatmulShape& shape = search.shape;
  const std::vector<MatmulSplit>& candidates = search.candidates;
  auto slices_of = [&](const MatmulSplit& s) { return search.slices(s); };
  if (candidates.empty()) return {};
  const std::vector<SplitTime> times = options.split_cost->matmul_kernel_us(shape, candidates);
  const SplitPick picked = pick_split(candidates, times);
  const size_t best = picked.pick;
  if (best == candidates.size() || !std::isfinite(times[best].kernel_us)) return {};
  std::vector<std::string> names;
  for (const auto& c : candidates) names.push_back(c.text());
  record_search(op, names, times, picked, [&](size_t i) { return slices_of(candidates[i]) == default_slices; });
  return slices_of(candidates[best]);
}

// --work-division torch-spyre for a batchmatmul: torch-spyre's planner over
// the legal splits. A projection (no batch beyond 1) reads one shared weight.
// Empty when the op has another reduction dim or the pick uses fewer cores
// than the rule's slices.
std::vector<int64_t> torch_spyre_slices(Op& op, const IterationSpace& space, const std::vector<int64_t>& units,
                                        const std::vector<int64_t>& minimum, const std::vector<int64_t>& default_slices,
                                        const CompileOptions& options) {
  const BmmSearch search = bmm_search(space, units, minimum, options.cores);
  if (search.candidates.empty()) return {};
  const bool shared_weight = search.shape.b == 1;
  const size_t pick = torch_spyre_matmul_pick(search.shape, search.candidates, options.cores, shared_weight);
  if (pick == search.candidates.size()) return {};
  const MatmulSplit& split = search.candidates[pick];
  const int64_t rule_cores =
      std::accumulate(default_slices.begin(), default_slices.end(), int64_t{1}, std::multiplies<>());
  char note[200];
  if (split.cores() < rule_cores) {
    std::snprintf(note, sizeof note, "torch-spyre: planner's %s uses fewer cores than the rule's; the rule's kept",
                  split.text().c_str());
    op.work_division = note;
    return {};
  }
  std::snprintf(note, sizeof note, "torch-spyre: planner's %s (%.1f us by its cost model, %zu splits)",
                split.text().c_str(), torch_spyre_matmul_cost(search.shape, split, options.cores, shared_weight),
                search.candidates.size());
  op.work_division = note;
  return search.slices(split);
}

// topk as torch-spyre divides it (work_division_constraints.py): the searched
// dim whole on every core, k over the fewest cores that leave each at most
// device.topk_k_per_core results, the other dims by the rule.
std::vector<int64_t> topk_slices(const Graph& g, const Op& op, const IterationSpace& space, std::vector<int64_t> units,
                                 const CompileOptions& options) {
  const size_t k_dim = static_cast<size_t>(op.attrs.at("dim").get<int>()), searched = space.dims.size() - 1;
  const int64_t k = space.dims[k_dim].size, per_core = options.device.topk_k_per_core;
  int64_t d = 1;
  while (d <= options.cores && (k % d != 0 || k / d > per_core)) ++d;
  if (d > options.cores)
    fail("", g.describe(op),
         "topk(k=" + std::to_string(k) + "): no divisor of k up to " + std::to_string(options.cores) +
             " cores leaves each at most " + std::to_string(per_core) +
             " results (arch 'sfu.topk_k_per_core'), so k cannot be split over the cores");
  std::vector<int64_t> slices(space.dims.size(), 1);
  slices[k_dim] = d;
  units[k_dim] = units[searched] = 1;
  return default_rule_slices(space, units, slices, options.cores);
}

// Whether a work_div hint names a dim of this op (else the rule divides it,
// as torch-spyre's _resolve_work_div_hint leaves an op no named dim of which it has).
bool hint_names_a_dim(const WorkDivHint& hint, const std::vector<std::string>& names) {
  return std::any_of(hint.begin(), hint.end(), [&](const auto& entry) {
    return std::find(names.begin(), names.end(), entry.first) != names.end();
  });
}

// A topk division the card can run: the searched dim whole, few enough results per core.
void check_topk_slices(const Graph& g, const Op& op, const IterationSpace& space, const std::vector<int64_t>& slices,
                       const CompileOptions& options) {
  const size_t k_dim = static_cast<size_t>(op.attrs.at("dim").get<int>()), searched = space.dims.size() - 1;
  const std::string where = "--split " + g.tensors[static_cast<size_t>(op.outputs[0])].name;
  if (slices[searched] != 1)
    fail("", where,
         "topk searches dim '" + space.dims[searched].label + "' whole on each core; split '" +
             space.dims[k_dim].label + "' (its k results) instead");
  const int64_t per_core = space.dims[k_dim].size / slices[k_dim];
  if (per_core > options.device.topk_k_per_core)
    fail("", where,
         "topk leaves " + std::to_string(per_core) +
             " of its k results on each core; the card's topk produces at most " +
             std::to_string(options.device.topk_k_per_core) + " (arch 'sfu.topk_k_per_core')");
}

}  // namespace

void work_distribution(Graph& g, const CompileOptions& options) {
  std::map<std::string, bool> override_used;
  for (const auto& [name, s] : options.split_overrides) override_used[name] = false;
  for (Op& op : g.ops) {
    if (!device_op_info(op)) continue;
    const IterationSpace space = iteration_space(g, op);
    const std::vector<int64_t> units = split_units(g, space);
    std::vector<int64_t> slices(space.dims.size(), 1);
    for (const auto& [label, n] : op.span_splits) slices[static_cast<size_t>(space.find(label))] = n;
    auto wanted = options.split_overrides.find(g.tensors[static_cast<size_t>(op.outputs[0])].name);
    if (op.attrs.contains("gather")) {
      // torch-spyre pins indirect access to one core (its backend's
      // indirect-addressing path runs single-core: work_division_constraints.py).
      op.work_division = "one core: torch-spyre runs indirect access (a gather) on one core";
    } else if (op.attrs.contains("scatter")) {
      op.work_division = "one core: torch-spyre runs indirect access (a scatter) on one core";
    } else if (wanted != options.split_overrides.end()) {
      override_used[wanted->first] = true;
      slices = overridden(g, op, space, units, slices, wanted->second, options.cores);
      if (device_op_info(op)->kind == OpKind::TopK) check_topk_slices(g, op, space, slices, options);
    } else if (hint_names_a_dim(op.work_div, iteration_dim_names(g, space))) {
      // torch-spyre's spyre_hint(work_div=...): the named dims split as asked, the rest whole.
      std::vector<bool> pinned(space.dims.size(), false);
      if (device_op_info(op)->kind == OpKind::TopK) pinned.back() = true;
      const auto hinted = apply_work_div_hint(g.describe(op), space, iteration_dim_names(g, space), op.work_div, units,
                                              options.cores, pinned);
      slices = hinted.slices;
      if (device_op_info(op)->kind == OpKind::TopK) check_topk_slices(g, op, space, slices, options);
      op.work_division = "user-hint: work_div" + (hinted.skipped.empty() ? "" : " (" + hinted.skipped + ")");
    } else if (device_op_info(op)->kind == OpKind::TopK) {
      slices = topk_slices(g, op, space, units, options);
      op.work_division = "topk: k over the fewest cores leaving each at most " +
                         std::to_string(options.device.topk_k_per_core) + " results, the searched dim whole";
    } else {
      slices = default_rule_slices(space, units, slices, options.cores);
      if (options.work_division == "torch-spyre" && op.type == "batchmatmul") {
        const auto chosen = torch_spyre_slices(op, space, units, span_minimum(op, space), slices, options);
        if (!chosen.empty()) slices = chosen;
      } else if (options.bmm_by_model() && !device_op_info(op)->windowed) {
        const OpKind kind = device_op_info(op)->kind;
        std::vector<int64_t> chosen;
        if (op.type == "batchmatmul") {
          chosen = model_slices(op, space, units, span_minimum(op, space), slices, options);
        } else if (options.ops_by_model() &&
                   (kind == OpKind::Elementwise || kind == OpKind::Reduction || kind == OpKind::Copy)) {
          // With LX planning, split_lx_chain then scores these divisions
          // with the traffic LX planning leaves the rest of the graph.
          chosen = model_op_slices(g, op, space, units, slices, options);
        }
        if (!chosen.empty()) slices = chosen;
      }
    }
    assign_splits(op, space, slices);
    // Its output's dims take the names its operands give them, for the hints of later ops.
    Tensor& out = g.tensors[static_cast<size_t>(op.outputs[0])];
    if (out.dim_names.empty()) {
      const auto names = iteration_dim_names(g, space);
      const Operand& result = space.operands.back();
      if (std::any_of(names.begin(), names.end(), [](const std::string& n) { return !n.empty(); })) {
        for (int it : result.iter_of) out.dim_names.push_back(names[static_cast<size_t>(it)]);
      }
    }
  }
  for (const auto& [name, used] : override_used) {
    if (!used)
      fail("", "--split " + name,
           "no device op writes a tensor named '" + name + "' (the decisions table lists each op's output)");
  }
}

}  // namespace spyre::compiler
