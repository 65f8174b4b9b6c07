// The op registry: every row complete (no silent fallback: an op without
// semantics, reduce rule, oracle or cost fails here), every element function
// and reduce rule meets its oracle, names are unique, a new row registers (or
// is refused, naming what it lacks), and docs/ops.md is the registry's table.

#include "runtime/op_registry.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <set>

#include "runtime/op_registry_table.h"
#include "test_support.h"

namespace spyre {
namespace {

// Float math against the double oracle: a few float ulps of the expected value.
void expect_close(double got, double expected, const std::string& what) {
  const double tol = 4 * std::ldexp(1.0, std::ilogb(std::fabs(expected) + 1e-30) - 23) + 1e-12;
  EXPECT_NEAR(got, expected, tol) << what;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string label(const OpInfo& op, size_t case_index) {
  return op.name + " oracle case " + std::to_string(case_index);
}

TEST(OpRegistry, EveryRowIsComplete) {
  ASSERT_GE(all_ops().size(), 50u);
  for (const OpInfo* op : all_ops()) {
    const auto gaps = registry_gaps(*op);
    EXPECT_TRUE(gaps.empty()) << op->name << ": " << (gaps.empty() ? "" : gaps.front());
    // A cost for the timing model: the PT array times matmuls, the ring shuffles, the SFU class the rest.
    if (op->kind == OpKind::Matmul) EXPECT_EQ(op->unit, ExecUnit::PT) << op->name;
    if (op->kind == OpKind::Reduction) {
      EXPECT_TRUE(op->cost == SfuCost::Reduce || op->cost == SfuCost::ReduceStick) << op->name;
      EXPECT_NE(op->reduce, ReduceOp::None) << op->name;
    }
    // Constants the graph sets have defaults a graph may omit; the SDSC must carry the required ones.
    for (const auto& c : op->constants) EXPECT_FALSE(c.sdsc_name.empty()) << op->name;
  }
}

TEST(OpRegistry, NamesAreUniqueAndTorchNamesLowerToOneOp) {
  std::set<std::string> names, torch;
  for (const OpInfo* op : all_ops()) {
    EXPECT_TRUE(names.insert(lower(op->name)).second) << op->name;
    if (!op->torch_name.empty()) EXPECT_TRUE(torch.insert(op->torch_name).second) << op->torch_name;
    EXPECT_EQ(find_op(op->name), op);
    if (!op->torch_name.empty()) EXPECT_EQ(find_torch_op(op->torch_name), op);
  }
  EXPECT_EQ(find_op("RESTICKIFYOPHBM"), find_op("ReStickifyOpHBM"));  // opFuncNames match in any case
  EXPECT_EQ(find_op("no_such_op"), nullptr);
  EXPECT_EQ(find_torch_op(""), nullptr);
  // torch-spyre's names where the concept is torch's: realdiv is torch's div, clip its clamp.
  EXPECT_EQ(find_torch_op("div")->name, "realdiv");
  EXPECT_EQ(find_torch_op("clamp")->name, "clip");
  EXPECT_EQ(find_torch_op("amax")->name, "max");
  EXPECT_EQ(find_op("max")->nonstick_form, "maxnonstick");
}

TEST(OpRegistry, ElementSemanticsMeetTheOracle) {
  int checked = 0;
  for (const OpInfo* op : all_ops()) {
    if (!op->semantics) continue;
    for (size_t i = 0; i < op->oracle.size(); ++i) {
      const OracleCase& c = op->oracle[i];
      const int n = static_cast<int>(c.inputs.size());
      const float one = op->semantics.one(c.inputs.data(), n, c.constants);
      expect_close(one, c.expected.at(0), label(*op, i));
      // The row form computes the same float, element by element.
      std::vector<std::vector<float>> columns(static_cast<size_t>(n), std::vector<float>(3));
      std::vector<const float*> pointers;
      for (int j = 0; j < n; ++j) {
        columns[static_cast<size_t>(j)].assign(3, c.inputs[static_cast<size_t>(j)]);
        pointers.push_back(columns[static_cast<size_t>(j)].data());
      }
      std::vector<float> out(3, NAN);
      op->semantics.rows(pointers.data(), n, out.data(), out.size(), c.constants);
      for (float v : out) EXPECT_EQ(v, one) << label(*op, i) << " (rows)";
      ++checked;
    }
  }
  EXPECT_GE(checked, 60);
}

TEST(OpRegistry, ReduceRulesMeetTheOracleWholeAndInTwoPartials) {
  int checked = 0;
  for (const OpInfo* op : all_ops()) {
    if (op->kind != OpKind::Reduction) continue;
    for (size_t i = 0; i < op->oracle.size(); ++i) {
      const OracleCase& c = op->oracle[i];
      ReduceAccumulator whole, first, second;
      for (size_t k = 0; k < c.inputs.size(); ++k) {
        reduce_accumulate(op->reduce, whole, c.inputs[k]);
        reduce_accumulate(op->reduce, k < c.inputs.size() / 2 ? first : second, c.inputs[k]);
      }
      reduce_combine(op->reduce, first, second);  // as two cores' partials meet on the reduce-sum ring
      for (const ReduceAccumulator* acc : {&whole, &first}) {
        const auto lanes = reduce_finish(op->reduce, *acc, c.scale);
        ASSERT_EQ(static_cast<int>(c.expected.size()), reduce_lanes(op->reduce)) << label(*op, i);
        for (size_t lane = 0; lane < c.expected.size(); ++lane)
          expect_close(lanes[lane], c.expected[lane], label(*op, i) + " lane " + std::to_string(lane));
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 12);
}

float cube(const float* v, int, const OpConstants&) { return v[0] * v[0] * v[0]; }
void cube_rows(const float* const* in, int, float* out, size_t n, const OpConstants&) {
  for (size_t i = 0; i < n; ++i) out[i] = in[0][i] * in[0][i] * in[0][i];
}

OpInfo toy_row(const std::string& name, const std::string& torch) {
  OpInfo op;
  op.name = name;
  op.torch_name = torch;
  op.cost = SfuCost::Transcendental;
  op.semantics = {cube, cube_rows};
  op.oracle = {{{2.0f}, {8.0}}};
  return op;
}

TEST(OpRegistry, ANewRowRegistersAndAnIncompleteOneIsRefused) {
  const size_t before = all_ops().size();
  const OpInfo& added = register_op(toy_row("toycube_registry", "toy_cube_registry"));
  EXPECT_EQ(all_ops().size(), before + 1);
  EXPECT_EQ(find_op("toycube_registry"), &added);
  EXPECT_EQ(find_torch_op("toy_cube_registry"), &added);

  EXPECT_EQ(test::error_of([] { register_op(toy_row("exp", "")); }), "op registry: op 'exp' is already registered");
  EXPECT_EQ(test::error_of([] { register_op(toy_row("other", "gelu")); }),
            "op registry: torch op 'gelu' already lowers to gelufwd");
  OpInfo no_oracle = toy_row("toy_no_oracle", "");
  no_oracle.oracle.clear();
  EXPECT_EQ(test::error_of([&] { register_op(no_oracle); }),
            "op registry: op 'toy_no_oracle' is incomplete: no oracle values");
  OpInfo no_semantics = toy_row("toy_no_semantics", "");
  no_semantics.semantics = {};
  EXPECT_EQ(test::error_of([&] { register_op(no_semantics); }),
            "op registry: op 'toy_no_semantics' is incomplete: no element semantics");
  OpInfo no_rule = toy_row("toy_no_rule", "");
  no_rule.kind = OpKind::Reduction;
  no_rule.min_inputs = no_rule.max_inputs = 2;
  EXPECT_EQ(test::error_of([&] { register_op(no_rule); }),
            "op registry: op 'toy_no_rule' is incomplete: no reduce rule");
}

// The part of a markdown file between <!-- NAME:begin --> and <!-- NAME:end -->.
std::string between_markers(const std::string& text, const std::string& name) {
  const std::string begin = "<!-- " + name + ":begin -->\n", end = "<!-- " + name + ":end -->";
  const size_t b = text.find(begin), e = text.find(end);
  if (b == std::string::npos || e == std::string::npos) return "";
  return text.substr(b + begin.size(), e - b - begin.size());
}

TEST(OpRegistry, DocsOpsTableIsTheRegistry) {
  EXPECT_EQ(between_markers(test::read_text(test::source_path("docs/ops.md")), "ops"), ops_markdown(builtin_ops()))
      << "regenerate the table in docs/ops.md with: spyre-sim ops --markdown";
  // The graph format names every torch op a graph may use.
  const std::string graph_format = test::read_text(test::source_path("docs/graph-format.md"));
  for (const OpInfo* op : builtin_ops()) {
    if (!op->torch_name.empty())
      EXPECT_NE(graph_format.find("`" + op->torch_name + "`"), std::string::npos) << op->torch_name;
  }
}

}  // namespace
}  // namespace spyre
