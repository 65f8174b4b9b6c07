// Split x LX chain scoring (--work-division model with --lx-planning): work
// distribution times each batchmatmul's splits alone, but its split also sets
// the per-core slices of the tensors it shares with its neighbours, and LX
// planning keeps an intermediate in LX only when every op that touches it
// slices it alike (core_div_mismatch otherwise). A softmax feeding attn@V
// stays in LX under one split of the bmm and goes through HBM under another.
// So each searched bmm's candidates are scored as a chain: the split's kernel
// time plus, after LX split alignment and LX planning with that split, the
// bytes the graph's other ops move through HBM that LX could have held
// (each write and read of an intermediate LX left there, each read of a
// graph input or weight, which a stage-4 clone into LX cuts to one), at the
// card's DRAM rate the cost model gives (SplitCostModel::hbm_gbps): what
// differs between splits is what LX holds. The bmm's own
// operand reads are in its kernel time, which is timed with every operand in
// HBM: an operand that LX would hold makes the bmm faster than its score
// says, so the score leans towards the op's own fastest split. Splits are scored in order of a lower bound
// (a split timed only by its bound is simulated when it could win); when the
// chain's pick differs from the op's fastest, op.lx_chain says why.
// With --work-division model-all the other ops' divisions (the rule's at each
// core count, op_split.h) are scored the same way, each as LX split
// alignment then leaves the op, and keep the rule's unless the chain beats it
// by kOpSearchMargin (the margin op-alone timing needs).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

#include "compiler/ir/iteration_space.h"
#include "compiler/passes/passes.h"
#include "compiler/split/bmm_search.h"
#include "compiler/split/op_split.h"
#include "runtime/error.h"

namespace spyre::compiler {

namespace {

// The graph after LX planning with the op's splits replaced.
Graph planned_with(const Graph& g, size_t op_index, const std::vector<int64_t>& slices, const CompileOptions& options) {
  Graph copy = g;
  Op& op = copy.ops[op_index];
  assign_splits(op, iteration_space(copy, op), slices);
  lx_split_alignment(copy, options);
  if (options.lx.stage >= 4) clone_input_nodes(copy, options);
  scratchpad_planning(copy, options);
  return copy;
}

// Where `op` is in a graph planned from the one it belongs to: cloning graph
// inputs (LX stage 4) inserts ops before their readers, so indices move;
// an op keeps its outputs (clones append their tensors).
size_t index_in(const Graph& planned, const Op& op) {
  for (size_t i = 0; i < planned.ops.size(); ++i) {
    if (planned.ops[i].outputs == op.outputs && planned.ops[i].type == op.type) return i;
  }
  fail(planned.source, "split_lx_chain",
       "internal: op writing tensor " + std::to_string(op.outputs.front()) + " missing after LX planning");
}

// The op's slices per iteration dim.
std::vector<int64_t> slices_of(const Op& op, const IterationSpace& space) {
  std::vector<int64_t> out;
  for (const auto& d : space.dims) out.push_back(op.splits.count(d.label) ? op.splits.at(d.label) : 1);
  return out;
}

// Seed 001's rule's division of the op (after span reduction's splits).
std::vector<int64_t> rule_division(const Graph& g, const Op& op, const IterationSpace& space, int cores) {
  std::vector<int64_t> span(space.dims.size(), 1);
  for (const auto& [label, n] : op.span_splits) span[static_cast<size_t>(space.find(label))] = n;
  return default_rule_slices(space, split_units(g, space), span, cores);
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

// What the ops other than `except` move through HBM that LX planning could
// have kept on chip: each write and read of an intermediate LX left in HBM,
// and each read of a graph input or weight (stage 4 clones a multi-use one
// into LX when its readers slice it alike: then the clone reads it once).
int64_t hbm_lx_traffic(const Graph& g, size_t except) {
  int64_t bytes = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    if (i == except || is_view_op(op.type)) continue;
    auto add = [&](int t, bool read) {
      const Tensor& owner = g.tensors[static_cast<size_t>(g.storage_of(t))];
      if (owner.in_lx) return;
      if (owner.role == Role::Intermediate || (read && (owner.role == Role::Input || owner.role == Role::Weight)))
        bytes += tensor_bytes(g.tensors[static_cast<size_t>(t)]);
    };
    for (int t : op.inputs) add(t, true);
    for (int t : op.outputs) add(t, false);
  }
  return bytes;
}

// What LX holds in plan `a` but not in plan `b`: intermediates by name, a
// clone of an input as "<input> (cloned)" (clones are numbered per plan).
std::string gained_lx(const Graph& a, const Graph& b) {
  auto held = [](const Graph& g) {
    std::vector<std::string> names;
    for (const auto& t : g.tensors) {
      if (t.in_lx)
        names.push_back(t.clone_of >= 0 ? g.tensors[static_cast<size_t>(t.clone_of)].name + " (cloned)" : t.name);
    }
    return names;
  };
  const std::vector<std::string> in_b = held(b);
  std::string out;
  for (const auto& name : held(a)) {
    if (std::find(in_b.begin(), in_b.end(), name) == in_b.end()) out += (out.empty() ? "" : ", ") + name;
  }
  return out.empty() ? "-" : out;
}

// One scored split: its kernel time (or a lower bound until simulated) and
// the other ops' HBM traffic LX could hold, once LX is planned with it.
struct Scored {
  std::string name;
  double us = 0;
  bool exact = false;
  int64_t bytes = -1;  // -1: not planned
};

double score(const Scored& s, double bytes_per_us) { return s.us + static_cast<double>(s.bytes) / bytes_per_us; }

// "LX chain: <pick>, ... over the op's fastest <own>, ...: keeps <tensors> in LX".
std::string replaced_note(const Scored& pick, const Scored& own, double bytes_per_us, const std::string& gained,
                          const std::string& own_label) {
  char note[512];
  std::snprintf(
      note, sizeof note,
      "LX chain: %s, %.1f us + the other ops' %.1f MB through HBM that LX could hold, at %.0f GB/s = %.1f us, "
      "over %s %s, %.1f us + %.1f MB = %.1f us: keeps %s in LX",
      pick.name.c_str(), pick.us, static_cast<double>(pick.bytes) / 1e6, bytes_per_us / 1e3, score(pick, bytes_per_us),
      own_label.c_str(), own.name.c_str(), own.us, static_cast<double>(own.bytes) / 1e6, score(own, bytes_per_us),
      gained.c_str());
  return note;
}

// "LX chain: kept, ...; the least traffic, with <least>, ...".
std::string kept_note(const Scored& own, const Scored& least, double bytes_per_us) {
  char note[512];
  std::snprintf(note, sizeof note,
                "LX chain: kept, %.1f us + the other ops' %.1f MB through HBM that LX could hold, at %.0f GB/s = "
                "%.1f us; the least traffic, with %s, %s%.1f us + %.1f MB = %s%.1f us",
                own.us, static_cast<double>(own.bytes) / 1e6, bytes_per_us / 1e3, score(own, bytes_per_us),
                least.name.c_str(), least.exact ? "" : ">= ", least.us, static_cast<double>(least.bytes) / 1e6,
                least.exact ? "" : ">= ", score(least, bytes_per_us));
  return note;
}

void score_batchmatmul(Graph& g, size_t e, const CompileOptions& options, double bytes_per_us) {
  Op& op = g.ops[e];
  const IterationSpace space = iteration_space(g, op);
  const BmmSearch search = bmm_search(space, split_units(g, space), span_minimum(op, space), options.cores);
  if (search.candidates.empty()) return;
  std::map<std::string, const Op::SplitCandidate*> timed;
  for (const auto& c : op.split_candidates) timed[c.split] = &c;
  const std::vector<int64_t> own_slices = slices_of(op, space);

  std::vector<MatmulSplit> splits;
  std::vector<Scored> scored;
  size_t own = search.candidates.size();
  for (const MatmulSplit& c : search.candidates) {
    const auto it = timed.find(c.text());
    if (it == timed.end() || !std::isfinite(it->second->kernel_us)) continue;
    if (search.slices(c) == own_slices) own = scored.size();
    splits.push_back(c);
    scored.push_back({c.text(), it->second->kernel_us, !it->second->lower_bound});
  }
  if (own == scored.size()) return;
  auto score_of = [&](const Scored& s) { return score(s, bytes_per_us); };

  // Planning LX for a split costs a few ms, so splits are planned lazily,
  // once per distinct set of input views. The op's split decides the LX
  // fate of the intermediates and inputs it reads; at best another split
  // brings all of those into LX, so no split's traffic is below the own
  // split's minus what the other ops move of those (a bound that assumes the
  // split does not change the placement of tensors the op does not touch).
  const Graph own_plan = planned_with(g, e, own_slices, options);
  const size_t own_index = index_in(own_plan, op);
  scored[own].bytes = hbm_lx_traffic(own_plan, own_index);
  int64_t adjacent = 0;
  for (int t : op.inputs) {
    const int owner = g.storage_of(t);
    const Tensor& held = own_plan.tensors[static_cast<size_t>(owner)];
    if (held.in_lx || (held.role != Role::Intermediate && held.role != Role::Input && held.role != Role::Weight))
      continue;
    for (size_t i = 0; i < own_plan.ops.size(); ++i) {
      const Op& other = own_plan.ops[i];
      if (i == own_index || is_view_op(other.type)) continue;
      for (const auto* list : {&other.inputs, &other.outputs}) {
        for (int u : *list)
          adjacent += own_plan.storage_of(u) == owner ? tensor_bytes(own_plan.tensors[static_cast<size_t>(u)]) : 0;
      }
    }
  }
  const double floor_us = static_cast<double>(std::max<int64_t>(0, scored[own].bytes - adjacent)) / bytes_per_us;
  std::map<std::string, int64_t> bytes_of_views = {{views_key(own_plan, own_plan.ops[own_index]), scored[own].bytes}};
  std::vector<size_t> order(scored.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scored[a].us < scored[b].us; });
  size_t best = own, least = own;
  for (size_t i : order) {
    if (scored[i].us + floor_us >= score_of(scored[best])) break;
    Scored& s = scored[i];
    if (s.bytes < 0) {
      Graph probe = g;
      assign_splits(probe.ops[e], space, search.slices(splits[i]));
      const std::string key = views_key(probe, probe.ops[e]);
      auto known = bytes_of_views.find(key);
      if (known == bytes_of_views.end()) {
        const Graph plan = planned_with(g, e, search.slices(splits[i]), options);
        known = bytes_of_views.emplace(key, hbm_lx_traffic(plan, index_in(plan, op))).first;
      }
      s.bytes = known->second;
    }
    if (s.bytes < scored[least].bytes || (s.bytes == scored[least].bytes && score_of(s) < score_of(scored[least])))
      least = i;
    if (score_of(s) >= score_of(scored[best])) continue;
    if (!s.exact) {
      const SplitTime t = options.split_cost->matmul_kernel_us(search.shape, {splits[i]}).front();
      s.us = t.kernel_us;
      s.exact = !t.lower_bound;
      for (auto& c : op.split_candidates) {
        if (c.split == s.name) c = {c.split, t.kernel_us, t.lower_bound, t.bound_us};
      }
    }
    if (s.exact && score_of(s) < score_of(scored[best])) best = i;
  }
  if (best == own) {
    // Kept: say what the least traffic among the splits planned would have cost.
    if (least != own) op.lx_chain = kept_note(scored[own], scored[least], bytes_per_us);
    return;
  }
  const Graph with_best = planned_with(g, e, search.slices(splits[best]), options);
  op.lx_chain =
      replaced_note(scored[best], scored[own], bytes_per_us, gained_lx(with_best, own_plan), "the op's fastest");
  assign_splits(op, space, search.slices(splits[best]));
}

// A pointwise op, reduction or copy searched by --work-division model-all:
// each of its divisions (the rule's at each core count) planned with the
// graph, and scored as LX split alignment leaves the op (alignment may move
// a pointwise op onto a neighbour's slicing: that slicing's time counts,
// simulated if the search had not). The rule's division stays unless the
// best score beats its own by kOpSearchMargin.
void score_op_divisions(Graph& g, size_t e, const std::vector<int64_t>& own_slices, const CompileOptions& options,
                        double bytes_per_us) {
  Op& op = g.ops[e];
  const IterationSpace space = iteration_space(g, op);
  const std::vector<int64_t> units = split_units(g, space);
  const auto candidates = op_split_candidates(space, units, span_minimum(op, space), options.cores);
  const std::vector<int64_t> rule_slices = rule_division(g, op, space, options.cores);
  // A division's kernel time, simulated when the search left only a bound
  // (or never timed it: a slicing alignment adopts).
  auto time_of = [&](const std::vector<int64_t>& slices) {
    const std::string name = slices_text(space, slices);
    for (const auto& c : op.split_candidates) {
      if (c.split == name && !c.lower_bound) return c.kernel_us;
    }
    const OpSplitQuery query = op_split_query(g, op, {slices}, options);
    const std::vector<SplitTime> t = options.split_cost->op_kernel_us(query);
    const double us =
        t.empty() || t.front().lower_bound ? std::numeric_limits<double>::infinity() : t.front().kernel_us;
    std::erase_if(op.split_candidates, [&](const auto& c) { return c.split == name; });
    op.split_candidates.push_back({name, us, false, t.empty() ? 0.0 : t.front().bound_us});
    std::stable_sort(op.split_candidates.begin(), op.split_candidates.end(),
                     [](const auto& a, const auto& b) { return a.kernel_us < b.kernel_us; });
    return us;
  };

  // Every division planned (a few ms each), its time as the search left it
  // (exact, or a lower bound); then simulated in order of score only while
  // one could still beat the best.
  struct Division {
    std::vector<int64_t> slices, effective;  // as chosen, as alignment leaves them
    Scored scored;
    Graph plan;
  };
  std::vector<Division> divisions;
  size_t own = candidates.size(), rule = candidates.size();
  for (const auto& slices : candidates) {
    Division d{slices, {}, {slices_text(space, slices)}, planned_with(g, e, slices, options)};
    const size_t i = index_in(d.plan, op);
    d.effective = slices_of(d.plan.ops[i], space);
    d.scored.bytes = hbm_lx_traffic(d.plan, i);
    const std::string effective = slices_text(space, d.effective);
    if (d.effective != slices) d.scored.name += " (" + effective + " after LX split alignment)";
    for (const auto& c : op.split_candidates) {
      if (c.split == effective) std::tie(d.scored.us, d.scored.exact) = std::make_pair(c.kernel_us, !c.lower_bound);
    }
    if (slices == own_slices) own = divisions.size();
    if (slices == rule_slices) rule = divisions.size();
    divisions.push_back(std::move(d));
  }
  if (own == divisions.size() || rule == divisions.size()) return;
  auto score_of = [&](size_t i) { return score(divisions[i].scored, bytes_per_us); };
  auto make_exact = [&](size_t i) {
    Scored& s = divisions[i].scored;
    if (!s.exact) s.us = time_of(divisions[i].effective);
    s.exact = true;
  };
  std::vector<size_t> order(divisions.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score_of(a) < score_of(b); });
  make_exact(own);
  size_t best = own;
  for (size_t i : order) {
    if (score_of(i) >= score_of(best)) break;
    make_exact(i);
    if (score_of(i) < score_of(best)) best = i;
  }
  // The rule's division stays unless beaten by the margin of the op's time
  // (the rest of the score is the graph's traffic, the same for most).
  auto within_margin = [&] { return score_of(rule) - score_of(best) <= kOpSearchMargin * divisions[best].scored.us; };
  if (best != rule && within_margin()) {
    make_exact(rule);
    if (within_margin()) best = rule;
  }
  assign_splits(op, space, divisions[best].slices);
  if (divisions[best].effective == divisions[own].effective) {
    if (divisions[own].effective != own_slices)
      op.lx_chain = "LX chain: the op alone's pick, " + divisions[own].scored.name +
                    ": LX split alignment gives it its neighbours' slicing of the intermediates they share";
    return;
  }
  op.lx_chain = replaced_note(divisions[best].scored, divisions[own].scored, bytes_per_us,
                              gained_lx(divisions[best].plan, divisions[own].plan), "the op alone's pick");
  if (best == rule)
    op.lx_chain += " (the default rule's: the op alone's pick does not beat it by " +
                   std::to_string(static_cast<int>(kOpSearchMargin * 100)) + "% of its time in the chain)";
}

}  // namespace

void split_lx_chain(Graph& g, const CompileOptions& options) {
  if (!options.lx.enabled || !options.bmm_by_model() || options.split_cost == nullptr) return;
  const double bytes_per_us = options.split_cost->hbm_gbps() * 1e3;
  if (!(bytes_per_us > 0)) return;
  // The other ops searched (model-all) start from the rule's division: each
  // is then scored with the ops before it as the chain left them and the ops
  // after it on the rule, not on picks only the op alone has seen (one op's
  // slicing decides whether its neighbours' shared tensors get LX).
  std::map<size_t, std::vector<int64_t>> own_pick;
  for (size_t e = 0; e < g.ops.size(); ++e) {
    Op& op = g.ops[e];
    if (op.split_candidates.empty() || op.type == "batchmatmul") continue;
    const IterationSpace space = iteration_space(g, op);
    own_pick[e] = slices_of(op, space);
    assign_splits(op, space, rule_division(g, op, space, options.cores));
  }
  for (size_t e = 0; e < g.ops.size(); ++e) {
    if (g.ops[e].split_candidates.empty()) continue;  // not searched (the rule kept, or --split)
    if (g.ops[e].type == "batchmatmul") {
      score_batchmatmul(g, e, options, bytes_per_us);
    } else {
      score_op_divisions(g, e, own_pick.at(e), options, bytes_per_us);
    }
  }
}

}  // namespace spyre::compiler
