// LX scratchpad planning (torch-spyre's scratchpad_planning, seed 000), run
// after work division because per-core buffer sizes and core_div_mismatch
// need the splits:
//   1. pointwise ops adopt a neighbour's slicing where that removes a
//      core_div_mismatch (pass_lx_split_alignment.cpp); at stage 4, clone
//      multi-use graph inputs (pass_clone_inputs.cpp);
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

#include "compiler/iteration_space.h"
#include "compiler/lx_solver.h"
#include "compiler/passes.h"
#include "runtime/error.h"

namespace spyre::compiler {

namespace {

// The stage at which an op's output becomes LX-eligible (0: never).
int eligible_from_stage(const Op& op, bool is_clone) {
  if (is_clone) return 4;
  switch (device_op_info(op)->kind) {
    case OpKind::Reduction: return 2;
    case OpKind::Elementwise: return 3;  // OP_GOOD_FOR_LX_INPLACE in torch-spyre flags exp and sub; every pointwise op here
    default: return 0;                   // matmul outputs, copies and shuffles stay in HBM
  }
}

struct Use {
  int step;   // index among device ops
  int op;     // index into graph.ops
  bool output;
};

int64_t view_bytes(const Tensor& t, const CoreView& v) {
  const int64_t se = stick_elems(t.dtype);
  return layout_geometry(v.extent, t.layout, se, kStickBytes / se).bytes;
}

}  // namespace

void plan_scratchpad(Graph& g, const CompileOptions& options) {
  for (auto& t : g.tensors) {
    t.in_lx = false;
    t.lx_address = 0;
  }
  g.lx = LxSummary{};
  if (!options.lx.enabled) return;
  if (options.lx.stage < 2 || options.lx.stage > 4) fail("", "--lx-stage", "must be 2, 3 or 4 (the seed's softmax stages), got " + std::to_string(options.lx.stage));
  auto solver = make_lx_solver(options.lx.solver);
  align_splits_for_lx(g, options);
  const std::vector<int> clones = clone_multi_use_inputs(g, options);

  const int64_t align = std::max<int64_t>(options.device.lx_alignment, 1);
  const int64_t capacity = options.device.lx_usable_bytes() / align * align;
  g.lx.enabled = true;
  g.lx.stage = options.lx.stage;
  g.lx.solver = solver->name();
  g.lx.capacity = capacity;

  // Every access of every tensor by a device op, in op order.
  std::vector<std::vector<Use>> uses(g.tensors.size());
  std::vector<bool> blocked(g.tensors.size(), false);  // read or written by a view or a copy other than a clone
  std::vector<std::vector<CoreView>> view(g.tensors.size());
  std::vector<bool> mismatch(g.tensors.size(), false);
  int step = 0;
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Op& op = g.ops[o];
    if (is_view_op(op.type)) {
      for (const auto* list : {&op.inputs, &op.outputs}) {
        for (int t : *list) blocked[static_cast<size_t>(t)] = true;
      }
      continue;
    }
    const bool is_clone = op.type == "identity" && std::find(clones.begin(), clones.end(), op.outputs[0]) != clones.end();
    const IterationSpace s = iteration_space(g, op);
    for (const auto& operand : s.operands) {
      const auto t = static_cast<size_t>(operand.tensor);
      if (!is_clone && device_op_info(op)->kind != OpKind::Elementwise && device_op_info(op)->kind != OpKind::Reduction &&
          device_op_info(op)->kind != OpKind::Matmul) {
        blocked[t] = true;
      }
      const auto views = core_views(g, op, s, operand);
      if (view[t].empty()) {
        view[t] = views;
      } else if (views != view[t]) {
        mismatch[t] = true;
      }
      if (uses[t].empty() || uses[t].back().step != step) uses[t].push_back({step, static_cast<int>(o), operand.output});
    }
    ++step;
  }

  LxProblem problem;
  problem.source = g.source;
  problem.capacity = capacity;
  problem.alignment = align;
  std::vector<int> tensor_of;  // problem buffer -> tensor
  std::vector<int> buffer_of(g.tensors.size(), -1);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& x = g.tensors[t];
    if (x.role != Role::Intermediate || uses[t].empty() || !uses[t].front().output) continue;
    const Op& producer = g.ops[static_cast<size_t>(uses[t].front().op)];
    const bool is_clone = std::find(clones.begin(), clones.end(), static_cast<int>(t)) != clones.end();
    const int from = eligible_from_stage(producer, is_clone);
    if (from == 0 || from > options.lx.stage) continue;
    std::string reason;
    if (blocked[t] || g.storage_of(static_cast<int>(t)) != static_cast<int>(t)) {
      reason = "read through a view or a copy";
    } else if (mismatch[t]) {
      reason = "core_div_mismatch: its ops divide it over the cores differently";
    }
    const int64_t bytes = reason.empty() ? view_bytes(x, view[t][0]) : 0;
    if (reason.empty() && bytes > capacity) reason = "a core's slice (" + std::to_string(bytes) + " B) exceeds the usable LX (" + std::to_string(capacity) + " B)";
    if (!reason.empty()) {
      g.lx.excluded.push_back(x.name + ": " + reason);
      continue;
    }
    LxBuffer b;
    b.name = x.name;
    b.size = (bytes + align - 1) / align * align;
    b.lower = uses[t].front().step;
    b.upper = uses[t].back().step + 1;
    for (const auto& u : uses[t]) b.uses.push_back(u.step);
    buffer_of[t] = static_cast<int>(problem.buffers.size());
    tensor_of.push_back(static_cast<int>(t));
    problem.buffers.push_back(b);
  }
  // In-place reuse (stage 3): a pointwise op's output may take over the bytes
  // of an input it reads for the last time, when the sizes agree.
  if (options.lx.stage >= 3) {
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      const auto t = static_cast<size_t>(tensor_of[b]);
      const Op& producer = g.ops[static_cast<size_t>(uses[t].front().op)];
      if (device_op_info(producer)->kind != OpKind::Elementwise) continue;
      for (int in : producer.inputs) {
        const int p = buffer_of[static_cast<size_t>(in)];
        if (p < 0 || static_cast<size_t>(p) == b) continue;
        const LxBuffer& parent = problem.buffers[static_cast<size_t>(p)];
        if (parent.upper == problem.buffers[b].lower + 1 && parent.size == problem.buffers[b].size) problem.buffers[b].in_place_parents.push_back(p);
      }
    }
  }
  g.lx.candidates = static_cast<int>(problem.buffers.size());

  LxSolveOptions solve;
  solve.time_limit_s = options.lx.time_limit_s;
  solve.allow_eviction = false;  // compiled programs keep a buffer in LX for its whole life (no store/reload ops yet)
  const LxPlan plan = solver->solve(problem, solve);
  const auto violations = validate_plan(problem, plan);
  if (!violations.empty()) fail(g.source, "LX plan (" + solver->name() + ")", "internal: " + violations.front());
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    if (plan.placements[b].empty()) continue;
    Tensor& x = g.tensors[static_cast<size_t>(tensor_of[b])];
    x.in_lx = true;
    x.lx_address = plan.placements[b].front().address;
    ++g.lx.placed;
  }
  g.lx.peak_bytes = peak_address(plan, problem);
  g.lx.solve_ms = plan.solve_ms;
  g.lx.note = plan.note;

  // Clones that stayed in HBM only add traffic: remove them (newest first,
  // so the tensors they added come off the end of the list).
  for (auto it = clones.rbegin(); it != clones.rend(); ++it) {
    const int c = *it;
    if (g.tensors[static_cast<size_t>(c)].in_lx) continue;
    auto op = std::find_if(g.ops.begin(), g.ops.end(), [&](const Op& o) { return !o.outputs.empty() && o.outputs[0] == c; });
    const int source = op->inputs[0];
    g.ops.erase(op);
    for (auto& o : g.ops) {
      for (int& in : o.inputs) {
        if (in == c) in = source;
      }
    }
    if (buffer_of[static_cast<size_t>(c)] >= 0) --g.lx.candidates;
    if (c == static_cast<int>(g.tensors.size()) - 1) g.tensors.pop_back();
  }
}

}  // namespace spyre::compiler
