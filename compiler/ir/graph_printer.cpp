#include "compiler/ir/graph_printer.h"

#include <sstream>

#include "compiler/ir/iteration_space.h"
#include "runtime/text.h"

namespace spyre::compiler {

namespace {

std::string ref(int tensor) { return "%" + std::to_string(tensor); }

std::string refs(const std::vector<int>& tensors) {
  std::vector<std::string> out;
  for (int t : tensors) out.push_back(ref(t));
  return join(out, ", ");
}

// "mb=2 out=4": the dims split more than one way.
std::string splits_text(const std::map<std::string, int64_t>& splits) {
  std::vector<std::string> parts;
  for (const auto& [label, n] : splits) {
    if (n > 1) parts.push_back(label + "=" + std::to_string(n));
  }
  return join(parts, " ");
}

std::string tensor_line(const Graph& g, size_t i) {
  const Tensor& t = g.tensors[i];
  std::ostringstream out;
  out << ref(static_cast<int>(i)) << " " << t.name << ": " << dtype_name(t.dtype) << " (" << join(t.shape, ", ") << ") "
      << role_name(t.role);
  if (t.role == Role::Constant) out << " = " << t.value;
  if (!t.layout.empty()) out << "  layout " << describe_layout(t.layout);
  if (t.storage >= 0) out << "  view of " << ref(t.storage) << " +" << t.view_offset;
  if (t.clone_of >= 0) out << "  clone of " << ref(t.clone_of);
  if (t.in_lx) out << "  LX@" << t.lx_address;
  if (t.buffer >= 0 && static_cast<size_t>(t.buffer) < g.buffers.size())
    out << "  " << g.buffers[static_cast<size_t>(t.buffer)].name << "+" << t.buffer_offset;
  return out.str();
}

std::string op_line(const Graph& g, size_t i, const std::vector<int>& bundle_of) {
  const Op& op = g.ops[i];
  std::ostringstream out;
  out << "#" << i << " " << op.type << "(" << refs(op.inputs) << ") -> " << refs(op.outputs);
  if (!op.attrs.empty()) out << " " << op.attrs.dump();
  if (const std::string s = splits_text(op.span_splits); !s.empty()) out << "  span_splits " << s;
  if (const std::string s = splits_text(op.splits); !s.empty()) out << "  splits " << s;
  if (device_op_info(op) && !op.splits.empty()) out << "  cores " << op.cores;
  if (op.inserted) out << "  inserted";
  if (bundle_of[i] >= 0) out << "  bundle " << bundle_of[i];
  return out.str();
}

}  // namespace

std::string print_graph(const Graph& g) {
  std::ostringstream out;
  out << "graph " << g.name << (g.source.empty() ? "" : " (" + g.source + ")") << ": " << g.tensors.size()
      << " tensors, " << g.ops.size() << " ops\n";
  for (size_t i = 0; i < g.tensors.size(); ++i) out << "  " << tensor_line(g, i) << "\n";
  std::vector<int> bundle_of(g.ops.size(), -1);
  for (size_t b = 0; b < g.bundles.size(); ++b) {
    for (int o : g.bundles[b].ops) bundle_of[static_cast<size_t>(o)] = static_cast<int>(b);
  }
  for (size_t i = 0; i < g.ops.size(); ++i) out << "  " << op_line(g, i, bundle_of) << "\n";
  for (const auto& c : g.layout_copies) {
    out << "  pending copy: #" << c.op << " input " << c.input << " needs layout " << describe_layout(c.layout) << "\n";
  }
  if (g.lx.enabled) {
    out << "  LX: " << g.lx.placed << " of " << g.lx.candidates << " candidates placed (" << g.lx.solver << "), peak "
        << g.lx.peak_bytes << " of " << g.lx.capacity << " B\n";
  }
  return out.str();
}

}  // namespace spyre::compiler
