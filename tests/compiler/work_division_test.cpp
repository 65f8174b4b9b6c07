// Work division by the seed's rules (001): span reduction first, then cores to
// output dims by decreasing stick-adjusted size, at most one reduction dim,
// matmul K last; --split overrides.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/compiler.h"
#include "compiler/ir/iteration_space.h"
#include "compiler/ir/workloads.h"
#include "compiler/passes/passes.h"
#include "compiler/split/op_split.h"
#include "compiler/split/torch_spyre_planner.h"
#include "small_workloads.h"
#include "test_support.h"

namespace spyre::compiler {
namespace {

using Splits = std::map<std::string, int64_t>;

// Slices per dim of the device op writing `output` (dims with 1 slice left out).
Splits splits_of(const Graph& g, const std::string& output, Splits* span = nullptr) {
  for (const auto& op : g.ops) {
    if (g.tensors[static_cast<size_t>(op.outputs[0])].name != output) continue;
    Splits out;
    for (const auto& [d, n] : op.splits) {
      if (n > 1) out[d] = n;
    }
    if (span) *span = op.span_splits;
    return out;
  }
  ADD_FAILURE() << "no op writes " << output;
  return {};
}

Graph compiled(const std::string& workload, std::vector<int64_t> shape, int cores, int64_t dim = -1,
               DType dtype = DType::F16) {
  WorkloadParams p;
  p.shape = std::move(shape);
  p.dim = dim;
  p.dtype = dtype;
  CompileOptions o;
  o.cores = cores;
  return compile(build_workload(workload, p), o);
}

TEST(CoreSplit, LargestDivisorWithinTheCores) {
  EXPECT_EQ(core_split(200, 32), 25);
  EXPECT_EQ(core_split(512, 32), 32);
  EXPECT_EQ(core_split(7, 32), 7);
  EXPECT_EQ(core_split(97, 32), 1);  // prime: no useful split
  EXPECT_EQ(core_split(64, 1), 1);
}

TEST(WorkDivision, PointwiseGivesTheLargestOutputDimTheCoresFirst) {
  EXPECT_EQ(splits_of(compiled("abs", {4, 64}, 2), "y"), (Splits{{"mb", 2}}));
  // 512 rows beat 16 sticks.
  EXPECT_EQ(splits_of(compiled("add", {512, 1024}, 32), "y"), (Splits{{"mb", 32}}));
  // 16 sticks beat 4 rows: the sticks take 16 cores, the rows the remaining 2.
  EXPECT_EQ(splits_of(compiled("add", {4, 1024}, 32), "y"), (Splits{{"mb", 2}, {"out", 16}}));
  // 3-D: x (256) first, then nothing is left.
  EXPECT_EQ(splits_of(compiled("add", {4, 256, 512}, 32), "y"), (Splits{{"x", 32}}));
}

TEST(WorkDivision, StickDimsSplitInWholeSticks) {
  // 200 sticks on 32 cores: the largest divisor of 200 up to 32 is 25.
  const Graph g = compiled("exp", {1, 12800}, 32);
  EXPECT_EQ(splits_of(g, "y"), (Splits{{"out", 25}}));
  // fp32 sticks hold 32 elements: 12800 fp32 elements are 400 sticks.
  EXPECT_EQ(splits_of(compiled("exp", {1, 12800}, 32, -1, DType::F32), "y"), (Splits{{"out", 25}}));
  // A stick dim that is not a whole number of sticks splits over its padded
  // sticks, as torch-spyre counts them: 1000 elements are 16 sticks, 100 are 2;
  // N_ holds the padded size.
  const Graph padded = compiled("exp", {1, 1000}, 32);
  EXPECT_EQ(splits_of(padded, "y"), (Splits{{"out", 16}}));
  EXPECT_EQ(compiler::iteration_space(padded, padded.ops.back()).dims.back().size, 1024);
  EXPECT_EQ(splits_of(compiled("exp", {1, 100}, 32), "y"), (Splits{{"out", 2}}));
  // Unsplit, N_ keeps the tensor's size.
  const Graph whole = compiled("exp", {1, 100}, 1);
  EXPECT_EQ(compiler::iteration_space(whole, whole.ops.back()).dims.back().size, 100);
  // Reduced, a padded stick dim stays whole (the backend cannot mask padding
  // across cores): the rows take the cores.
  EXPECT_EQ(splits_of(compiled("sum", {64, 1000}, 32), "y"), (Splits{{"mb", 32}}));
  // Reducing rows, the padded output sticks split: 2 sticks, the 64 rows the rest.
  EXPECT_EQ(splits_of(compiled("sum", {64, 100}, 32, 0), "y"), (Splits{{"mb", 16}, {"out", 2}}));
}

TEST(WorkDivision, ReductionsSplitOutputDimsFirst) {
  // Reducing the stick dim: all cores to the rows (torch-spyre's mean dump too).
  EXPECT_EQ(splits_of(compiled("sum", {512, 1024}, 32), "y"), (Splits{{"mb", 32}}));
  // Reducing rows of a 64-column tensor: the one output stick takes one core,
  // the reduction dim takes the rest (at most one reduction dim).
  EXPECT_EQ(splits_of(compiled("sum", {4096, 64}, 32, 0), "y"), (Splits{{"mb", 32}}));
  // Output dims that can use every core leave the reduction alone.
  EXPECT_EQ(splits_of(compiled("sum", {4096, 2048}, 32, 0), "y"), (Splits{{"out", 32}}));
  // Output dims that use some cores leave the rest to the reduction: 4 sticks
  // take 4 cores, the 4096 rows the remaining 8.
  EXPECT_EQ(splits_of(compiled("amax", {4096, 256}, 32, 0), "y"), (Splits{{"mb", 8}, {"out", 4}}));
}

TEST(WorkDivision, MatmulSplitsKOnlyWhenOutputsCannotUseAllCores) {
  // M = 64 rows alone use all 32 cores: K stays whole.
  EXPECT_EQ(splits_of(compiled("matmul", {64, 4096, 64}, 32), "c"), (Splits{{"mb", 32}}));
  // M = 8 and one N stick use 8 cores; K (64 sticks) takes the other 4.
  EXPECT_EQ(splits_of(compiled("matmul", {8, 4096, 64}, 32), "c"), (Splits{{"in", 4}, {"mb", 8}}));
  // bmm: mb (128) before x (8) before out (2 sticks).
  EXPECT_EQ(splits_of(compiled("bmm", {8, 128, 256, 128}, 32), "c"), (Splits{{"mb", 32}}));
}

TEST(SpanReduction, ForcesTheMinimumSplitThenDistributes) {
  // (8, 2^25) fp16 is 512 MiB; its outermost device dim is the stick index,
  // so span reduction splits the sticks in 2 (256 MiB per core, the limit),
  // and work distribution gives the 8 rows the cores left (16 / 2 = 8).
  Splits span;
  const Graph g = compiled("abs", {8, int64_t{1} << 25}, 32);
  EXPECT_EQ(splits_of(g, "y", &span), (Splits{{"mb", 8}, {"out", 2}}));
  EXPECT_EQ(span, (Splits{{"out", 2}}));
  // With one core the split cannot happen.
  EXPECT_EQ(test::error_of([] {
              compiled("abs", {8, int64_t{1} << 25}, 1);
            }),
            "workload abs: abs 'y': keeping every tensor within the 256 MiB per-core span needs 2 cores, more than the "
            "1 available (--cores)");
}

TEST(SpanReduction, ErrorWhenNoWholeStickSplitFits) {
  // 2097169 sticks (a prime count) of one row: only 1 or 2097169 slices split
  // it into whole sticks.
  EXPECT_EQ(test::error_of([] { compiled("abs", {2097169 * 64}, 32); }),
            "workload abs: abs 'y': keeping every tensor within the 256 MiB per-core span needs 2097169 cores, more "
            "than the 32 available (--cores)");
}

TEST(WorkDivision, OverridesPerOp) {
  WorkloadParams p;
  p.shape = {512, 1024};
  CompileOptions o;
  parse_split_override("y=mb:2,out:16", o);
  EXPECT_EQ(splits_of(compile(build_workload("add", p), o), "y"), (Splits{{"mb", 2}, {"out", 16}}));

  auto error = [&](const std::string& split, int cores = 32) {
    CompileOptions bad;
    bad.cores = cores;
    return test::error_of([&] {
      parse_split_override(split, bad);
      compile(build_workload("add", p), bad);
    });
  };
  EXPECT_EQ(error("y=out:3"), "--split y: dim 'out' has 16 whole sticks, which 3 slices do not divide");
  EXPECT_EQ(error("y=mb:64"), "--split y: uses 64 cores, more than the 32 available (--cores)");
  EXPECT_EQ(error("y=in:2"), "--split y: add has no dim 'in' (its dims: mb, out)");
  EXPECT_EQ(error("z=mb:2"),
            "--split z: no device op writes a tensor named 'z' (the decisions table lists each op's output)");
  EXPECT_EQ(error("y=mb"), "--split y=mb: 'mb' is not DIM:N");
  EXPECT_EQ(error("y=mb:0"), "--split y=mb:0: '0' is not a positive slice count");
  EXPECT_EQ(error("y=mb:2", 33), "--cores: must be 1 to 32 (SENCORES; the card's cores), got 33");
}

// A card model for the search: times each split by a formula, and counts the
// questions asked.
class FormulaCost : public SplitCostModel {
 public:
  explicit FormulaCost(std::function<double(const MatmulSplit&)> us) : us_(std::move(us)) {}
  std::vector<SplitTime> matmul_kernel_us(const MatmulShape& shape, const std::vector<MatmulSplit>& splits) override {
    shapes.push_back(shape);
    std::vector<SplitTime> out;
    for (const auto& s : splits) out.push_back({us_(s), false});
    asked += splits.size();
    return out;
  }
  double hbm_gbps() const override { return gbps; }
  std::vector<MatmulShape> shapes;
  size_t asked = 0;
  double gbps = 100;

 private:
  std::function<double(const MatmulSplit&)> us_;
};

Graph compiled_by_model(const std::vector<int64_t>& shape, int cores, SplitCostModel& cost) {
  WorkloadParams p;
  p.shape = shape;
  CompileOptions o;
  o.cores = cores;
  o.work_division = "model";
  o.split_cost = &cost;
  return compile(build_workload(shape.size() == 4 ? "bmm" : "matmul", p), o);
}

// --work-division model: the batchmatmul takes the split the model times
// fastest, among every legal split on at most the cores given (fewer cores
// too), and the decision says what it chose and what the rule would have.
TEST(WorkDivisionByModel, TakesTheFastestLegalSplit) {
  // Fastest: 3 x 2 over rows and columns (6 of 8 cores, a non-power-of-two part).
  FormulaCost cost([](const MatmulSplit& s) { return s.m == 3 && s.n == 2 && s.k == 1 ? 1.0 : 10.0 + s.k; });
  const Graph g = compiled_by_model({384, 256, 256}, 8, cost);  // M x K x N
  EXPECT_EQ(splits_of(g, "c"), (Splits{{"mb", 3}, {"out", 2}}));
  ASSERT_EQ(cost.shapes.size(), 1u);
  EXPECT_EQ(cost.shapes[0].text(), "1x384x256x256");
  EXPECT_EQ(cost.asked, matmul_split_candidates(cost.shapes[0], 8).size());
  const auto op = std::find_if(g.ops.begin(), g.ops.end(), [](const Op& o) { return o.type == "batchmatmul"; });
  const std::string n = std::to_string(cost.asked);
  EXPECT_EQ(op->work_division, "model: 1_3_2_1 1.0 us, fastest of " + n + " splits (" + n +
                                   " simulated, the rest bounded above it; the default rule's 1_8_1_1: 11.0 us)");
  // Ties (within 1%) go to the most cores, then the first candidate: all 8
  // cores, rows first (1_8_1_1 comes after 1_1_2_4 but is 0.5% faster).
  FormulaCost flat([](const MatmulSplit& s) { return s.m == 8 ? 4.98 : 5.0; });
  const Graph tied = compiled_by_model({384, 256, 256}, 8, flat);
  EXPECT_EQ(splits_of(tied, "c"), (Splits{{"mb", 8}}));
  const auto tied_op =
      std::find_if(tied.ops.begin(), tied.ops.end(), [](const Op& o) { return o.type == "batchmatmul"; });
  EXPECT_NE(tied_op->work_division.find("model: 1_8_1_1 5.0 us, fastest of"), std::string::npos)
      << tied_op->work_division;
  // A 6-core split 0.5% faster than every 8-core split ties with them and
  // loses; 2% faster, it wins.
  for (const double eight_core_us : {1.005, 1.02}) {
    FormulaCost near([&](const MatmulSplit& s) {
      return s.m == 3 && s.n == 2 && s.k == 1 ? 1.0 : s.cores() == 8 ? eight_core_us : 9.0;
    });
    const Graph g8 = compiled_by_model({384, 256, 256}, 8, near);
    const auto op8 = std::find_if(g8.ops.begin(), g8.ops.end(), [](const Op& o) { return o.type == "batchmatmul"; });
    if (eight_core_us < 1.01) {
      EXPECT_EQ(op8->work_division.rfind("model: 1_1_2_4 1.0 us, picked of", 0), 0u) << op8->work_division;
      EXPECT_NE(op8->work_division.find("on more cores than the fastest, 1_3_2_1 1.0 us (a tie: within 1%)"),
                std::string::npos)
          << op8->work_division;
    } else {
      EXPECT_EQ(splits_of(g8, "c"), (Splits{{"mb", 3}, {"out", 2}}));
    }
  }
  // A batched matmul splits its batch too.
  FormulaCost batch([](const MatmulSplit& s) { return s.b == 4 ? 1.0 : 2.0; });
  EXPECT_EQ(splits_of(compiled_by_model({4, 64, 128, 128}, 4, batch), "c"), (Splits{{"x", 4}}));
}

// Split x LX: with LX planning, attn@V's split decides whether the softmax
// result it reads (o.div, sliced by rows like the softmax's reductions) stays
// in LX. A split 5% slower alone that slices it by rows wins the chain once
// the intermediates the other ops move through HBM are priced, and the decision says so; without LX
// planning the op's own fastest stays.
TEST(WorkDivisionByModel, ScoresTheChainWithLxPlanning) {
  WorkloadParams p;
  p.shape = {1, 4, 256, 128};  // batch, heads, seq, head dim
  p.kv_heads = 2;
  FormulaCost cost([](const MatmulSplit& s) { return s.cores() < 8 ? 100.0 : s.m == 8 ? 10.5 : 10.0; });
  CompileOptions o;
  o.cores = 8;
  o.work_division = "model";
  o.split_cost = &cost;
  const Graph alone = compile(build_workload("attention", p), o);
  o.lx.enabled = true;
  const Graph chained = compile(build_workload("attention", p), o);
  auto op_of = [](const Graph& g, const std::string& output) {
    return *std::find_if(g.ops.begin(), g.ops.end(),
                         [&](const Op& op) { return g.tensors[static_cast<size_t>(op.outputs[0])].name == output; });
  };
  EXPECT_NE(splits_of(alone, "o.pv").count("mb") ? splits_of(alone, "o.pv").at("mb") : 1, 8);
  EXPECT_EQ(op_of(alone, "o.pv").lx_chain, "");
  EXPECT_EQ(splits_of(chained, "o.pv"), (Splits{{"mb", 8}}));
  const std::string note = op_of(chained, "o.pv").lx_chain;
  EXPECT_EQ(note.rfind("LX chain: 1_8_1_1, 10.5 us + the other ops' ", 0), 0u) << note;
  EXPECT_NE(note.find("at 100 GB/s"), std::string::npos) << note;
  EXPECT_NE(note.find("keeps o.div in LX"), std::string::npos) << note;
  const auto div =
      std::find_if(chained.tensors.begin(), chained.tensors.end(), [](const Tensor& t) { return t.name == "o.div"; });
  ASSERT_NE(div, chained.tensors.end());
  EXPECT_TRUE(div->in_lx);
  // A cost that makes the rows split 50x slower keeps the op's own pick: its
  // time alone exceeds what keeping o.div in LX can save, so it is not even
  // planned.
  FormulaCost steep([](const MatmulSplit& s) { return s.cores() < 8 ? 1e5 : s.m == 8 ? 500.0 : 10.0; });
  o.split_cost = &steep;
  const Graph kept = compile(build_workload("attention", p), o);
  EXPECT_NE(splits_of(kept, "o.pv"), (Splits{{"mb", 8}}));
  EXPECT_EQ(op_of(kept, "o.pv").lx_chain, "");
}

// A card model that times other ops' divisions by their core count, and
// records what it was asked.
class CoreCountCost : public SplitCostModel {
 public:
  explicit CoreCountCost(std::map<int64_t, double> us) : us_(std::move(us)) {}
  std::vector<SplitTime> matmul_kernel_us(const MatmulShape&, const std::vector<MatmulSplit>& splits) override {
    return std::vector<SplitTime>(splits.size(), SplitTime{1.0, false});
  }
  std::vector<SplitTime> op_kernel_us(const OpSplitQuery& query) override {
    queries.push_back(query);
    std::vector<SplitTime> out;
    const bool timed = only_op.empty() || query.op == only_op;
    for (const auto& load : query.loads)
      out.push_back({timed && us_.count(load.cores) ? us_.at(load.cores) : 10.0, false});
    return out;
  }
  double hbm_gbps() const override { return gbps; }
  std::vector<OpSplitQuery> queries;
  double gbps = 100;
  std::string only_op;  // when set, every other op takes 10 us on any cores

 private:
  std::map<int64_t, double> us_;
};

Graph add_by_model(const std::string& division, SplitCostModel& cost) {
  WorkloadParams p;
  p.shape = {512, 4096};
  CompileOptions o;
  o.cores = 32;
  o.work_division = division;
  o.split_cost = &cost;
  return compile(build_workload("add", p), o);
}

// --work-division model-all: a pointwise op is timed on the default rule's
// division at each core count (SENCORES=1..32 give 6 distinct ones for
// 512 rows), and a division replaces the rule's only when it wins by more
// than kOpSearchMargin.
TEST(WorkDivisionByModel, OtherOpsTakeTheRulesDivisionAtTheFastestCoreCount) {
  CoreCountCost faster({{4, 5.0}});
  const Graph g = add_by_model("model-all", faster);
  EXPECT_EQ(splits_of(g, "y"), (Splits{{"mb", 4}}));
  ASSERT_EQ(faster.queries.size(), 1u);
  const OpSplitQuery& q = faster.queries[0];
  EXPECT_EQ(q.op, "add");
  EXPECT_EQ(q.unit, "sfp");
  EXPECT_EQ(q.splits, (std::vector<std::string>{"1", "mb=2", "mb=4", "mb=8", "mb=16", "mb=32"}));
  // What each moves: two 4 MiB inputs read once over the cores, one written.
  EXPECT_EQ(q.loads[2].cores, 4);
  EXPECT_DOUBLE_EQ(q.loads[2].read_bytes, 2.0 * 512 * 4096 * 2);
  EXPECT_DOUBLE_EQ(q.loads[2].max_core_read_bytes, 2.0 * 128 * 4096 * 2);
  EXPECT_DOUBLE_EQ(q.loads[2].distinct_read_bytes, 2.0 * 512 * 4096 * 2);
  EXPECT_DOUBLE_EQ(q.loads[2].write_bytes, 512.0 * 4096 * 2);
  EXPECT_DOUBLE_EQ(q.loads[2].max_core_elements, 128.0 * 4096);
  // Each division compiles alone: a program whose one SDSC uses its cores.
  const auto files = q.program(2);
  ASSERT_TRUE(files.count("sdsc_0.json")) << files.size();
  EXPECT_NE(files.at("sdsc_0.json").find("\"numCoresUsed_\": 4"), std::string::npos);
  const Op& op = g.ops.front();
  EXPECT_EQ(
      op.work_division,
      "model: mb=4 5.0 us, fastest of 6 splits (6 simulated, the rest bounded above it; the default rule's mb=32: "
      "10.0 us)");
  EXPECT_EQ(op.split_candidates.front().split, "mb=4");

  // 5% faster is within the margin: the rule's division stays.
  CoreCountCost close({{4, 9.5}});
  const Graph kept = add_by_model("model-all", close);
  EXPECT_EQ(splits_of(kept, "y"), (Splits{{"mb", 32}}));
  EXPECT_NE(kept.ops.front().work_division.find("model: mb=32 10.0 us, picked of 6 splits (the default rule's) over "
                                                "the fastest, mb=4 9.5 us (within 10%"),
            std::string::npos)
      << kept.ops.front().work_division;

  // model: only batchmatmuls.
  CoreCountCost unused({{4, 1.0}});
  EXPECT_EQ(splits_of(add_by_model("model", unused), "y"), (Splits{{"mb", 32}}));
  EXPECT_TRUE(unused.queries.empty());
}

// model-all with LX planning: the other ops' divisions are scored as a
// chain too. Each starts from the rule's division; one the op alone times
// faster replaces it only when it still wins by the margin once the traffic
// its slicing leaves in HBM is priced. Here the softmax's sum alone is
// faster on 2 cores; its max keeps 8, so the pointwise ops between them
// cannot slice their intermediates like both (LX split alignment follows
// one of them): exp's 512 KiB result (or sub's) leaves LX.
TEST(WorkDivisionByModel, OtherOpsDivisionsAreScoredAsAChainWithLxPlanning) {
  WorkloadParams p;
  p.shape = {256, 1024};
  CompileOptions o;
  o.cores = 8;
  o.work_division = "model-all";
  o.lx.enabled = true;
  auto op_named = [](const Graph& g, const std::string& type) {
    return *std::find_if(g.ops.begin(), g.ops.end(), [&](const Op& op) { return op.type == type; });
  };
  // HBM traffic that costs next to nothing: sum takes 2 cores.
  CoreCountCost cheap({{2, 5.0}});
  cheap.gbps = 1e9;
  cheap.only_op = "sum";
  o.split_cost = &cheap;
  const Graph fast = compile(build_workload("softmax", p), o);
  EXPECT_EQ(op_named(fast, "sum").cores, 2);
  EXPECT_EQ(op_named(fast, "max").cores, 8);
  // Costly traffic (1 GB/s): the 2-core sum would leave an intermediate in
  // HBM worth far more than the 5 us it saves: it keeps the rule's 8 cores,
  // every intermediate stays in LX, and the decisions say why.
  CoreCountCost dear({{2, 5.0}});
  dear.gbps = 1;
  dear.only_op = "sum";
  o.split_cost = &dear;
  const Graph kept = compile(build_workload("softmax", p), o);
  const Op sum = op_named(kept, "sum");
  EXPECT_EQ(sum.cores, 8);
  EXPECT_EQ(sum.lx_chain.rfind("LX chain: mb=8, 10.0 us + the other ops' ", 0), 0u) << sum.lx_chain;
  EXPECT_NE(sum.lx_chain.find("at 1 GB/s"), std::string::npos) << sum.lx_chain;
  EXPECT_NE(sum.lx_chain.find("over the op alone's pick mb=2, 5.0 us"), std::string::npos) << sum.lx_chain;
  EXPECT_NE(sum.lx_chain.find("(the default rule's: the op alone's pick does not beat it by 10% of its time in "
                              "the chain)"),
            std::string::npos)
      << sum.lx_chain;
  for (const auto& t : kept.tensors) {
    if (t.role == Role::Intermediate) {
      EXPECT_TRUE(t.in_lx) << t.name;
    }
  }
}

// A decoder layer with LX planning: stage 4 clones its input x into LX, which
// inserts an op before the norms; chain scoring finds each searched op in the
// planned graphs by what it writes, not by its index.
TEST(WorkDivisionByModel, ScoresTheChainWhereInputClonesMoveTheOps) {
  const WorkloadParams p = test_workloads::small_decoder();
  FormulaCost cost([](const MatmulSplit& s) { return 100.0 / static_cast<double>(s.cores()); });
  CompileOptions o;
  o.cores = 8;
  o.work_division = "model";
  o.split_cost = &cost;
  o.lx.enabled = true;
  const Graph g = compile(build_workload("decoder", p), o);
  const auto clone = std::find_if(g.tensors.begin(), g.tensors.end(), [](const Tensor& t) { return t.clone_of >= 0; });
  ASSERT_NE(clone, g.tensors.end());
  EXPECT_EQ(g.tensors[static_cast<size_t>(clone->clone_of)].name, "x");
  EXPECT_TRUE(clone->in_lx);
  for (const Op& op : g.ops) {
    if (op.type == "batchmatmul") {
      EXPECT_EQ(op.work_division.rfind("model: ", 0), 0u) << op.work_division;
    }
  }
}

// The op alone: its operands become the graph's arguments in their layouts
// (a view a tensor of its own), constants stay constants.
TEST(WorkDivisionByModel, TheOpAloneKeepsItsOperandsLayouts) {
  WorkloadParams p;
  p.shape = {64, 512};
  CompileOptions o;
  o.cores = 4;
  const Graph g = compile(build_workload("softmax", p), o);
  const auto sub = std::find_if(g.ops.begin(), g.ops.end(), [](const Op& op) { return op.type == "sub"; });
  ASSERT_NE(sub, g.ops.end());
  const Graph alone = op_alone(g, *sub);
  ASSERT_EQ(alone.ops.size(), 1u);
  EXPECT_EQ(alone.ops[0].type, "sub");
  ASSERT_EQ(alone.tensors.size(), 3u);
  for (int t : alone.ops[0].inputs) {
    const Tensor& in = alone.tensors[static_cast<size_t>(t)];
    EXPECT_EQ(in.role, Role::Input) << in.name;
    EXPECT_EQ(in.storage, -1) << in.name;
    EXPECT_EQ(in.layout, g.tensors[static_cast<size_t>(g.find(in.name))].layout) << in.name;
  }
  EXPECT_EQ(alone.tensors[static_cast<size_t>(alone.ops[0].outputs[0])].role, Role::Output);
  EXPECT_TRUE(alone.ops[0].splits.empty());
}

TEST(WorkDivisionByModel, NeedsACardModel) {
  WorkloadParams p;
  p.shape = {64, 64, 64};
  CompileOptions o;
  o.work_division = "model";
  EXPECT_EQ(test::error_of([&] { compile(build_workload("matmul", p), o); }),
            "--work-division: model needs a card model to score splits (spyre-sim compile gives it one)");
  o.work_division = "fastest";
  EXPECT_EQ(test::error_of([&] { compile(build_workload("matmul", p), o); }),
            "--work-division: must be default, model, model-all or torch-spyre, got 'fastest'");
}

// torch-spyre's matmul planner: its picks and costs (us) for Granite-3.3-8B's
// projections and attention bmms on 32 cores, as its own _matmul_split_cost
// (work_division.py at bdc905f) gives them when run over the same splits.
TEST(TorchSpyrePlanner, PicksWhatTorchSpyresCostModelPicks) {
  struct Case {
    MatmulShape shape;  // b, m, k, n
    bool shared_weight;
    std::string split;
    double cost_us;
  };
  const std::vector<Case> cases = {
      {{1, 512, 4096, 4096}, true, "1_4_8_1", 399.6},    // prefill Q/O
      {{1, 512, 4096, 1024}, true, "1_8_4_1", 170.3},    // prefill K/V
      {{1, 512, 12800, 4096}, true, "1_8_4_1", 1210.5},  // prefill MLP down
      {{1, 512, 4096, 12800}, true, "1_4_8_1", 1203.7},  // prefill MLP gate/up
      {{1, 1, 4096, 4096}, true, "1_1_8_4", 306.0},      // decode Q/O
      {{1, 1, 4096, 1024}, true, "1_1_2_16", 208.8},     // decode K/V
      {{1, 1, 12800, 4096}, true, "1_1_8_4", 704.6},     // decode MLP down
      {{32, 512, 128, 512}, false, "1_16_2_1", 146.0},   // prefill QK^T
      {{32, 512, 512, 128}, false, "1_32_1_1", 150.3},   // prefill attn @ V
  };
  for (const Case& c : cases) {
    const auto candidates = matmul_split_candidates(c.shape, 32);
    const size_t pick = torch_spyre_matmul_pick(c.shape, candidates, 32, c.shared_weight);
    ASSERT_LT(pick, candidates.size()) << c.shape.text();
    EXPECT_EQ(candidates[pick].text(), c.split) << c.shape.text();
    EXPECT_NEAR(torch_spyre_matmul_cost(c.shape, candidates[pick], 32, c.shared_weight), c.cost_us, 0.05)
        << c.shape.text();
  }
  // More cores than the card's: no estimate.
  EXPECT_TRUE(std::isinf(torch_spyre_matmul_cost({1, 512, 4096, 4096}, {1, 8, 8, 1}, 32, true)));
}

// --work-division torch-spyre: the planner's split for each batchmatmul, the
// rule's for the rest, and the decisions say so.
TEST(TorchSpyrePlanner, DividesAGraniteLayerAsTorchSpyreDoes) {
  WorkloadParams p;
  p.layers = 1;
  p.vocab = 512;
  p.given = {"layers", "vocab"};
  CompileOptions o;
  o.work_division = "torch-spyre";
  const Graph g = compile(build_workload("granite", p), o);
  EXPECT_EQ(splits_of(g, "layers.0.q"), (Splits{{"mb", 4}, {"out", 8}}));
  EXPECT_EQ(splits_of(g, "layers.0.k"), (Splits{{"mb", 8}, {"out", 4}}));
  EXPECT_EQ(splits_of(g, "layers.0.m.gate"), (Splits{{"mb", 4}, {"out", 8}}));
  EXPECT_EQ(splits_of(g, "layers.0.m"), (Splits{{"mb", 8}, {"out", 4}}));
  EXPECT_EQ(splits_of(g, "layers.0.attn.scores"), (Splits{{"mb", 16}, {"out", 2}}));
  for (const auto& op : g.ops) {
    if (g.tensors[static_cast<size_t>(op.outputs[0])].name == "layers.0.q") {
      EXPECT_EQ(op.work_division, "torch-spyre: planner's 1_4_8_1 (399.6 us by its cost model, 56 splits)");
    }
  }
  // Not a batchmatmul: seed 001's rule, as with --work-division default.
  o.work_division = "default";
  const Graph by_rule = compile(build_workload("granite", p), o);
  EXPECT_EQ(splits_of(g, "layers.0.h"), splits_of(by_rule, "layers.0.h"));
  EXPECT_EQ(splits_of(by_rule, "layers.0.q"), (Splits{{"mb", 32}}));
}

}  // namespace
}  // namespace spyre::compiler
