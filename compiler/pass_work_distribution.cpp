// Work distribution (torch-spyre's work_distribution pass, seed 001): starting
// from the splits span reduction committed, give the remaining cores to the
// output dims in decreasing order of their stick-adjusted size, each taking
// core_split(units, remaining) — the largest divisor of its units that is at
// most the cores left — and then to at most one reduction dim (matmul's K
// among them): the one with the largest core_split of what remains, unless span
// reduction already split a reduction dim. --split overrides all of it per op.
// With --work-division model, each batchmatmul instead takes the fastest of
// its legal splits as the card model (options.split_cost) times them.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "compiler/bmm_search.h"
#include "compiler/iteration_space.h"
#include "compiler/passes.h"
#include "runtime/error.h"
#include "runtime/text.h"

namespace spyre::compiler {

int64_t core_split(int64_t units, int64_t cores) {
  for (int64_t c = std::min(units, cores); c > 1; --c) {
    if (units % c == 0) return c;
  }
  return 1;
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
    const int64_t u = units[static_cast<size_t>(i)];
    if (n < 1 || u % n != 0) {
      const bool sticks = u != space.dims[static_cast<size_t>(i)].size;
      fail("", where,
           "dim '" + label + "' has " + std::to_string(u) + (sticks ? " whole sticks" : " elements") + ", which " +
               std::to_string(n) + " slices do not divide");
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
  const size_t simulated =
      static_cast<size_t>(std::count_if(times.begin(), times.end(), [](const SplitTime& t) { return !t.lower_bound; }));
  const SplitPick picked = pick_split(candidates, times);
  const size_t best = picked.pick;
  if (best == candidates.size() || !std::isfinite(times[best].kernel_us)) return {};
  // The default rule's split, for the record.
  std::string rule = "-";
  char rule_us[32] = "-";
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (slices_of(candidates[i]) == default_slices) {
      rule = candidates[i].text();
      std::snprintf(rule_us, sizeof rule_us, "%s%.1f us", times[i].lower_bound ? ">= " : "", times[i].kernel_us);
    }
  }
  char tie[160] = "";
  if (picked.fastest != best)
    std::snprintf(tie, sizeof tie, " on more cores than the fastest, %s %.1f us (a tie: within %.0f%%)",
                  candidates[picked.fastest].text().c_str(), times[picked.fastest].kernel_us,
                  kSplitTimeTolerance * 100);
  char note[480];
  std::snprintf(note, sizeof note,
                "model: %s %.1f us, %s of %zu splits%s (%zu simulated, the rest bounded above it; the default "
                "rule's %s: %s)",
                candidates[best].text().c_str(), times[best].kernel_us, picked.fastest == best ? "fastest" : "picked",
                candidates.size(), tie, simulated, rule.c_str(), rule_us);
  op.work_division = note;
  op.split_candidates.clear();
  for (size_t i = 0; i < candidates.size(); ++i)
    op.split_candidates.push_back({candidates[i].text(), times[i].kernel_us, times[i].lower_bound, times[i].bound_us});
  std::stable_sort(op.split_candidates.begin(), op.split_candidates.end(),
                   [](const auto& a, const auto& b) { return a.kernel_us < b.kernel_us; });
  return slices_of(candidates[best]);
}

}  // namespace

void distribute_work(Graph& g, const CompileOptions& options) {
  std::map<std::string, bool> override_used;
  for (const auto& [name, s] : options.split_overrides) override_used[name] = false;
  for (Op& op : g.ops) {
    if (!device_op_info(op)) continue;
    const IterationSpace space = iteration_space(g, op);
    const std::vector<int64_t> units = split_units(g, space);
    std::vector<int64_t> slices(space.dims.size(), 1);
    for (const auto& [label, n] : op.span_splits) slices[static_cast<size_t>(space.find(label))] = n;
    auto wanted = options.split_overrides.find(g.tensors[static_cast<size_t>(op.outputs[0])].name);
    if (wanted != options.split_overrides.end()) {
      override_used[wanted->first] = true;
      slices = overridden(g, op, space, units, slices, wanted->second, options.cores);
    } else {
      int64_t remaining =
          options.cores / std::accumulate(slices.begin(), slices.end(), int64_t{1}, std::multiplies<>());
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
      if (options.work_division == "model" && op.type == "batchmatmul") {
        const auto chosen = model_slices(op, space, units, span_minimum(op, space), slices, options);
        if (!chosen.empty()) slices = chosen;
      }
    }
    assign_splits(op, space, slices);
  }
  for (const auto& [name, used] : override_used) {
    if (!used)
      fail("", "--split " + name,
           "no device op writes a tensor named '" + name + "' (the decisions table lists each op's output)");
  }
}

}  // namespace spyre::compiler
