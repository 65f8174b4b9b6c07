// LX scratchpad planning (torch-spyre's scratchpad_planning, seed 000), run
// after work division because per-core buffer sizes and core_div_mismatch
// need the splits:
//   1. (earlier passes: lx_split_alignment, lx_split_alignment.cpp,
//      and at stage 4 clone_input_nodes, clone_input_nodes.cpp);
//   2. buffers: every intermediate the stage makes eligible, one per core
//      slice, live from the op that writes it to the last op that reads it
//      (time = device op order); graph inputs and outputs stay in HBM, and so
//      does a tensor whose ops disagree on the per-core view (no ring
//      transfers yet), that a view or a copy reads, or that exceeds LX;
//   3. one solver (lx_solver.h) places them in the usable LX: the 2 MiB
//      minus the backend's reservation, aligned down to the LX alignment;
//   4. placed tensors get in_lx and their address, the same on every core;
//      a clone whose output stayed in HBM is removed again.
// LX persists across SDSCs and bundles (the seed's assumption; `run --vf`
// reports what breaks when it does not).

#include <algorithm>

#include "compiler/ir/iteration_space.h"
#include "compiler/lx/lx_solver.h"
#include "compiler/passes/passes.h"
#include "runtime/error.h"

namespace spyre::compiler {

namespace {

// The stage at which an op's output becomes LX-eligible (0: never).
int eligible_from_stage(const Op& op, bool is_clone) {
  if (is_clone) return 4;
  switch (device_op_info(op)->kind) {
    case OpKind::Reduction:
      return 2;
    case OpKind::Elementwise:
      return 3;  // OP_GOOD_FOR_LX_INPLACE in torch-spyre flags exp and sub; every pointwise op here
    default:
      return 0;  // matmul outputs, copies and shuffles stay in HBM
  }
}

struct Use {
  int step;  // index among device ops
  int op;    // index into graph.ops
  bool output;
};

int64_t view_bytes(const Tensor& t, const CoreView& v) {
  const int64_t se = stick_elems(t.dtype);
  return layout_geometry(v.extent, t.layout, se, kStickBytes / se).bytes;
}

bool is_clone(const Graph& g, int tensor) { return g.tensors[static_cast<size_t>(tensor)].clone_of >= 0; }

// Every access of every tensor by a device op, in op order, and what keeps a
// tensor out of LX: a view or copy touching it, or ops that view it
// differently per core.
struct TensorUses {
  std::vector<std::vector<Use>> uses;
  std::vector<bool> blocked;   // read or written by a view or a copy other than a clone
  std::vector<bool> mismatch;  // core_div_mismatch
  std::vector<std::vector<CoreView>> view;
};

TensorUses collect_uses(const Graph& g) {
  TensorUses u;
  u.uses.resize(g.tensors.size());
  u.blocked.assign(g.tensors.size(), false);
  u.mismatch.assign(g.tensors.size(), false);
  u.view.resize(g.tensors.size());
  int step = 0;
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Op& op = g.ops[o];
    if (is_view_op(op.type)) {
      for (const auto* list : {&op.inputs, &op.outputs}) {
        for (int t : *list) u.blocked[static_cast<size_t>(t)] = true;
      }
      continue;
    }
    const bool clone_op = op.type == "identity" && is_clone(g, op.outputs[0]);
    const OpKind kind = device_op_info(op)->kind;
    const IterationSpace s = iteration_space(g, op);
    for (const auto& operand : s.operands) {
      const auto t = static_cast<size_t>(operand.tensor);
      if (!clone_op && kind != OpKind::Elementwise && kind != OpKind::Reduction && kind != OpKind::Matmul)
        u.blocked[t] = true;
      const auto views = core_views(g, op, s, operand);
      if (u.view[t].empty()) {
        u.view[t] = views;
      } else if (views != u.view[t]) {
        u.mismatch[t] = true;
      }
      if (u.uses[t].empty() || u.uses[t].back().step != step)
        u.uses[t].push_back({step, static_cast<int>(o), operand.output});
    }
    ++step;
  }
  return u;
}

// The planning problem: one buffer per eligible intermediate (per-core
// slice size, live range in device-op steps); the excluded ones are noted in
// graph.lx with their reason.
struct Candidates {
  LxProblem problem;
  std::vector<int> tensor_of;  // problem buffer -> tensor
  std::vector<int> buffer_of;  // tensor -> problem buffer, -1
};

Candidates lx_candidates(Graph& g, const CompileOptions& options, const TensorUses& u, int64_t capacity,
                         int64_t align) {
  Candidates c;
  c.problem.source = g.source;
  c.problem.capacity = capacity;
  c.problem.alignment = align;
  c.buffer_of.assign(g.tensors.size(), -1);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& x = g.tensors[t];
    const auto& uses = u.uses[t];
    if (x.role != Role::Intermediate || uses.empty() || !uses.front().output) continue;
    const Op& producer = g.ops[static_cast<size_t>(uses.front().op)];
    const int from = eligible_from_stage(producer, is_clone(g, static_cast<int>(t)));
    if (from == 0 || from > options.lx.stage) continue;
    std::string reason;
    const bool indirect = std::any_of(uses.begin(), uses.end(), [&](const auto& use) {
      const Op& op = g.ops[static_cast<size_t>(use.op)];
      return (!use.output && op.attrs.contains("gather")) || op.attrs.contains("scatter");
    });
    // The input a window reads: each core reads its outputs' span (halos included), which no
    // producer's division of it into cores' LX gives, unless the window is one element at
    // stride 1 (a 1x1 conv reads as a pointwise op); a windowed op's output is like any other.
    const bool windowed = std::any_of(uses.begin(), uses.end(), [&](const auto& use) {
      const Op& op = g.ops[static_cast<size_t>(use.op)];
      const OpInfo* info = device_op_info(op);
      const auto ones = std::vector<int64_t>{1, 1};
      return info && info->windowed && !use.output && op.inputs[0] == static_cast<int>(t) &&
             (op.attrs.at("kernel").get<std::vector<int64_t>>() != ones ||
              op.attrs.at("stride").get<std::vector<int64_t>>() != ones);
    });
    if (indirect) {
      reason =
          "a gather's table or index, or a scatter's operand (torch-spyre keeps indirectly accessed tensors in HBM)";
    } else if (windowed) {
      reason = "the input of a windowed op (conv2d, depthwise conv, avgpool: its cores read overlapping spans)";
    } else if (u.blocked[t] || g.storage_of(static_cast<int>(t)) != static_cast<int>(t)) {
      reason = "read through a view or a copy";
    } else if (u.mismatch[t]) {
      reason = "core_div_mismatch: its ops divide it over the cores differently";
    }
    const int64_t bytes = reason.empty() ? view_bytes(x, u.view[t][0]) : 0;
    if (reason.empty() && bytes > capacity) {
      reason =
          "a core's slice (" + std::to_string(bytes) + " B) exceeds the usable LX (" + std::to_string(capacity) + " B)";
    }
    if (!reason.empty()) {
      g.lx.excluded.push_back(x.name + ": " + reason);
      continue;
    }
    LxBuffer b;
    b.name = x.name;
    b.size = (bytes + align - 1) / align * align;
    b.lower = uses.front().step;
    b.upper = uses.back().step + 1;
    for (const auto& use : uses) b.uses.push_back(use.step);
    c.buffer_of[t] = static_cast<int>(c.problem.buffers.size());
    c.tensor_of.push_back(static_cast<int>(t));
    c.problem.buffers.push_back(b);
  }
  return c;
}

// In-place reuse (stage 3): a pointwise op's output may take over the bytes
// of an input it reads for the last time, when the sizes agree.
void add_in_place_parents(const Graph& g, const TensorUses& u, Candidates& c) {
  auto& buffers = c.problem.buffers;
  for (size_t b = 0; b < buffers.size(); ++b) {
    const auto t = static_cast<size_t>(c.tensor_of[b]);
    const Op& producer = g.ops[static_cast<size_t>(u.uses[t].front().op)];
    if (device_op_info(producer)->kind != OpKind::Elementwise) continue;
    for (int in : producer.inputs) {
      const int p = c.buffer_of[static_cast<size_t>(in)];
      if (p < 0 || static_cast<size_t>(p) == b) continue;
      const LxBuffer& parent = buffers[static_cast<size_t>(p)];
      if (parent.upper == buffers[b].lower + 1 && parent.size == buffers[b].size)
        buffers[b].in_place_parents.push_back(p);
    }
  }
}

// Clones that stayed in HBM only add traffic: remove them (newest first, so
// the tensors they added come off the end of the list). A coarse-tiling
// loop's read copies stay wherever LX planning put them, as torch-spyre's do.
void remove_unplaced_clones(Graph& g, const Candidates& c) {
  for (int t = static_cast<int>(g.tensors.size()) - 1; t >= 0; --t) {
    if (!is_clone(g, t) || g.tensors[static_cast<size_t>(t)].in_lx) continue;
    auto op =
        std::find_if(g.ops.begin(), g.ops.end(), [&](const Op& o) { return !o.outputs.empty() && o.outputs[0] == t; });
    if (op->loop_trips > 0) continue;
    const int source = op->inputs[0];
    g.ops.erase(op);
    for (auto& o : g.ops) {
      for (int& in : o.inputs) {
        if (in == t) in = source;
      }
    }
    if (c.buffer_of[static_cast<size_t>(t)] >= 0) --g.lx.candidates;
    if (t == static_cast<int>(g.tensors.size()) - 1) g.tensors.pop_back();
  }
}

}  // namespace

void scratchpad_planning(Graph& g, const CompileOptions& options) {
  for (auto& t : g.tensors) {
    t.in_lx = false;
    t.lx_address = 0;
  }
  g.lx = LxSummary{};
  if (!options.lx.enabled) return;
  if (options.lx.stage < 2 || options.lx.stage > 4) {
    fail("", "--lx-stage", "must be 2, 3 or 4 (the seed's softmax stages), got " + std::to_string(options.lx.stage));
  }
  auto solver = make_lx_solver(options.lx.solver);
  const int64_t align = std::max<int64_t>(options.device.lx_alignment, 1);
  const int64_t capacity = options.device.lx_usable_bytes() / align * align;
  g.lx.enabled = true;
  g.lx.stage = options.lx.stage;
  g.lx.solver = solver->name();
  g.lx.capacity = capacity;

  const TensorUses uses = collect_uses(g);
  Candidates c = lx_candidates(g, options, uses, capacity, align);
  if (options.lx.stage >= 3) add_in_place_parents(g, uses, c);
  g.lx.candidates = static_cast<int>(c.problem.buffers.size());

  LxSolveOptions solve;
  solve.time_limit_s = options.lx.time_limit_s;
  solve.allow_eviction = false;  // compiled programs keep a buffer in LX for its whole life (no store/reload ops yet)
  const LxPlan plan = solver->solve(c.problem, solve);
  const auto violations = validate_plan(c.problem, plan);
  if (!violations.empty()) fail(g.source, "LX plan (" + solver->name() + ")", "internal: " + violations.front());
  for (size_t b = 0; b < c.problem.buffers.size(); ++b) {
    if (plan.placements[b].empty()) continue;
    Tensor& x = g.tensors[static_cast<size_t>(c.tensor_of[b])];
    x.in_lx = true;
    x.lx_address = plan.placements[b].front().address;
    ++g.lx.placed;
  }
  g.lx.peak_bytes = peak_address(plan, c.problem);
  g.lx.solve_ms = plan.solve_ms;
  g.lx.note = plan.note;
  remove_unplaced_clones(g, c);
}

}  // namespace spyre::compiler
