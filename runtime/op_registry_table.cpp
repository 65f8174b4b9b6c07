#include "runtime/op_registry_table.h"

#include <algorithm>
#include <sstream>

#include "runtime/op_registry.h"

namespace spyre {
namespace {

const char* cost_name(SfuCost cost) {
  switch (cost) {
    case SfuCost::Simple:
      return "simple";
    case SfuCost::Divide:
      return "divide";
    case SfuCost::Transcendental:
      return "transcendental";
    case SfuCost::Reduce:
      return "reduce";
    case SfuCost::ReduceStick:
      return "reduce-stick";
  }
  return "?";
}

const char* domain_name(InputDomain d) {
  switch (d) {
    case InputDomain::Any:
      return "";
    case InputDomain::PositiveFirst:
      return "x > 0";
    case InputDomain::NonzeroSecond:
      return "divisor != 0";
  }
  return "?";
}

// The columns of one op: name, torch op, kind, inputs, unit, SFU cost, constants, domain.
std::vector<std::string> columns(const OpInfo& op) {
  std::string inputs = std::to_string(op.min_inputs);
  if (op.max_inputs != op.min_inputs) inputs += "-" + std::to_string(op.max_inputs);
  if (op.kind == OpKind::Reduction) inputs += " (with the output)";
  std::string constants;
  for (const auto& c : op.constants) {
    if (!constants.empty()) constants += ", ";
    constants += c.sdsc_name;
    if (!c.torch_attr.empty()) constants += " <- " + c.torch_attr;
    if (!c.required) constants += " (optional)";
  }
  // The SFU cost class times every op but the PT array's matmul and the ring's shuffle.
  const bool has_cost = op.kind != OpKind::Matmul && op.kind != OpKind::Shuffle;
  return {op.name,
          op.torch_name.empty() ? "-" : op.torch_name,
          op_kind_name(op.kind),
          inputs,
          exec_unit_name(op.unit),
          has_cost ? cost_name(op.cost) : "-",
          constants.empty() ? "-" : constants,
          *domain_name(op.domain) ? domain_name(op.domain) : "-"};
}

const std::vector<std::string> kHeader = {"opFuncName", "torch op", "kind",      "inputs",
                                          "unit",       "SFU cost", "constants", "inputs must be"};

}  // namespace

std::vector<std::string> describe_ops(const std::vector<const OpInfo*>& ops) {
  std::vector<std::vector<std::string>> rows = {kHeader};
  for (const OpInfo* op : ops) rows.push_back(columns(*op));
  std::vector<size_t> width(kHeader.size(), 0);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::vector<std::string> lines;
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    lines.push_back(line);
  }
  return lines;
}

std::string ops_markdown(const std::vector<const OpInfo*>& ops) {
  std::ostringstream out;
  auto row = [&](const std::vector<std::string>& cells, bool code_name) {
    out << "|";
    for (size_t i = 0; i < cells.size(); ++i) {
      const bool code = code_name && i < 2 && cells[i] != "-";
      out << " " << (code ? "`" + cells[i] + "`" : cells[i]) << " |";
    }
    out << "\n";
  };
  row(kHeader, false);
  out << "|" << std::string();
  for (size_t i = 0; i < kHeader.size(); ++i) out << "---|";
  out << "\n";
  for (const OpInfo* op : ops) row(columns(*op), true);
  return out.str();
}

}  // namespace spyre
