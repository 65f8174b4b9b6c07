// The pass table: its order, the verifier between passes on every workload,
// --print-after / --stop-after, and one test per pass on a small graph: the
// graph just before the pass, the pass, what it changed.

#include <gtest/gtest.h>

#include "compiler/compile_job.h"
#include "compiler/compiler.h"
#include "compiler/ir/graph_printer.h"
#include "compiler/ir/iteration_space.h"
#include "compiler/ir/workloads.h"
#include "compiler/passes/graph_verifier.h"
#include "runtime/text.h"
#include "small_workloads.h"
#include "test_support.h"

namespace spyre::compiler {
namespace {

using test_workloads::small_decoder;

Graph model_graph(const std::string& name, std::vector<int64_t> shape, int64_t dim = -1) {
  WorkloadParams p;
  p.shape = std::move(shape);
  p.dim = dim;
  return build_workload(name, p);
}

// The graph as the pass named `pass` receives it.
Graph before(const std::string& pass, const Graph& model, const CompileOptions& options) {
  const auto& passes = compiler_passes();
  for (size_t i = 0; i < passes.size(); ++i) {
    if (pass != passes[i].name) continue;
    if (i == 0) return model;
    PipelineHooks hooks;
    hooks.stop_after = passes[i - 1].name;
    hooks.verify_each = true;
    return compile(model, options, hooks);
  }
  ADD_FAILURE() << "no pass " << pass;
  return model;
}

// Runs one pass on the graph, then the verifier.
void run_pass(const std::string& pass, Graph& g, const CompileOptions& options) {
  const CompileOptions resolved = resolve_options(options);
  find_compiler_pass(pass, "test").run(g, resolved);
  EXPECT_EQ(verify_graph(g, resolved, pass), std::vector<std::string>{}) << print_graph(g);
}

std::vector<std::string> op_types(const Graph& g) {
  std::vector<std::string> out;
  for (const auto& op : g.ops) out.push_back(op.type);
  return out;
}

CompileOptions cores(int n) {
  CompileOptions o;
  o.cores = n;
  return o;
}

CompileOptions lx(int n, int stage = 4) {
  CompileOptions o = cores(n);
  o.lx.enabled = true;
  o.lx.stage = stage;
  return o;
}

TEST(PassTable, ListsThePipelineInTorchSpyresOrder) {
  std::vector<std::string> names;
  for (const auto& p : compiler_passes()) {
    names.emplace_back(p.name);
    EXPECT_NE(std::string(p.summary), "") << p.name;
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"coarse_tiling", "decompose", "deadcode_elimination", "fuse_gather_pointwise",
                                      "propagate_layouts", "insert_restickify", "span_reduction", "work_distribution",
                                      "split_lx_chain", "lx_split_alignment", "clone_input_nodes",
                                      "scratchpad_planning", "memory_planning"}));
  EXPECT_EQ(test::error_of([] { find_compiler_pass("layouts", "--stop-after"); }),
            "--stop-after layouts: unknown pass (passes: coarse_tiling, decompose, deadcode_elimination, "
            "fuse_gather_pointwise, propagate_layouts, "
            "insert_restickify, span_reduction, "
            "work_distribution, split_lx_chain, lx_split_alignment, clone_input_nodes, scratchpad_planning, "
            "memory_planning)");
}

TEST(PassTable, TheVerifierHoldsAfterEveryPassOfEveryWorkload) {
  std::vector<std::string> names = {"abs", "exp"};  // for the "<unary op>" entry
  for (const auto& w : list_workloads()) {
    if (w.name.front() == '<') continue;
    for (const auto& n : split(w.name, ',')) names.push_back(n.front() == ' ' ? n.substr(1) : n);
  }
  for (const auto& name : names) {
    WorkloadParams p;
    if (name == "decoder") p.seq = 64;
    const Graph model = build_workload(name, p);
    for (const CompileOptions& o : {cores(1), cores(32), lx(4), lx(32, 3)}) {
      PipelineHooks hooks;
      hooks.verify_each = true;
      std::vector<std::string> seen;
      hooks.after_pass = [&](const CompilerPass& pass, const Graph&, bool) { seen.emplace_back(pass.name); };
      EXPECT_EQ(test::error_of([&] { compile(model, o, hooks); }), "") << name << " on " << o.cores << " cores";
      EXPECT_EQ(seen.size(), compiler_passes().size()) << name;
    }
  }
}

TEST(PassTable, TheVerifierFindsBrokenGraphs) {
  const CompileOptions o = resolve_options(cores(4));
  Graph g = compile(model_graph("softmax", {64, 256}), o);
  EXPECT_EQ(verify_graph(g, o, "memory_planning"), std::vector<std::string>{});
  Graph split = g;
  split.ops[1].cores = 3;
  EXPECT_EQ(verify_graph(split, o, "work_distribution").front(),
            "op #1 softmax 'y' runs on 3 cores but its splits make 4");
  EXPECT_EQ(verify_graph(split, o, "propagate_layouts"),
            std::vector<std::string>{});  // splits are not decided yet there
  Graph order = g;
  std::swap(order.ops[0], order.ops[1]);
  EXPECT_EQ(verify_graph(order, o, "decompose").front(), "op #0 softmax 'y' reads 'y.max' before any op writes it");
  Graph layout = g;
  layout.tensors[2].layout.stick = 5;
  EXPECT_NE(verify_graph(layout, o, "propagate_layouts").front().find("tensor 'y.max': layout"), std::string::npos);
  Graph unplanned = g;
  unplanned.tensors[2].buffer = -1;
  EXPECT_EQ(verify_graph(unplanned, o, "memory_planning").front(), "tensor 'y.max': no HBM buffer");
}

TEST(PassTable, PrintAfterAndStopAfterShowTheGraphBetweenPasses) {
  test::TempDir dir;
  const auto r = test::run_cli(
      "compile --workload softmax --shape 64x256 --cores 4 --print-after decompose --stop-after work_distribution -o " +
      dir.file("out"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("// after decompose\ngraph softmax: 6 tensors, 5 ops\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("// after work_distribution\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#4 realdiv(%4, %5) -> %1  splits mb=4  cores 4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stopped after work_distribution; nothing written"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
  const auto skipped = test::run_cli("compile --workload softmax --shape 64x256 --stop-after clone_input_nodes");
  EXPECT_NE(skipped.output.find("// after clone_input_nodes (skipped: runs with --lx-planning at --lx-stage 4)"),
            std::string::npos)
      << skipped.output;
  const auto bad = test::run_cli("compile --workload softmax --print-after layout -o " + dir.file("out"));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("spyre-sim: error: --print-after layout: unknown pass (passes: coarse_tiling, decompose, "),
            std::string::npos)
      << bad.output;
}

TEST(Pass, DecomposeTurnsModelOpsIntoDeviceOps) {
  Graph g = before("decompose", model_graph("softmax", {64, 256}), cores(4));
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"softmax"}));
  run_pass("decompose", g, cores(4));
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"max", "sub", "exp", "sum", "realdiv"}));
}

TEST(Pass, DeadcodeEliminationDropsUnreadResults) {
  const Graph model = parse_graph(
      Json::parse(R"({"tensors": [{"name": "x", "shape": [4, 64], "role": "input"}, {"name": "y", "role": "output"}],
      "ops": [{"op": "exp", "inputs": ["x"], "outputs": ["unused"]}, {"op": "abs", "inputs": ["x"],
       "outputs": ["y"]}]})"),
      "g.json");
  Graph g = before("deadcode_elimination", model, cores(1));
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"exp", "abs"}));
  run_pass("deadcode_elimination", g, cores(1));
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"abs"}));
}

TEST(Pass, PropagateLayoutsGivesEveryTensorALayoutAndNotesCopies) {
  Graph g = before("propagate_layouts", build_workload("decoder", small_decoder()), cores(32));
  for (const auto& t : g.tensors) EXPECT_TRUE(t.layout.empty()) << t.name;
  run_pass("propagate_layouts", g, cores(32));
  for (const auto& t : g.tensors) EXPECT_FALSE(t.layout.empty()) << t.name;
  // K comes out of a linear with its sticks along head_dim; K^T wants them along the keys.
  ASSERT_EQ(g.layout_copies.size(), 1u);
  const LayoutCopy& copy = g.layout_copies[0];
  EXPECT_EQ(
      g.tensors[static_cast<size_t>(g.ops[static_cast<size_t>(copy.op)].inputs[static_cast<size_t>(copy.input)])].name,
      "attn.kT.grouped");
}

TEST(Pass, InsertRestickifyPlacesTheNotedCopies) {
  Graph g = before("insert_restickify", build_workload("decoder", small_decoder()), cores(32));
  const size_t ops = g.ops.size();
  run_pass("insert_restickify", g, cores(32));
  EXPECT_TRUE(g.layout_copies.empty());
  ASSERT_EQ(g.ops.size(), ops + 1);
  int inserted = 0;
  for (const auto& op : g.ops) inserted += op.inserted && op.type == "ReStickifyOpHBM" ? 1 : 0;
  EXPECT_EQ(inserted, 1);
}

TEST(Pass, SpanReductionForcesTheSplitsTheSpanLimitNeeds) {
  CompileOptions o = cores(4);
  o.device.span_limit_bytes = 65536;  // the (64, 1024) fp16 tensors are 128 KiB
  Graph g = before("span_reduction", model_graph("abs", {64, 1024}), o);
  EXPECT_TRUE(g.ops[0].span_splits.empty());
  run_pass("span_reduction", g, o);
  int64_t slices = 1;
  for (const auto& [label, n] : g.ops[0].span_splits) slices *= n;
  EXPECT_EQ(slices, 2);
}

TEST(Pass, WorkDistributionGivesEveryOpItsCores) {
  Graph g = before("work_distribution", model_graph("softmax", {64, 256}), cores(32));
  run_pass("work_distribution", g, cores(32));
  for (const auto& op : g.ops) {
    EXPECT_EQ(op.cores, 32) << op.type;
    EXPECT_EQ(op.splits.at("mb"), 32) << op.type;  // the 64 rows
  }
}

TEST(Pass, LxSplitAlignmentMakesPointwiseOpsSliceLikeTheReductions) {
  // Softmax over rows: the reductions split the columns (out), the pointwise
  // ops the rows (mb) — until they adopt the reductions' slicing.
  Graph g = before("lx_split_alignment", model_graph("softmax", {512, 1024}, 0), lx(4));
  EXPECT_EQ(g.ops[1].splits.at("mb"), 4);
  run_pass("lx_split_alignment", g, lx(4));
  for (const auto& op : g.ops) EXPECT_EQ(op.splits.at("out"), 4) << op.type;
}

TEST(Pass, CloneInputNodesClonesMultiUseInputs) {
  Graph g = before("clone_input_nodes", model_graph("softmax", {64, 256}), lx(4));
  const size_t tensors = g.tensors.size();
  run_pass("clone_input_nodes", g, lx(4));
  ASSERT_EQ(g.tensors.size(), tensors + 1);
  EXPECT_EQ(g.tensors.back().clone_of, g.find("x"));
  EXPECT_EQ(g.ops[0].type, "identity");
  EXPECT_TRUE(g.ops[0].inserted);
  // max and sub read the clone now.
  EXPECT_EQ(g.ops[1].inputs[0], static_cast<int>(tensors));
  EXPECT_EQ(g.ops[2].inputs[0], static_cast<int>(tensors));
}

TEST(Pass, ScratchpadPlanningPlacesIntermediatesInLx) {
  Graph g = before("scratchpad_planning", model_graph("softmax", {64, 256}), lx(4));
  run_pass("scratchpad_planning", g, lx(4));
  EXPECT_EQ(g.lx.placed, 5);  // the clone and the four intermediates
  for (const auto& t : g.tensors) EXPECT_EQ(t.in_lx, t.role == Role::Intermediate) << t.name;
}

TEST(Pass, MemoryPlanningGivesBuffersAndBundles) {
  Graph g = before("memory_planning", model_graph("softmax", {64, 256}), cores(4));
  EXPECT_TRUE(g.bundles.empty());
  run_pass("memory_planning", g, cores(4));
  ASSERT_EQ(g.bundles.size(), 1u);
  EXPECT_EQ(g.bundles[0].ops.size(), 5u);
  for (const auto& t : g.tensors) EXPECT_GE(t.buffer, 0) << t.name;
}

}  // namespace
}  // namespace spyre::compiler
