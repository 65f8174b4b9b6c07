// Split x LX chain scoring (--work-division model with --lx-planning): work
// distribution times each batchmatmul's splits alone, but its split also sets
// the per-core slices of the tensors it shares with its neighbours, and LX
// planning keeps an intermediate in LX only when every op that touches it
// slices it alike (core_div_mismatch otherwise). A softmax feeding attn@V
// stays in LX under one split of the bmm and goes through HBM under another.
// So each searched bmm's candidates are scored as a chain: the split's kernel
// time plus, after LX split alignment and LX planning with that split, the
// bytes the graph's other ops move through HBM for intermediates LX planning
// left there (each write and read of the whole tensor), at the card's DRAM
// rate the cost model gives (SplitCostModel::hbm_gbps). Only intermediates
// count: what differs between splits is which of them LX holds. The bmm's own
// operand reads are in its kernel time, which is timed with every operand in
// HBM: an operand that LX would hold makes the bmm faster than its score
// says, so the score leans towards the op's own fastest split. Splits are scored in order of a lower bound
// (a split timed only by its bound is simulated when it could win); when the
// chain's pick differs from the op's fastest, op.lx_chain says why.

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "compiler/bmm_search.h"
#include "compiler/iteration_space.h"
#include "compiler/passes.h"

namespace spyre::compiler {

namespace {

// The graph after LX planning with the op's splits replaced.
Graph planned_with(const Graph& g, size_t op_index, const std::vector<int64_t>& slices, const CompileOptions& options) {
  Graph copy = g;
  Op& op = copy.ops[op_index];
  assign_splits(op, iteration_space(copy, op), slices);
  align_splits_for_lx(copy, options);
  if (options.lx.stage >= 4) clone_multi_use_inputs(copy, options);
  plan_scratchpad(copy, options);
  return copy;
}

// What the op's splits decide for LX planning: the per-core views of the
// inputs LX could hold (intermediates; graph inputs, which stage 4 may clone
// into LX). A bmm's output never goes to LX, nor do weights. Splits that give
// the same views plan LX the same way.
std::string views_key(const Graph& g, const Op& op) {
  const IterationSpace s = iteration_space(g, op);
  std::string key;
  for (const auto& operand : s.operands) {
    const Role role = g.tensors[static_cast<size_t>(g.storage_of(operand.tensor))].role;
    if (operand.output || (role != Role::Intermediate && role != Role::Input)) continue;
    for (const auto& v : core_views(g, op, s, operand)) {
      for (int64_t x : v.origin) key += std::to_string(x) + ",";
      key += ":";
      for (int64_t x : v.extent) key += std::to_string(x) + ",";
      key += ";";
    }
    key += "|";
  }
  return key;
}

int64_t tensor_bytes(const Tensor& t) { return t.elements() * (kStickBytes / stick_elems(t.dtype)); }

// What the ops other than `except` move through HBM for intermediates not in
// LX: each write and each read of the whole tensor.
int64_t hbm_intermediate_bytes(const Graph& g, size_t except) {
  int64_t bytes = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    if (i == except || is_view_op(op.type)) continue;
    auto add = [&](int t) {
      const Tensor& owner = g.tensors[static_cast<size_t>(g.storage_of(t))];
      if (owner.role != Role::Intermediate || owner.in_lx) return;
      bytes += tensor_bytes(g.tensors[static_cast<size_t>(t)]);
    };
    for (int t : op.inputs) add(t);
    for (int t : op.outputs) add(t);
  }
  return bytes;
}

// Names of the intermediates in LX in `a` but not in `b`.
std::string gained_lx(const Graph& a, const Graph& b) {
  std::string out;
  for (size_t t = 0; t < a.tensors.size(); ++t) {
    if (a.tensors[t].in_lx && !b.tensors[t].in_lx && a.tensors[t].clone_of < 0)
      out += (out.empty() ? "" : ", ") + a.tensors[t].name;
  }
  return out.empty() ? "-" : out;
}

}  // namespace

void score_splits_with_lx(Graph& g, const CompileOptions& options) {
  if (!options.lx.enabled || !options.bmm_by_model() || options.split_cost == nullptr) return;
  const double bytes_per_us = options.split_cost->hbm_gbps() * 1e3;
  if (!(bytes_per_us > 0)) return;
  for (size_t e = 0; e < g.ops.size(); ++e) {
    Op& op = g.ops[e];
    if (op.split_candidates.empty()) continue;  // not searched (another op type, or --split)
    const IterationSpace space = iteration_space(g, op);
    const BmmSearch search = bmm_search(space, split_units(g, space), span_minimum(op, space), options.cores);
    if (search.candidates.empty()) continue;
    std::map<std::string, const Op::SplitCandidate*> timed;
    for (const auto& c : op.split_candidates) timed[c.split] = &c;
    const std::vector<int64_t> own_slices = [&] {
      std::vector<int64_t> out;
      for (const auto& d : space.dims) out.push_back(op.splits.count(d.label) ? op.splits.at(d.label) : 1);
      return out;
    }();

    struct Scored {
      MatmulSplit split;
      double us = 0;  // kernel time, or its lower bound until simulated
      bool exact = false;
      int64_t bytes = -1;  // the other ops' intermediates through HBM (-1: not planned)
    };
    std::vector<Scored> scored;
    size_t own = search.candidates.size();
    for (const MatmulSplit& c : search.candidates) {
      const auto it = timed.find(c.text());
      if (it == timed.end() || !std::isfinite(it->second->kernel_us)) continue;
      if (search.slices(c) == own_slices) own = scored.size();
      scored.push_back({c, it->second->kernel_us, !it->second->lower_bound});
    }
    if (own == scored.size()) continue;
    auto score = [&](const Scored& s) { return s.us + static_cast<double>(s.bytes) / bytes_per_us; };

    // Planning LX for a split costs a few ms, so splits are planned lazily,
    // once per distinct set of input views. The op's split decides the LX
    // fate of the intermediates it reads; at best another split brings all of
    // those into LX, so no split's traffic is below the own split's minus
    // what those intermediates move (a bound that assumes the split does not
    // change the placement of tensors the op does not touch).
    const Graph own_plan = planned_with(g, e, own_slices, options);
    scored[own].bytes = hbm_intermediate_bytes(own_plan, e);
    int64_t adjacent = 0;
    for (int t : op.inputs) {
      const int owner = g.storage_of(t);
      if (own_plan.tensors[static_cast<size_t>(owner)].role != Role::Intermediate ||
          own_plan.tensors[static_cast<size_t>(owner)].in_lx)
        continue;
      for (size_t i = 0; i < own_plan.ops.size(); ++i) {
        const Op& other = own_plan.ops[i];
        if (i == e || is_view_op(other.type)) continue;
        for (const auto* list : {&other.inputs, &other.outputs}) {
          for (int u : *list)
            adjacent += own_plan.storage_of(u) == owner ? tensor_bytes(own_plan.tensors[static_cast<size_t>(u)]) : 0;
        }
      }
    }
    const double floor_us = static_cast<double>(std::max<int64_t>(0, scored[own].bytes - adjacent)) / bytes_per_us;
    std::map<std::string, int64_t> bytes_of_views = {{views_key(own_plan, own_plan.ops[e]), scored[own].bytes}};
    std::vector<size_t> order(scored.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scored[a].us < scored[b].us; });
    size_t best = own, least = own;
    for (size_t i : order) {
      if (scored[i].us + floor_us >= score(scored[best])) break;
      Scored& s = scored[i];
      if (s.bytes < 0) {
        Graph probe = g;
        assign_splits(probe.ops[e], space, search.slices(s.split));
        const std::string key = views_key(probe, probe.ops[e]);
        auto known = bytes_of_views.find(key);
        if (known == bytes_of_views.end())
          known = bytes_of_views
                      .emplace(key, hbm_intermediate_bytes(planned_with(g, e, search.slices(s.split), options), e))
                      .first;
        s.bytes = known->second;
      }
      if (s.bytes < scored[least].bytes || (s.bytes == scored[least].bytes && score(s) < score(scored[least])))
        least = i;
      if (score(s) >= score(scored[best])) continue;
      if (!s.exact) {
        const SplitTime t = options.split_cost->matmul_kernel_us(search.shape, {s.split}).front();
        s.us = t.kernel_us;
        s.exact = !t.lower_bound;
        for (auto& c : op.split_candidates) {
          if (c.split == s.split.text()) c = {c.split, t.kernel_us, t.lower_bound, t.bound_us};
        }
      }
      if (s.exact && score(s) < score(scored[best])) best = i;
    }
    if (best == own) {
      // Kept: say what the least traffic among the splits planned would have cost.
      if (least == own) continue;
      char note[512];
      std::snprintf(note, sizeof note,
                    "LX chain: kept, %.1f us + the other ops' %.1f MB of intermediates through HBM at %.0f GB/s = "
                    "%.1f us; the least traffic, with %s, %s%.1f us + %.1f MB = %s%.1f us",
                    scored[own].us, static_cast<double>(scored[own].bytes) / 1e6, bytes_per_us / 1e3,
                    score(scored[own]), scored[least].split.text().c_str(),
                    scored[least].exact ? "" : ">= ", scored[least].us, static_cast<double>(scored[least].bytes) / 1e6,
                    scored[least].exact ? "" : ">= ", score(scored[least]));
      op.lx_chain = note;
      continue;
    }
    const Graph with_best = planned_with(g, e, search.slices(scored[best].split), options);
    char note[512];
    std::snprintf(note, sizeof note,
                  "LX chain: %s, %.1f us + the other ops' %.1f MB of intermediates through HBM at %.0f GB/s = %.1f us, "
                  "over the op's "
                  "fastest %s, %.1f us + %.1f MB = %.1f us: keeps %s in LX",
                  scored[best].split.text().c_str(), scored[best].us, static_cast<double>(scored[best].bytes) / 1e6,
                  bytes_per_us / 1e3, score(scored[best]), scored[own].split.text().c_str(), scored[own].us,
                  static_cast<double>(scored[own].bytes) / 1e6, score(scored[own]),
                  gained_lx(with_best, own_plan).c_str());
    op.lx_chain = note;
    assign_splits(op, space, search.slices(scored[best].split));
  }
}

}  // namespace spyre::compiler
