#include "compiler/passes/graph_verifier.h"

#include <algorithm>

#include "compiler/ir/iteration_space.h"
#include "compiler/passes/pass_pipeline.h"
#include "runtime/data_format.h"

namespace spyre::compiler {

namespace {

// The position of a pass in the pipeline.
size_t position(const std::string& pass) {
  const auto& passes = compiler_passes();
  for (size_t i = 0; i < passes.size(); ++i) {
    if (pass == passes[i].name) return i;
  }
  return passes.size();
}

class Verifier {
 public:
  Verifier(const Graph& g, const CompileOptions& o) : g_(g), o_(o) {}
  std::vector<std::string> problems;

  void structure() {
    std::vector<bool> written(g_.tensors.size(), false);
    for (size_t t = 0; t < g_.tensors.size(); ++t)
      written[t] = g_.tensors[t].role != Role::Intermediate && g_.tensors[t].role != Role::Output;
    for (size_t o = 0; o < g_.ops.size(); ++o) {
      const Op& op = g_.ops[o];
      if (op.outputs.empty()) problem(o, "has no output");
      for (const auto* list : {&op.inputs, &op.outputs}) {
        for (int t : *list) {
          if (t < 0 || static_cast<size_t>(t) >= g_.tensors.size())
            problem(o, "refers to tensor " + std::to_string(t) + ", which does not exist");
        }
      }
      if (!problems.empty()) return;
      for (int t : op.inputs) {
        if (!written[static_cast<size_t>(t)])
          problem(o, "reads '" + g_.tensors[static_cast<size_t>(t)].name + "' before any op writes it");
      }
      for (int t : op.outputs) written[static_cast<size_t>(t)] = true;
    }
  }

  void device_ops_only() {
    for (size_t o = 0; o < g_.ops.size(); ++o) {
      if (!is_view_op(g_.ops[o].type) && !device_op_info(g_.ops[o])) problem(o, "is not a device op or a view");
    }
  }

  void layouts() {
    for (const auto& t : g_.tensors) {
      std::vector<int> order = t.layout.order;
      std::sort(order.begin(), order.end());
      bool permutation = order.size() == t.shape.size();
      for (size_t i = 0; permutation && i < order.size(); ++i) permutation = order[i] == static_cast<int>(i);
      if (!permutation || t.layout.stick < 0 || t.layout.stick >= static_cast<int>(t.shape.size())) {
        problems.push_back("tensor '" + t.name + "': layout " + describe_layout(t.layout) + " does not fit its " +
                           std::to_string(t.shape.size()) + " dims");
      }
    }
  }

  void no_pending_copies() {
    if (!g_.layout_copies.empty())
      problems.push_back(std::to_string(g_.layout_copies.size()) + " layout copies were never inserted");
  }

  void splits() {
    for (size_t o = 0; o < g_.ops.size(); ++o) {
      const Op& op = g_.ops[o];
      if (!device_op_info(op)) continue;
      const IterationSpace space = iteration_space(g_, op);
      const std::vector<int64_t> units = split_units(g_, space);
      int64_t cores = 1;
      for (const auto& [label, n] : op.splits) {
        const int i = space.find(label);
        if (i < 0) {
          problem(o, "splits dim '" + label + "', which it does not have");
          continue;
        }
        if (n < 1 || units[static_cast<size_t>(i)] % n != 0)
          problem(o, "splits dim '" + label + "' " + std::to_string(n) + " ways, which does not divide its units");
        cores *= n;
      }
      if (cores != op.cores)
        problem(o, "runs on " + std::to_string(op.cores) + " cores but its splits make " + std::to_string(cores));
      if (op.cores > o_.cores)
        problem(
            o, "uses " + std::to_string(op.cores) + " cores, more than the " + std::to_string(o_.cores) + " available");
    }
  }

  void lx_placements() {
    const int64_t align = std::max<int64_t>(o_.device.lx_alignment, 1);
    int placed = 0;
    for (const auto& t : g_.tensors) {
      if (t.clone_of >= 0 && !t.in_lx && used(t))
        problems.push_back("tensor '" + t.name + "': an LX clone left in HBM");
      if (!t.in_lx) continue;
      ++placed;
      if (t.role != Role::Intermediate) problems.push_back("tensor '" + t.name + "': in LX but the host sees it");
      if (t.lx_address % align != 0 || t.lx_address < 0 || t.lx_address >= g_.lx.capacity) {
        problems.push_back("tensor '" + t.name + "': LX address " + std::to_string(t.lx_address) +
                           " is not aligned inside the usable LX");
      }
    }
    if (placed != g_.lx.placed)
      problems.push_back("LX summary says " + std::to_string(g_.lx.placed) + " buffers placed, the tensors " +
                         std::to_string(placed));
  }

  void buffers_and_bundles() {
    for (size_t i = 0; i < g_.tensors.size(); ++i) {
      const Tensor& t = g_.tensors[i];
      if (t.in_lx || t.storage >= 0 || !used(t)) continue;
      if (t.buffer < 0 || static_cast<size_t>(t.buffer) >= g_.buffers.size()) {
        problems.push_back("tensor '" + t.name + "': no HBM buffer");
        continue;
      }
      const int64_t se = stick_elems(t.dtype);
      const int64_t bytes = layout_geometry(t.shape, t.layout, se, kStickBytes / se).bytes;
      if (t.buffer_offset % kStickBytes != 0 ||
          t.buffer_offset + bytes > g_.buffers[static_cast<size_t>(t.buffer)].bytes) {
        problems.push_back("tensor '" + t.name + "': bytes [" + std::to_string(t.buffer_offset) + ", " +
                           std::to_string(t.buffer_offset + bytes) + ") are not aligned inside buffer '" +
                           g_.buffers[static_cast<size_t>(t.buffer)].name + "'");
      }
    }
    std::vector<int> launches(g_.ops.size(), 0);
    const size_t segments = o_.device.argument_segments().size();
    for (size_t b = 0; b < g_.bundles.size(); ++b) {
      for (int o : g_.bundles[b].ops) ++launches[static_cast<size_t>(o)];
      if (g_.bundles[b].arguments.size() > segments) {
        problems.push_back("bundle " + std::to_string(b) + " binds " + std::to_string(g_.bundles[b].arguments.size()) +
                           " buffers, more than " + std::to_string(segments) + " argument segments");
      }
    }
    for (size_t o = 0; o < g_.ops.size(); ++o) {
      if (device_op_info(g_.ops[o]) && launches[o] != 1)
        problem(o, "is launched by " + std::to_string(launches[o]) + " bundles");
    }
  }

 private:
  void problem(size_t op, const std::string& what) {
    problems.push_back("op #" + std::to_string(op) + " " + g_.describe(g_.ops[op]) + " " + what);
  }
  bool used(const Tensor& t) const {
    const int index = static_cast<int>(&t - g_.tensors.data());
    for (const auto& op : g_.ops) {
      if (std::find(op.inputs.begin(), op.inputs.end(), index) != op.inputs.end() ||
          std::find(op.outputs.begin(), op.outputs.end(), index) != op.outputs.end()) {
        return true;
      }
    }
    return false;
  }

  const Graph& g_;
  const CompileOptions& o_;
};

}  // namespace

std::vector<std::string> verify_graph(const Graph& graph, const CompileOptions& options,
                                      const std::string& after_pass) {
  const size_t done = position(after_pass);
  auto reached = [&](const char* pass) { return done >= position(pass) && done < compiler_passes().size(); };
  Verifier v(graph, options);
  v.structure();
  if (!v.problems.empty()) return v.problems;
  if (reached("decompose")) v.device_ops_only();
  if (reached("propagate_layouts")) v.layouts();
  if (reached("insert_restickify")) v.no_pending_copies();
  if (reached("work_distribution")) v.splits();
  if (reached("scratchpad_planning") && options.lx.enabled) v.lx_placements();
  if (reached("memory_planning")) v.buffers_and_bundles();
  return v.problems;
}

}  // namespace spyre::compiler
