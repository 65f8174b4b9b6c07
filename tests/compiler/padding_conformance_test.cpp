// Conformance with torch-spyre's own padding tests (tests/inductor/
// test_padding.py at bdc905f, TestInsertPaddingIR, read and rewritten here):
// a matmul whose contraction K ends inside a stick pads only y (B) along K to
// whole sticks with zeros — a fill and a copy into one padded buffer — and
// contracts over the padded length; x (A) is untouched. Each TEST names the
// test it comes from; the values are checked in python/tests (test_fx_import).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/ir/iteration_space.h"
#include "compiler/passes/pass_pipeline.h"

namespace spyre::compiler {
namespace {

// The graph `x @ w` (torch.matmul's batch broadcasting), decomposed.
Graph decomposed_matmul(const Shape& x, const Shape& w, const Shape& out) {
  const Json graph = {{"name", "padding"},
                      {"tensors",
                       {{{"name", "x"}, {"shape", x}, {"role", "input"}},
                        {{"name", "w"}, {"shape", w}, {"role", "input"}},
                        {{"name", "y"}, {"shape", out}, {"role", "output"}}}},
                      {"ops", {{{"op", "matmul"}, {"inputs", {"x", "w"}}, {"outputs", {"y"}}}}}};
  CompileOptions options;
  options.cores = 1;  // as the tests' sencores = 1
  PipelineHooks hooks;
  hooks.stop_after = "decompose";
  return compile(parse_graph(graph, "padding"), options, hooks);
}

struct PaddedMatmul {
  int64_t k = 0;                     // the batchmatmul's contraction (N_ "in")
  std::string a, b;                  // its operands
  std::vector<std::string> b_parts;  // the ops writing B's parts (a concat's), in order
  int64_t b_rows = 0;                // B's K rows
};

PaddedMatmul inspect(const Graph& g) {
  PaddedMatmul p;
  for (const auto& op : g.ops) {
    if (op.type != "batchmatmul") continue;
    const IterationSpace space = iteration_space(g, op);
    p.k = space.dims.back().size;
    const Tensor& a = g.tensors[static_cast<size_t>(op.inputs[0])];
    const Tensor& b = g.tensors[static_cast<size_t>(op.inputs[1])];
    p.a = a.name;
    p.b = b.name;
    p.b_rows = b.shape[b.shape.size() - 2];
    for (const auto& producer : g.ops) {
      if (producer.outputs[0] != op.inputs[1] || producer.type != "concat") continue;
      for (int part : producer.inputs) {
        for (const auto& writer : g.ops) {
          if (writer.outputs[0] != part) continue;
          // What it reads, through the views of it (a fill reads the constant reshaped).
          int read = writer.inputs[0];
          for (bool viewed = true; viewed;) {
            viewed = false;
            for (const auto& view : g.ops) {
              if (view.outputs[0] == read && view.type == "reshape") read = view.inputs[0], viewed = true;
            }
          }
          const Tensor& source = g.tensors[static_cast<size_t>(read)];
          p.b_parts.push_back(
              writer.type + "(" +
              (source.role == Role::Constant ? std::to_string(static_cast<int>(source.value)) : source.name) + ")");
        }
      }
    }
  }
  return p;
}

// test_mm_unaligned_k_pads: (55, 67) @ (67, 128): only y padded, to 128 rows.
TEST(TorchSpyrePadding, MmUnalignedKPads) {
  const PaddedMatmul p = inspect(decomposed_matmul({55, 67}, {67, 128}, {55, 128}));
  EXPECT_EQ(p.a, "x");  // x untouched
  EXPECT_EQ(p.k, 128);
  EXPECT_EQ(p.b_rows, 128);
  EXPECT_EQ(p.b_parts, (std::vector<std::string>{"identity(w)", "identity(0)"}));  // copy y, fill the rest
}

// test_mm_aligned_k_no_padding: K = 128 stays, no padding ops.
TEST(TorchSpyrePadding, MmAlignedKNoPadding) {
  const Graph g = decomposed_matmul({55, 128}, {128, 128}, {55, 128});
  const PaddedMatmul p = inspect(g);
  EXPECT_EQ(p.k, 128);
  EXPECT_EQ(p.b, "w");
  EXPECT_EQ(g.ops.size(), 1u);
}

// test_bmm_3d_unaligned_k_pads, test_bmm_3d_2d_unaligned_k_pads,
// test_matmul_4d_unaligned_k_pads, test_mm_square_unaligned_k_pads_y_only,
// test_padded_buffer_sizes_y_only: y padded to [..., 128, N], x untouched.
TEST(TorchSpyrePadding, BatchedAndSquareUnalignedKPadYOnly) {
  struct Case {
    std::string test;
    Shape x, w, out;
  };
  const std::vector<Case> cases = {
      {"test_bmm_3d_unaligned_k_pads", {2, 55, 67}, {2, 67, 128}, {2, 55, 128}},
      {"test_bmm_3d_2d_unaligned_k_pads", {2, 55, 67}, {67, 128}, {2, 55, 128}},
      {"test_matmul_4d_unaligned_k_pads", {2, 3, 55, 67}, {2, 3, 67, 128}, {2, 3, 55, 128}},
      {"test_mm_square_unaligned_k_pads_y_only", {67, 67}, {67, 67}, {67, 67}},
      {"test_padded_buffer_sizes_y_only", {2, 55, 67}, {2, 67, 128}, {2, 55, 128}},
  };
  for (const auto& c : cases) {
    const PaddedMatmul p = inspect(decomposed_matmul(c.x, c.w, c.out));
    EXPECT_EQ(p.a, "x") << c.test;
    EXPECT_EQ(p.k, 128) << c.test;
    EXPECT_EQ(p.b_rows, 128) << c.test;
    EXPECT_EQ(p.b_parts, (std::vector<std::string>{"identity(w)", "identity(0)"})) << c.test;
  }
}

// test_padding_constants_deduped: two padded matmuls share one zero constant.
TEST(TorchSpyrePadding, PaddingConstantsDeduped) {
  const Json graph = {{"name", "two"},
                      {"tensors",
                       {{{"name", "x"}, {"shape", {2, 55, 67}}, {"role", "input"}},
                        {{"name", "w1"}, {"shape", {2, 67, 128}}, {"role", "input"}},
                        {{"name", "w2"}, {"shape", {2, 67, 128}}, {"role", "input"}},
                        {{"name", "y"}, {"shape", {2, 55, 128}}, {"role", "output"}}}},
                      {"ops",
                       {{{"op", "bmm"}, {"inputs", {"x", "w1"}}, {"outputs", {"a"}}},
                        {{"op", "bmm"}, {"inputs", {"x", "w2"}}, {"outputs", {"b"}}},
                        {{"op", "add"}, {"inputs", {"a", "b"}}, {"outputs", {"y"}}}}}};
  CompileOptions options;
  options.cores = 1;
  PipelineHooks hooks;
  hooks.stop_after = "decompose";
  const Graph g = compile(parse_graph(graph, "two"), options, hooks);
  int constants = 0, matmuls = 0;
  for (const auto& t : g.tensors) constants += t.role == Role::Constant ? 1 : 0;
  for (const auto& op : g.ops) matmuls += op.type == "batchmatmul" ? 1 : 0;
  EXPECT_EQ(matmuls, 2);
  EXPECT_EQ(constants, 1);
}

}  // namespace
}  // namespace spyre::compiler
