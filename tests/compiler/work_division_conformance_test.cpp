// Conformance with torch-spyre's own work-division tests
// (tests/inductor/test_work_division.py at bdc905f, read and rewritten here):
// each TEST names the torch-spyre test it comes from and asserts what that test
// asserts, on spyre-sim's default rule (work_distribution.cpp) or on a compiled
// workload where the torch-spyre test inspects a pass's inputs (its QFP8WT
// constraints on a compiled FP8 matmul). Its strided-conv tests are in
// tests/e2e/windowed_ops_test.cpp; its indirect-access pins concern ops
// spyre-sim runs on one core (tests/conformance/README.md).

#include <gtest/gtest.h>

#include <numeric>

#include "compiler/compiler.h"
#include "compiler/ir/iteration_space.h"
#include "compiler/ir/workloads.h"
#include "compiler/passes/passes.h"
#include "compiler/split/work_div_hint.h"
#include "runtime/error.h"
#include "test_support.h"

namespace spyre::compiler {
namespace {

// An iteration space of output dims then reduction dims, sizes in split units.
IterationSpace space_of(const std::vector<std::pair<std::string, int64_t>>& outputs,
                        const std::vector<std::pair<std::string, int64_t>>& reductions) {
  IterationSpace space;
  for (const auto& [label, size] : outputs) space.dims.push_back({label, size, false, 0});
  for (const auto& [label, size] : reductions) space.dims.push_back({label, size, true, 0});
  return space;
}

std::vector<int64_t> sizes(const IterationSpace& space) {
  std::vector<int64_t> out;
  for (const auto& d : space.dims) out.push_back(d.size);
  return out;
}

int64_t product(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

int reduction_dims_split(const IterationSpace& space, const std::vector<int64_t>& slices) {
  int n = 0;
  for (size_t i = 0; i < slices.size(); ++i) n += space.dims[i].reduction && slices[i] > 1;
  return n;
}

// TestMultiDimIterationSpaceSplit.test_output_dims_absorb_all_cores
TEST(TorchSpyreWorkDivision, OutputDimsAbsorbAllCores) {
  const IterationSpace space = space_of({{"o0", 16}, {"o1", 16}}, {{"r0", 8}});
  const auto slices = default_rule_slices(space, sizes(space), {1, 1, 1}, 32);
  EXPECT_LE(reduction_dims_split(space, slices), 1);
  EXPECT_EQ(product(slices), 32);
  EXPECT_EQ(slices, (std::vector<int64_t>{16, 2, 1}));
}

// TestMultiDimIterationSpaceSplit.test_at_most_one_reduction_dim_split_when_output_dims_small:
// r0 committed to 2 by span reduction, so r1 is not split as well.
TEST(TorchSpyreWorkDivision, AtMostOneReductionDimSplitWhenOutputDimsSmall) {
  const IterationSpace space = space_of({{"o0", 4}}, {{"r0", 8}, {"r1", 8}});
  const auto slices = default_rule_slices(space, sizes(space), {1, 2, 1}, 32);
  EXPECT_EQ(reduction_dims_split(space, slices), 1);
  EXPECT_EQ(slices, (std::vector<int64_t>{4, 2, 1}));
}

// TestMultiDimIterationSpaceSplit.test_no_reduction_dims_uses_greedy_on_all_dims
TEST(TorchSpyreWorkDivision, NoReductionDimsUsesGreedyOnAllDims) {
  const IterationSpace space = space_of({{"o0", 8}, {"o1", 8}}, {});
  const auto slices = default_rule_slices(space, sizes(space), {1, 1}, 32);
  EXPECT_EQ(product(slices), 32);
}

// TestMultiDimIterationSpaceSplit.test_single_reduction_dim_split_when_output_exhausted
TEST(TorchSpyreWorkDivision, SingleReductionDimSplitWhenOutputExhausted) {
  const IterationSpace space = space_of({{"o0", 4}}, {{"r0", 8}});
  EXPECT_EQ(default_rule_slices(space, sizes(space), {1, 1}, 32), (std::vector<int64_t>{4, 8}));
}

// The slices of the compiled op reducing x (a sum over dim) on 32 cores.
std::map<std::string, int64_t> sum_splits(std::vector<int64_t> shape, int64_t dim = -1) {
  WorkloadParams p;
  p.shape = std::move(shape);
  p.dim = dim;
  CompileOptions o;
  o.cores = 32;
  const Graph g = compile(build_workload("sum", p), o);
  for (const auto& op : g.ops) {
    if (op.type == "sum" || op.type == "sumnonstick") return op.splits;
  }
  ADD_FAILURE() << "no sum op";
  return {};
}

// TestCoordinateMaskBlockedVars.test_padded_stick_aligned_reduction_dim_is_blocked:
// a reduced stick dim whose last stick is partial (10 elements) is not split
// (the backend cannot mask coordinates across cores).
TEST(TorchSpyreWorkDivision, PaddedStickAlignedReductionDimIsBlocked) {
  const auto splits = sum_splits({1, 640 + 10});  // 11 sticks, the last partial; one row leaves 32 cores
  for (const auto& [dim, n] : splits) EXPECT_EQ(n, 1) << dim;
}

// TestCoordinateMaskBlockedVars.test_stick_aligned_reduction_dim_is_not_blocked
TEST(TorchSpyreWorkDivision, StickAlignedReductionDimIsNotBlocked) {
  const auto splits = sum_splits({1, 128 * 64});  // 128 whole sticks
  int64_t cores = 1;
  for (const auto& [dim, n] : splits) cores *= n;
  EXPECT_EQ(cores, 32);
}

// TestCoordinateMaskBlockedVars.test_non_stick_var_is_not_blocked: a reduced
// dim of 10 that is not the stick dim splits (10 ways: its output is one stick).
TEST(TorchSpyreWorkDivision, NonStickVarIsNotBlocked) {
  const auto splits = sum_splits({10, 64}, 0);
  int64_t cores = 1;
  for (const auto& [dim, n] : splits) cores *= n;
  EXPECT_EQ(cores, 10);
}

// TestQfp8wtConstraints: an FP8 weight in QFP8WT sticks (two rows of K a
// stick, written by qfp8wt, read by batchmatmulfp8). The graph quantizes a
// [4, 256] activation and a [256, 1024] weight (`weight_op`: torch-spyre's
// quantize_weight_fp8_with_scale, or quantize_fp8_with_scale for a standard
// one) and multiplies them; returns the compiled graph.
Graph fp8_matmul(const std::string& weight_op, CompileOptions o = {}) {
  const Json graph = Json::parse(R"({"name": "fp8", "tensors": [
      {"name": "a", "shape": [4, 256], "dtype": "float16", "role": "input"},
      {"name": "w", "shape": [256, 1024], "dtype": "float16", "role": "weight"},
      {"name": "s", "shape": [1], "dtype": "float16", "role": "constant", "value": 2.0},
      {"name": "y", "role": "output"}],
    "ops": [{"op": "quantize_fp8_with_scale", "inputs": ["a", "s"], "outputs": ["qa"]},
            {"op": ")" + weight_op +
                                 R"(", "inputs": ["w", "s"], "outputs": ["qw"]},
            {"op": "_scaled_mm", "inputs": ["qa", "qw", "s", "s"], "outputs": ["y"]}]})");
  o.cores = 32;
  return compile(parse_graph(graph, "fp8.json"), o);
}

// The op `type` of g: its splits and why each dim may not be divided.
std::pair<std::map<std::string, int64_t>, std::map<std::string, std::string>> pins_of(const Graph& g,
                                                                                      const std::string& type) {
  for (const auto& op : g.ops) {
    if (op.type != type) continue;
    const IterationSpace space = iteration_space(g, op);
    const auto why = undivided_dims(g, space);
    std::map<std::string, std::string> pinned;
    for (size_t i = 0; i < space.dims.size(); ++i) {
      if (!why[i].empty()) pinned[space.dims[i].label] = why[i];
    }
    return {op.splits, pinned};
  }
  ADD_FAILURE() << "no " << type << " op";
  return {};
}

// TestQfp8wtConstraints.test_output_second_stick_coord_pinned_for_qfp8wt_output:
// the coordinate of a QFP8WT output's second stick dim (the weight's rows) is not divided.
TEST(TorchSpyreWorkDivision, Qfp8wtOutputRowCoordIsPinned) {
  const auto [splits, pinned] = pins_of(fp8_matmul("quantize_weight_fp8_with_scale"), "qfp8wt");
  ASSERT_EQ(pinned.size(), 1u);
  EXPECT_TRUE(pinned.count("mb"));
  EXPECT_EQ(splits.count("mb") ? splits.at("mb") : 1, 1);
  EXPECT_GT(splits.at("out"), 1);  // the columns still take the cores
}

// TestQfp8wtConstraints.test_standard_output_yields_no_pins: the same weight
// converted with qfp8ch (one-dim sticks) pins nothing, and its rows divide.
TEST(TorchSpyreWorkDivision, StandardFp8OutputYieldsNoPins) {
  const auto [splits, pinned] = pins_of(fp8_matmul("quantize_fp8_with_scale"), "qfp8ch");
  EXPECT_TRUE(pinned.empty());
}

// TestQfp8wtConstraints.test_matmul_k_pinned_for_batchmatmulfp8_with_qfp8wt_kernel
// and test_matmul_k_not_pinned_for_plain_batchmatmul: the contraction of
// batchmatmulfp8 is pinned when its weight is in QFP8WT sticks, not otherwise.
TEST(TorchSpyreWorkDivision, Batchmatmulfp8ContractionPinnedOnlyOverAQfp8wtWeight) {
  const auto [splits, pinned] = pins_of(fp8_matmul("quantize_weight_fp8_with_scale"), "batchmatmulfp8");
  EXPECT_EQ(pinned.size(), 1u);
  EXPECT_TRUE(pinned.count("in"));
  EXPECT_EQ(splits.count("in") ? splits.at("in") : 1, 1);
  const auto [plain_splits, plain_pinned] = pins_of(fp8_matmul("quantize_fp8_with_scale"), "batchmatmulfp8");
  EXPECT_TRUE(plain_pinned.empty());
}

// TestCollectWorkDivisionConstraints.test_qfp8wt_k_pin_conflicting_with_span_split_raises_unsupported:
// a weight whose rows cannot be divided and whose columns cannot bring a
// core's span within 256 MiB is refused, naming the tensor.
TEST(TorchSpyreWorkDivision, Qfp8wtPinConflictingWithTheSpanLimitIsRefused) {
  const Json graph = Json::parse(R"({"name": "big", "tensors": [
      {"name": "w", "shape": [4194304, 128], "dtype": "float16", "role": "weight"},
      {"name": "s", "shape": [1], "dtype": "float16", "role": "constant", "value": 2.0},
      {"name": "qw", "role": "output"}],
    "ops": [{"op": "quantize_weight_fp8_with_scale", "inputs": ["w", "s"], "outputs": ["qw"]}]})");
  CompileOptions o;
  o.cores = 32;
  const std::string error = test::error_of([&] { compile(parse_graph(graph, "big.json"), o); });
  EXPECT_NE(error.find("spans 512 MiB per core even split into whole sticks as far as its shape allows"),
            std::string::npos)
      << error;
  // A forced division of the pinned dims is refused by name.
  CompileOptions rows, contraction;
  rows.split_overrides["qw"] = {{"mb", 2}};
  contraction.split_overrides["y.fp8mm"] = {{"in", 2}};
  EXPECT_EQ(test::error_of([&] { fp8_matmul("quantize_weight_fp8_with_scale", rows); }),
            "--split qw: dim 'mb' is never divided: the row dim of 'qw''s two-row QFP8WT sticks (torch-spyre pins it)");
  EXPECT_EQ(test::error_of([&] { fp8_matmul("quantize_weight_fp8_with_scale", contraction); }),
            "--split y.fp8mm: dim 'in' is never divided: the row dim of 'qw''s two-row QFP8WT sticks (torch-spyre "
            "pins it)");
}

// torch-spyre's tests/inductor/test_work_division_hint.py (bdc905f),
// TestNamedWorkDivisionHint: spyre_hint(work_div=...) over named dims. The
// unit tests of _apply_user_hint run on apply_work_div_hint with the same
// iteration spaces (sizes in split units); the compiled ones on graphs whose
// tensors carry the names.
struct NamedSpace {
  IterationSpace space;
  std::vector<std::string> names;
  std::vector<int64_t> units;
};

NamedSpace named_space(const std::vector<std::pair<std::string, int64_t>>& outputs,
                       const std::vector<std::pair<std::string, int64_t>>& reductions = {}) {
  NamedSpace n;
  n.space = space_of(outputs, reductions);
  for (const auto& [name, size] : outputs) n.names.push_back(name), n.units.push_back(size);
  for (const auto& [name, size] : reductions) n.names.push_back(name), n.units.push_back(size);
  return n;
}

std::map<std::string, int64_t> hinted(const NamedSpace& n, const WorkDivHint& hint, std::string* skipped = nullptr,
                                      std::vector<bool> pinned = {}) {
  if (pinned.empty()) pinned.assign(n.names.size(), false);
  const auto r = apply_work_div_hint("fake_op", n.space, n.names, hint, n.units, 32, pinned);
  if (skipped) *skipped = r.skipped;
  std::map<std::string, int64_t> out;
  for (size_t d = 0; d < r.slices.size(); ++d) {
    if (r.slices[d] > 1) out[n.names[d]] = r.slices[d];
  }
  return out;
}

std::string hint_error(const NamedSpace& n, const WorkDivHint& hint, std::vector<bool> pinned = {}) {
  try {
    hinted(n, hint, nullptr, std::move(pinned));
  } catch (const SpyreError& e) {
    return e.what();
  }
  return "";
}

// test_resolve_work_div_hint_filters_to_op_dims: names the op lacks are ignored.
TEST(TorchSpyreWorkDivisionHint, ResolveFiltersToOpDims) {
  const WorkDivHint hint = {{"H", 4}, {"Lq", 8}, {"Lk", 8}};
  EXPECT_EQ(hinted(named_space({{"H", 64}, {"Lk", 512}}), hint), (std::map<std::string, int64_t>{{"H", 4}, {"Lk", 8}}));
  EXPECT_EQ(hinted(named_space({{"Lk", 512}}), hint), (std::map<std::string, int64_t>{{"Lk", 8}}));
}

// test_apply_work_div_hint_prunes_splits_over_sencores
TEST(TorchSpyreWorkDivisionHint, PrunesSplitsOverSencores) {
  std::string skipped;
  const auto n = named_space({{"H", 64}, {"Lq", 512}, {"Lk", 512}});
  EXPECT_EQ(hinted(n, {{"H", 4}, {"Lq", 8}, {"Lk", 8}}, &skipped),
            (std::map<std::string, int64_t>{{"H", 4}, {"Lq", 8}}));
  EXPECT_EQ(skipped, "skipping named dim 'Lk' (split=8): cores would be 256 > SENCORES=32");
}

// test_apply_work_div_hint_prunes_by_priority_order
TEST(TorchSpyreWorkDivisionHint, PrunesByPriorityOrder) {
  std::string skipped;
  const auto n = named_space({{"H", 64}, {"Lq", 512}, {"Lk", 512}});
  EXPECT_EQ(hinted(n, {{"H", 4}, {"Lk", 8}, {"Lq", 8}}, &skipped),
            (std::map<std::string, int64_t>{{"H", 4}, {"Lk", 8}}));
  EXPECT_NE(skipped.find("skipping named dim 'Lq' (split=8)"), std::string::npos) << skipped;
}

// test_apply_work_div_hint_invalid_split_value_raises_unit,
// test_apply_work_div_hint_non_divisible_split_raises_unit,
// test_apply_work_div_hint_multiple_accepted_reduction_splits_raise_unit,
// test_apply_work_div_hint_rejects_pinned_split
TEST(TorchSpyreWorkDivisionHint, BadHintsRaise) {
  EXPECT_NE(hint_error(named_space({{"H", 64}}), {{"H", 0}}).find("must be positive"), std::string::npos);
  EXPECT_NE(hint_error(named_space({{"H", 64}, {"Lq", 512}}), {{"H", 4}, {"Lq", 7}}).find("not evenly divisible"),
            std::string::npos);
  EXPECT_NE(
      hint_error(named_space({{"M", 64}}, {{"K", 32}, {"L", 16}}), {{"K", 2}, {"L", 2}}).find("reduction dimensions"),
      std::string::npos);
  EXPECT_NE(hint_error(named_space({{"M", 64}}), {{"M", 2}}, {true}).find("pinned to split=1"), std::string::npos);
}

// test_apply_work_div_hint_prunes_before_divisibility_check_unit
TEST(TorchSpyreWorkDivisionHint, PrunesBeforeDivisibilityCheck) {
  EXPECT_EQ(hinted(named_space({{"H", 64}, {"Lq", 512}}), {{"H", 32}, {"Lq", 7}}),
            (std::map<std::string, int64_t>{{"H", 32}}));
}

// A graph of named inputs and one hinted op; the op's splits on `cores`.
std::map<std::string, int64_t> compiled_splits(const Json& tensors, const Json& op, int cores) {
  CompileOptions options;
  options.cores = cores;
  PipelineHooks hooks;
  hooks.stop_after = "work_distribution";
  const Graph g = compile(parse_graph(Json{{"tensors", tensors}, {"ops", Json::array({op})}}, "hint"), options, hooks);
  std::map<std::string, int64_t> split;
  for (const auto& o : g.ops) {
    if (!device_op_info(o)) continue;
    for (const auto& [dim, n] : o.splits) {
      if (n > 1) split[dim] = n;
    }
    break;
  }
  return split;
}

// test_pointwise_work_div_hint_applied (x + y over [M, N] = [128, 64], M split 4)
// and test_matmul_work_div_hint_maps_by_name (x [M, K] @ y [K, N], K split 4 and
// M 2), both on 8 cores.
TEST(TorchSpyreWorkDivisionHint, PointwiseAndMatmulHintsMapByName) {
  struct Case {
    std::string test, tensors, op;
    std::map<std::string, int64_t> splits;
  };
  const std::vector<Case> cases = {
      {"test_pointwise_work_div_hint_applied",
       R"([{"name": "x", "shape": [128, 64], "role": "input", "dims": ["M", "N"]},
           {"name": "y", "shape": [128, 64], "role": "input", "dims": ["M", "N"]},
           {"name": "z", "shape": [128, 64], "role": "output"}])",
       R"({"op": "add", "inputs": ["x", "y"], "outputs": ["z"], "work_div": {"M": 4}})",
       {{"mb", 4}}},
      {"test_matmul_work_div_hint_maps_by_name",
       R"([{"name": "x", "shape": [128, 256], "role": "input", "dims": ["M", "K"]},
           {"name": "y", "shape": [256, 64], "role": "input", "dims": ["K", "N"]},
           {"name": "z", "shape": [128, 64], "role": "output"}])",
       R"({"op": "matmul", "inputs": ["x", "y"], "outputs": ["z"], "work_div": {"K": 4, "M": 2}})",
       {{"in", 4}, {"mb", 2}}},
  };
  for (const auto& c : cases)
    EXPECT_EQ(compiled_splits(Json::parse(c.tensors), Json::parse(c.op), 8), c.splits) << c.test;
}

// test_resolve_work_div_hint_filters_to_op_dims, on a compiled op: a hint
// naming none of its dims leaves it to the rule (8 cores over its 128 rows).
TEST(TorchSpyreWorkDivisionHint, AHintNamingNoDimOfTheOpLeavesTheRule) {
  const Json tensors = Json::parse(R"([
    {"name": "x", "shape": [128, 64], "role": "input", "dims": ["M", "N"]},
    {"name": "z", "shape": [128, 64], "role": "output"}])");
  const auto splits = compiled_splits(
      tensors, Json::parse(R"({"op": "neg", "inputs": ["x"], "outputs": ["z"], "work_div": {"H": 4}})"), 8);
  EXPECT_EQ(splits, (std::map<std::string, int64_t>{{"mb", 8}}));
}

}  // namespace
}  // namespace spyre::compiler
