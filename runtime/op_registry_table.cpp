#include "runtime/op_registry_table.h"

#include <algorithm>
#include <sstream>

#include "runtime/enum_names.h"
#include "runtime/op_registry.h"

namespace spyre {
namespace {

constexpr EnumName<SfuCost> kCosts[] = {{SfuCost::Simple, "simple"},
                                        {SfuCost::Divide, "divide"},
                                        {SfuCost::Transcendental, "transcendental"},
                                        {SfuCost::Reduce, "reduce"},
                                        {SfuCost::ReduceStick, "reduce-stick"}};
constexpr EnumName<InputDomain> kDomains[] = {{InputDomain::Any, ""},
                                              {InputDomain::PositiveFirst, "x > 0"},
                                              {InputDomain::NonzeroSecond, "divisor != 0"},
                                              {InputDomain::NearOne, "x near 1"}};

const char* cost_name(SfuCost cost) { return enum_name(kCosts, cost); }
const char* domain_name(InputDomain d) { return enum_name(kDomains, d); }

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
