#include "compiler/split/op_split.h"

#include "compiler/passes/passes.h"

#include <algorithm>
#include <numeric>

#include "compiler/codegen/codegen_sdsc.h"
#include "compiler/codegen/program_writer.h"
#include "compiler/split/bmm_search.h"
#include "runtime/data_format.h"

namespace spyre::compiler {

std::vector<std::vector<int64_t>> op_split_candidates(const IterationSpace& space, const std::vector<int64_t>& units,
                                                      const std::vector<int64_t>& minimum, int cores) {
  const int64_t forced = std::accumulate(minimum.begin(), minimum.end(), int64_t{1}, std::multiplies<>());
  std::vector<std::vector<int64_t>> out;
  for (int64_t c = forced; c <= cores; ++c) {
    const auto slices = default_rule_slices(space, units, minimum, static_cast<int>(c));
    if (std::find(out.begin(), out.end(), slices) == out.end()) out.push_back(slices);
  }
  return out;  // fewest cores first: the rule's cores grow with c
}

std::string slices_text(const IterationSpace& space, const std::vector<int64_t>& slices) {
  std::string out;
  for (size_t i = 0; i < slices.size(); ++i) {
    if (slices[i] > 1) out += (out.empty() ? "" : " ") + space.dims[i].label + "=" + std::to_string(slices[i]);
  }
  return out.empty() ? "1" : out;
}

Graph op_alone(const Graph& g, const Op& op) {
  Graph alone;
  alone.name = g.name + "." + g.tensors[static_cast<size_t>(op.outputs[0])].name;
  alone.source = g.source;
  std::map<int, int> index;  // tensor in g -> tensor in alone
  auto take = [&](int t, bool output) {
    if (auto it = index.find(t); it != index.end()) return it->second;
    Tensor copy = g.tensors[static_cast<size_t>(t)];
    copy.storage = -1;
    copy.view_offset = 0;
    copy.buffer = -1;
    copy.buffer_offset = 0;
    copy.in_lx = false;
    copy.lx_address = 0;
    copy.clone_of = -1;
    if (copy.role != Role::Constant) copy.role = output ? Role::Output : Role::Input;
    const int at = alone.add_tensor(std::move(copy));
    index[t] = at;
    return at;
  };
  Op copy = op;
  copy.inputs.clear();
  copy.outputs.clear();
  // The outputs first: a reduction lists its output among its inputs too.
  for (int t : op.outputs) copy.outputs.push_back(take(t, true));
  for (int t : op.inputs) copy.inputs.push_back(take(t, false));
  copy.splits.clear();
  copy.cores = 1;
  copy.work_division.clear();
  copy.split_candidates.clear();
  copy.lx_chain.clear();
  copy.bundle = 0;
  alone.ops.push_back(std::move(copy));
  return alone;
}

namespace {

// The bytes of a core's view of a tensor in its layout (sticks padded).
double view_bytes(const Tensor& t, const CoreView& v) {
  const int64_t se = stick_elems(t.dtype);
  return static_cast<double>(layout_geometry(v.extent, t.layout, se, kStickBytes / se).bytes);
}

double tensor_bytes(const Tensor& t) {
  const int64_t se = stick_elems(t.dtype);
  return static_cast<double>(layout_geometry(t.shape, t.layout, se, kStickBytes / se).bytes);
}

// What the alone graph's op moves under `slices`.
OpSplitLoad load_of(Graph& alone, const std::vector<int64_t>& slices) {
  Op& op = alone.ops.front();
  const IterationSpace space = iteration_space(alone, op);
  assign_splits(op, space, slices);
  OpSplitLoad load;
  load.cores = op.cores;
  for (size_t i = 0; i < slices.size(); ++i) load.every_core_writes &= !(space.dims[i].reduction && slices[i] > 1);
  std::vector<double> core_reads(static_cast<size_t>(op.cores), 0.0);
  std::vector<int> counted;
  for (const auto& operand : space.operands) {
    const Tensor& t = alone.tensors[static_cast<size_t>(operand.tensor)];
    const bool is_output = operand.output || operand.tensor == op.outputs.front();
    const auto views = core_views(alone, op, space, operand);
    if (is_output) {
      if (operand.output) load.write_bytes = tensor_bytes(t);
      continue;
    }
    if (t.role == Role::Constant) continue;  // a few bytes, read once
    if (std::find(counted.begin(), counted.end(), operand.tensor) == counted.end()) {
      load.distinct_read_bytes += tensor_bytes(t);
      counted.push_back(operand.tensor);
    }
    for (size_t c = 0; c < views.size(); ++c) core_reads[c] += view_bytes(t, views[c]);
  }
  // Elements per core as the card model counts them (sticks padded): a
  // reduction's largest input, another op's output.
  const bool reduction = device_op_info(op)->kind == OpKind::Reduction;
  for (const auto& operand : space.operands) {
    const bool is_output = operand.output || operand.tensor == op.outputs.front();
    if (reduction == is_output) continue;
    const Tensor& t = alone.tensors[static_cast<size_t>(operand.tensor)];
    const double elem_bytes = static_cast<double>(kStickBytes / stick_elems(t.dtype));
    for (const auto& v : core_views(alone, op, space, operand))
      load.max_core_elements = std::max(load.max_core_elements, view_bytes(t, v) / elem_bytes);
  }
  for (double r : core_reads) {
    load.read_bytes += r;
    load.max_core_read_bytes = std::max(load.max_core_read_bytes, r);
  }
  return load;
}

std::string operand_key(const Tensor& t) {
  std::string key = std::string(dtype_name(t.dtype)) + "[";
  for (int64_t d : t.shape) key += std::to_string(d) + ",";
  key += "]" + describe_layout(t.layout);
  if (t.role == Role::Constant) key += "=" + std::to_string(t.value);
  return key;
}

}  // namespace

OpSplitQuery op_split_query(const Graph& g, const Op& op, const std::vector<std::vector<int64_t>>& candidates,
                            const CompileOptions& options) {
  OpSplitQuery query;
  if (candidates.empty()) return query;
  Graph alone = op_alone(g, op);
  const IterationSpace space = iteration_space(alone, alone.ops.front());
  query.op = op.type;
  query.unit = execution_unit(op.type);
  // Everything the division's program depends on besides the card (the
  // split-time store keeps times by this key across compiles).
  query.key = op.type + " " + op.attrs.dump() + " cores<=" + std::to_string(options.cores) +
              (options.placement == HbmPlacement::Packed ? " packed" : "");
  for (int t : op.inputs) query.key += " " + operand_key(g.tensors[static_cast<size_t>(t)]);
  for (int t : op.outputs) query.key += " -> " + operand_key(g.tensors[static_cast<size_t>(t)]);
  for (const auto& slices : candidates) {
    query.splits.push_back(slices_text(space, slices));
    query.loads.push_back(load_of(alone, slices));
  }
  CompileOptions alone_options = options;
  alone_options.lx = LxPlanningOptions{};
  alone_options.split_overrides.clear();
  alone_options.work_division = "default";
  alone_options.split_cost = nullptr;
  query.program = [alone, candidates, alone_options](size_t i) {
    Graph g = alone;
    Op& op = g.ops.front();
    assign_splits(op, iteration_space(g, op), candidates.at(i));
    memory_planning(g, alone_options);
    return program_files(g, alone_options);
  };
  return query;
}

}  // namespace spyre::compiler
