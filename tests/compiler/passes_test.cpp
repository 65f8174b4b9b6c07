// The front end and the passes: graph validation errors, decompositions,
// layout propagation and restickify insertion, memory planning.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "compiler/compile_job.h"
#include "compiler/compiler.h"
#include "compiler/ir/iteration_space.h"
#include "compiler/ir/llm_config.h"
#include "compiler/ir/model_ops.h"
#include "compiler/ir/workloads.h"
#include "runtime/text.h"
#include "small_workloads.h"
#include "test_support.h"

namespace spyre::compiler {
namespace {

using test_workloads::small_decoder;

std::string graph_error(const std::string& text) {
  return test::error_of([&] { parse_graph(Json::parse(text), "g.json"); });
}

TEST(GraphFormat, BadGraphsGetOneLineNamingTheOp) {
  const std::string x = R"({"name": "x", "shape": [4, 64], "role": "input"})";
  const std::string y = R"({"name": "y", "role": "output"})";
  auto graph = [&](const std::string& tensors, const std::string& ops) {
    return R"({"tensors": [)" + tensors + R"(], "ops": [)" + ops + "]}";
  };
  EXPECT_EQ(graph_error(graph(x + "," + y, R"({"op": "frobnicate", "inputs": ["x"], "outputs": ["y"]})")),
            "g.json: $.ops[0] frobnicate 'y': unsupported op 'frobnicate'");
  EXPECT_EQ(graph_error(graph(x + "," + y, R"({"op": "abs", "inputs": ["z"], "outputs": ["y"]})")),
            "g.json: $.ops[0].inputs[0]: unknown tensor 'z'");
  EXPECT_EQ(
      graph_error(graph(R"({"name": "x", "shape": [4, 64], "dtype": "int8", "role": "input"})", "")),
      "g.json: $.tensors[0].dtype: unsupported dtype 'int8' (the device has float16, bfloat16, float32, int32; int64 "
      "is kept as int32)");
  EXPECT_EQ(
      graph_error(graph(x + "," + y, R"({"op": "abs", "inputs": ["x"], "outputs": ["y"], "attrs": {"alpha": 1}})")),
      "g.json: $.ops[0] abs 'y': abs does not take attribute 'alpha'");
  EXPECT_EQ(
      graph_error(graph(x + "," + y, R"({"op": "softmax", "inputs": ["x"], "outputs": ["y"], "attrs": {"dim": 2}})")),
      "g.json: $.ops[0] softmax 'y': dim 2 is out of range for rank 2");
  EXPECT_EQ(graph_error(graph(x + "," + R"({"name": "w", "shape": [64, 32], "role": "weight"})" + "," + y,
                              R"({"op": "matmul", "inputs": ["w", "x"], "outputs": ["y"]})")),
            "g.json: $.ops[0] matmul 'y': matmul inner dimensions differ: (64, 32) @ (4, 64)");
  EXPECT_EQ(
      graph_error(graph(
          x + R"(, {"name": "a"}, {"name": "b"},)" + y,
          R"({"op": "add", "inputs": ["x", "b"], "outputs": ["a"]}, {"op": "abs", "inputs": ["a"], "outputs": ["b"]},
                                 {"op": "abs", "inputs": ["b"], "outputs": ["y"]})")),
      "g.json: $.ops[0] add 'a': is part of a cycle: it depends on its own output");
  EXPECT_EQ(
      graph_error(graph(x + R"(, {"name": "a"},)" + y, R"({"op": "abs", "inputs": ["a"], "outputs": ["y"]})")),
      "g.json: $.ops[0] abs 'y': reads 'a', which no op produces and which is not a graph input, weight or constant");
  EXPECT_EQ(graph_error(graph(x + "," + y, R"({"op": "abs", "inputs": ["x"], "outputs": ["x"]})")),
            "g.json: $.ops[0] abs 'x': writes 'x', which is a graph input");
  EXPECT_EQ(graph_error(R"({"tensors": {}, "ops": []})"), "g.json: $.tensors: expected an array");
  EXPECT_EQ(graph_error(graph(
                x + "," + y, R"({"op": "expand", "inputs": ["x"], "outputs": ["y"], "attrs": {"shape": [2, 3, 64]}})")),
            "g.json: $.ops[0] expand 'y': cannot expand dim 1 of size 4 to 3");
  EXPECT_EQ(graph_error(graph(x + "," + y, R"({"op": "expand", "inputs": ["x"], "outputs": ["y"],
            "attrs": {"shape": [64]}})")),
            "g.json: $.ops[0] expand 'y': expand to rank 1 of a rank-2 tensor");
  EXPECT_EQ(graph_error(graph(x + "," + y, R"({"op": "to", "inputs": ["x"], "outputs": ["y"]})")),
            "g.json: $.ops[0] to 'y': missing attribute 'dtype'");
  EXPECT_EQ(
      graph_error(graph(x + "," + y, R"({"op": "to", "inputs": ["x"], "outputs": ["y"], "attrs": {"dtype": 32}})")),
      "g.json: $.ops[0] to 'y': attribute 'dtype' must be a dtype name");
  EXPECT_EQ(graph_error(
                graph(x + "," + y, R"({"op": "to", "inputs": ["x"], "outputs": ["y"], "attrs": {"dtype": "uint8"}})")),
            "g.json: $.ops[0] to 'y': attribute 'dtype' 'uint8' is not a device dtype (float16, bfloat16, float32, "
            "int32, int64)");
  EXPECT_EQ(graph_error(graph(x + R"(, {"name": "y", "shape": [4, 64], "role": "output"})",
                              R"({"op": "float", "inputs": ["x"], "outputs": ["y"]})")),
            "g.json: $.ops[0] float 'y': declares 'y' as float16 but the op makes float32");
  auto op_error = [&](const std::string& op) { return graph_error(graph(x + "," + y, op)); };
  EXPECT_EQ(op_error(R"({"op": "pow", "inputs": ["x"], "outputs": ["y"], "attrs": {"exponent": 1.7}})"),
            "g.json: $.ops[0] pow 'y': pow with exponent 1.7 is not compiled: torch-spyre has no pow op; whole "
            "exponents other than 0 (multiplications, reciprocal), 0.5 (sqrt) and -0.5 (rsqrt) are");
  EXPECT_EQ(op_error(R"({"op": "select", "inputs": ["x"], "outputs": ["y"], "attrs": {"dim": 0, "index": 4}})"),
            "g.json: $.ops[0] select 'y': index 4 is out of range for a dimension of size 4");
  EXPECT_EQ(op_error(R"({"op": "narrow", "inputs": ["x"], "outputs": ["y"],
                        "attrs": {"dim": 1, "start": 60, "length": 8}})"),
            "g.json: $.ops[0] narrow 'y': narrow [60, 68) of a dimension of size 64");
  EXPECT_EQ(
      op_error(R"({"op": "flatten", "inputs": ["x"], "outputs": ["y"], "attrs": {"start_dim": 1, "end_dim": 0}})"),
      "g.json: $.ops[0] flatten 'y': flatten's start_dim comes after its end_dim");
  const std::string qkv = R"({"name": "q", "shape": [1, 2, 64, 64], "role": "input"},
      {"name": "kv", "shape": [1, 2, 128, 64], "role": "input"}, {"name": "m", "shape": [64, 64], "role": "input"})";
  auto sdpa_error = [&](const std::string& inputs, const std::string& attrs) {
    return graph_error(graph(qkv + "," + y, R"({"op": "scaled_dot_product_attention", "inputs": )" + inputs +
                                                R"(, "outputs": ["y"], "attrs": )" + attrs + "}"));
  };
  EXPECT_EQ(sdpa_error(R"(["q", "kv", "kv"])", R"({"is_causal": true})"),
            "g.json: $.ops[0] scaled_dot_product_attention 'y': is_causal is not compiled: give the causal mask as "
            "attn_mask (the fourth input)");
  EXPECT_EQ(sdpa_error(R"(["q", "kv", "kv"])", R"({"dropout_p": 0.1})"),
            "g.json: $.ops[0] scaled_dot_product_attention 'y': dropout_p other than 0 draws a random mask; only "
            "inference (dropout_p 0) is compiled");
  EXPECT_EQ(sdpa_error(R"(["q", "kv", "kv", "m"])", "{}"),
            "g.json: $.ops[0] scaled_dot_product_attention 'y': attn_mask (64, 64) does not broadcast to the scores "
            "(1, 2, 64, 128)");
  EXPECT_EQ(op_error(R"({"op": "dropout", "inputs": ["x"], "outputs": ["y"], "attrs": {"training": true}})"),
            "g.json: $.ops[0] dropout 'y': dropout in training draws a random mask; only inference (training false) "
            "is compiled");
  EXPECT_EQ(op_error(R"({"op": "max", "inputs": ["x"], "outputs": ["y"], "attrs": {"dim": 0}})"),
            "g.json: $.ops[0] max 'y': torch.max with dim returns values and indices; amax gives the values (the "
            "indices are not compiled)");
  EXPECT_EQ(op_error(R"({"op": "norm", "inputs": ["x"], "outputs": ["y"], "attrs": {"p": 3}})"),
            "g.json: $.ops[0] norm 'y': a norm of order 3 is not compiled; orders 1, 2, inf and -inf are (abs or "
            "square, sum, amax or amin, sqrt)");
  EXPECT_EQ(op_error(R"({"op": "vector_norm", "inputs": ["x"], "outputs": ["y"], "attrs": {"ord": "nuc"}})"),
            "g.json: $.ops[0] vector_norm 'y': attribute 'ord' 'nuc' is not a norm order (1, 2, \"inf\", \"-inf\", "
            "\"fro\")");
  EXPECT_EQ(op_error(R"({"op": "repeat", "inputs": ["x"], "outputs": ["y"], "attrs": {"repeats": [2]}})"),
            "g.json: $.ops[0] repeat 'y': repeat takes at least as many counts as the input has dims (2), got 1");
  EXPECT_EQ(op_error(R"({"op": "repeat", "inputs": ["x"], "outputs": ["y"], "attrs": {"repeats": [1, 0]}})"),
            "g.json: $.ops[0] repeat 'y': repeat count 0 (counts must be positive)");
  EXPECT_EQ(op_error(R"({"op": "full", "inputs": [], "outputs": ["y"], "attrs": {"fill_value": 1}})"),
            "g.json: $.ops[0] full 'y': full needs attribute 'size' (a list of dims)");
  EXPECT_EQ(op_error(R"({"op": "zeros", "inputs": [], "outputs": ["y"], "attrs": {"size": 4}})"),
            "g.json: $.ops[0] zeros 'y': attribute 'size' must be a list of integers");
  EXPECT_EQ(op_error(R"({"op": "cat", "inputs": ["x", "x"], "outputs": ["y"], "attrs": {"dim": 2}})"),
            "g.json: $.ops[0] cat 'y': dim 2 is out of range for rank 2");
  EXPECT_EQ(graph_error(graph(x + R"(, {"name": "z", "shape": [8, 32], "role": "input"},)" + y,
                              R"({"op": "cat", "inputs": ["x", "z"], "outputs": ["y"], "attrs": {"dim": 0}})")),
            "g.json: $.ops[0] cat 'y': cat inputs must match except in dim 0: (4, 64) and (8, 32)");
  EXPECT_EQ(graph_error(graph(x + R"(, {"name": "z", "shape": [8, 64], "role": "input"},)" + y,
                              R"({"op": "stack", "inputs": ["x", "z"], "outputs": ["y"]})")),
            "g.json: $.ops[0] stack 'y': stack inputs must match in every dim: (4, 64) and (8, 64)");
  EXPECT_EQ(graph_error(graph(
                x + "," + y, R"({"op": "split", "inputs": ["x"], "outputs": ["y", "z"], "attrs": {"split_size": 4}})")),
            "g.json: $.ops[0] split 'y': split of dim 0 (size 4) gives 1 piece, the op names 2 outputs");
  EXPECT_EQ(graph_error(graph(x + "," + y, R"({"op": "split", "inputs": ["x"], "outputs": ["y", "z"],
                              "attrs": {"split_size": [16, 16], "dim": 1}})")),
            "g.json: $.ops[0] split 'y': split sizes [16,16] do not add up to dim 1 of size 64");
  EXPECT_EQ(graph_error(graph(x + "," + y, R"({"op": "aminmax", "inputs": ["x"], "outputs": ["y"]})")),
            "g.json: $.ops[0].outputs: aminmax has two outputs, its min and its max");
  EXPECT_EQ(graph_error(graph(x + "," + y, R"({"op": "chunk", "inputs": ["x"], "outputs": ["y", "z"],
                              "attrs": {"chunks": 2, "piece": 1}})")),
            "g.json: $.ops[0].attrs: 'piece' names one output; this op has several");
  EXPECT_EQ(op_error(R"({"op": "addmm", "inputs": ["x", "x", "x"], "outputs": ["y"]})"),
            "g.json: $.ops[0] addmm 'y': addmm multiplies two matrices (n, k) @ (k, m), got (4, 64) and (4, 64)");
}

// pow by a scalar lowers as Inductor's pow lowering does: a whole exponent
// into multiplications by squaring (a negative one then a reciprocal), 0.5
// and -0.5 into sqrt and rsqrt.
TEST(Decompose, PowBecomesMultiplicationsOrARoot) {
  auto ops_of = [](double exponent) {
    const Graph g = compile(parse_graph(Json::parse(R"({"tensors": [
        {"name": "x", "shape": [4, 64], "role": "input"}, {"name": "y", "role": "output"}],
      "ops": [{"op": "pow", "inputs": ["x"], "outputs": ["y"], "attrs": {"exponent": )" +
                                                    format_number(exponent) + "}}]}"),
                                        "g.json"),
                            {});
    std::vector<std::string> ops;
    for (const auto& op : g.ops) ops.push_back(op.type);
    return ops;
  };
  EXPECT_EQ(ops_of(2), (std::vector<std::string>{"mul"}));
  EXPECT_EQ(ops_of(3), (std::vector<std::string>{"mul", "mul"}));
  EXPECT_EQ(ops_of(4), (std::vector<std::string>{"mul", "mul"}));
  EXPECT_EQ(ops_of(-2), (std::vector<std::string>{"mul", "reciprocal"}));
  EXPECT_EQ(ops_of(1), (std::vector<std::string>{"identity"}));
  EXPECT_EQ(ops_of(0.5), (std::vector<std::string>{"sqrt"}));
  EXPECT_EQ(ops_of(-0.5), (std::vector<std::string>{"rsqrt"}));
}

// A cast changes the dtype of its output (torch's Tensor.to, .float(), .half())
// and lowers as torch-spyre's DtypeOpTable does: fp16 <-> bf16 keep the device
// format, to and from fp32 convert it.
TEST(Decompose, CastsBecomeTheConversionOpsTorchSpyreEmits) {
  const Graph g = compile(parse_graph(Json::parse(R"({"tensors": [
      {"name": "x", "shape": [4, 64], "dtype": "float16", "role": "input"},
      {"name": "y", "role": "output"}, {"name": "z", "role": "output"}, {"name": "b", "role": "output"}],
    "ops": [{"op": "float", "inputs": ["x"], "outputs": ["y"]},
            {"op": "to", "inputs": ["y"], "outputs": ["z"], "attrs": {"dtype": "float16"}},
            {"op": "to", "inputs": ["x"], "outputs": ["b"], "attrs": {"dtype": "bfloat16"}}]})"),
                                      "g.json"),
                          {});
  std::vector<std::string> ops;
  for (const auto& op : g.ops) ops.push_back(op.type);
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<std::string>{"dl16tofp32", "fp32todl16", "identity"}));
  EXPECT_EQ(g.tensors[static_cast<size_t>(g.find("y"))].dtype, DType::F32);
  EXPECT_EQ(g.tensors[static_cast<size_t>(g.find("z"))].dtype, DType::F16);
  EXPECT_EQ(g.tensors[static_cast<size_t>(g.find("b"))].dtype, DType::BF16);
}

TEST(GraphFormat, MixedDtypesAndDeadInputsAreCompileErrors) {
  const Graph mixed = parse_graph(Json::parse(R"({"tensors": [
      {"name": "a", "shape": [4, 64], "role": "input"}, {"name": "b", "shape": [4, 64], "dtype": "float32",
       "role": "input"},
      {"name": "y", "role": "output"}], "ops": [{"op": "add", "inputs": ["a", "b"], "outputs": ["y"]}]})"),
                                  "g.json");
  EXPECT_EQ(test::error_of([&] { compile(mixed, {}); }),
            "g.json: $.ops[0] add 'y': mixes float16 and float32 operands; give every operand one dtype");
  const Graph view_only = parse_graph(
      Json::parse(R"({"tensors": [{"name": "a", "shape": [4, 64], "role": "input"}, {"name": "y", "role": "output"}],
      "ops": [{"op": "reshape", "inputs": ["a"], "outputs": ["y"], "attrs": {"shape": [256]}}]})"),
      "g.json");
  EXPECT_EQ(test::error_of([&] { compile(view_only, {}); }),
            "g.json: tensor 'y': is a graph output but only a view of input 'a'; the device computes nothing for it");
}

std::vector<std::string> device_ops(const Graph& g) {
  std::vector<std::string> out;
  for (const auto& op : g.ops) {
    if (!is_view_op(op.type)) out.push_back(op.type);
  }
  return out;
}

Graph compiled_workload(const std::string& name, std::vector<int64_t> shape, int64_t dim = -1, int cores = 32) {
  WorkloadParams p;
  p.shape = std::move(shape);
  p.dim = dim;
  CompileOptions o;
  o.cores = cores;
  return compile(build_workload(name, p), o);
}

TEST(Decompose, CompositeOpsBecomeSdscOpsAsTorchSpyreLowersThem) {
  EXPECT_EQ(device_ops(compiled_workload("softmax", {64, 256})),
            (std::vector<std::string>{"max", "sub", "exp", "sum", "realdiv"}));
  // Softmax over rows reduces a non-stick dim.
  EXPECT_EQ(device_ops(compiled_workload("softmax", {64, 256}, 0)),
            (std::vector<std::string>{"maxnonstick", "sub", "exp", "sumnonstick", "realdiv"}));
  EXPECT_EQ(device_ops(compiled_workload("layernorm", {64, 256})),
            (std::vector<std::string>{"exx2", "layernormscale", "layernormnorm"}));
  EXPECT_EQ(device_ops(compiled_workload("rmsnorm", {64, 256})),
            (std::vector<std::string>{"exx2_zeromean", "layernormscale", "layernormnorm"}));
  EXPECT_EQ(device_ops(compiled_workload("linear", {64, 128, 256})), (std::vector<std::string>{"batchmatmul", "add"}));
  EXPECT_EQ(device_ops(compiled_workload("mlp", {64, 128, 256})),
            (std::vector<std::string>{"batchmatmul", "batchmatmul", "silu", "mul", "batchmatmul"}));
  // mean carries 1/N as a constant; clamp its bounds.
  const Graph mean = compiled_workload("mean", {64, 256});
  EXPECT_FLOAT_EQ(mean.ops[0].attrs["constants"]["scaling_factor"].get<float>(), 1.0f / 256);
}

// The ops of torch-spyre's supported list that are compositions: their
// device ops, and a reduction over several dims as one reduction per dim.
TEST(Decompose, NormsFillsRepeatsAndAddmmBecomeDeviceOps) {
  auto ops_of = [](const std::string& op, const std::string& attrs, const std::string& inputs = R"(["x"])") {
    return device_ops(compile(parse_graph(Json::parse(R"({"tensors": [
        {"name": "x", "shape": [64, 128], "role": "input"}, {"name": "w", "shape": [128, 64], "role": "input"},
        {"name": "b", "shape": [64], "role": "input"}, {"name": "y", "role": "output"}],
        "ops": [{"op": ")" + op + R"(", "inputs": )" + inputs +
                                                      R"(, "outputs": ["y"], "attrs": )" + attrs + "}]}"),
                                          "g.json"),
                              {}));
  };
  EXPECT_EQ(ops_of("vector_norm", "{}"), (std::vector<std::string>{"mul", "sumnonstick", "sum", "sqrt"}));
  EXPECT_EQ(ops_of("norm", R"({"p": 1, "dim": -1})"), (std::vector<std::string>{"abs", "sum"}));
  EXPECT_EQ(ops_of("vector_norm", R"({"ord": "-inf", "dim": 0})"), (std::vector<std::string>{"abs", "minnonstick"}));
  EXPECT_EQ(ops_of("mean", R"({"dim": [0, 1]})"), (std::vector<std::string>{"meannonstick", "mean"}));
  EXPECT_EQ(ops_of("max", "{}"), (std::vector<std::string>{"maxnonstick", "max"}));
  EXPECT_EQ(ops_of("zeros_like", "{}"), (std::vector<std::string>{"identity"}));
  EXPECT_EQ(ops_of("repeat", R"({"repeats": [2, 1]})"), (std::vector<std::string>{"identity"}));
  EXPECT_EQ(ops_of("addmm", R"({"beta": 0.5, "alpha": 2})", R"(["b", "x", "w"])"),
            (std::vector<std::string>{"batchmatmul", "mul", "mul", "add"}));
  EXPECT_EQ(ops_of("addmm", R"({"beta": 0})", R"(["b", "x", "w"])"),
            (std::vector<std::string>{"batchmatmul", "identity"}));
  // A mean over two dims scales by 1/N of each.
  const Graph mean = compile(parse_graph(Json::parse(R"({"tensors": [{"name": "x", "shape": [64, 128], "role": "input"},
      {"name": "y", "role": "output"}], "ops": [{"op": "mean", "inputs": ["x"], "outputs": ["y"],
      "attrs": {"dim": [0, 1]}}]})"),
                                         "g.json"),
                             {});
  EXPECT_FLOAT_EQ(mean.ops[0].attrs["constants"]["scaling_factor"].get<float>(), 1.0f / 64);
  EXPECT_FLOAT_EQ(mean.ops[1].attrs["constants"]["scaling_factor"].get<float>(), 1.0f / 128);
  // full with no input makes its declared dtype; a fill reads one constant.
  const Graph full = compile(parse_graph(Json::parse(R"({"tensors": [{"name": "y", "dtype": "float32", "role":
      "output"}], "ops": [{"op": "full", "inputs": [], "outputs": ["y"], "attrs": {"size": [8, 64], "fill_value": 3}}]})"),
                                         "g.json"),
                             {});
  EXPECT_EQ(full.tensors[static_cast<size_t>(full.find("y"))].dtype, DType::F32);
  EXPECT_EQ(full.tensors[static_cast<size_t>(full.find("y"))].shape, (Shape{8, 64}));
  ASSERT_GE(full.find("const.3"), 0);
}

// torch.cat as torch-spyre's lower_cat: one identity per input writing its
// slice of the output, which owns the bytes (the parts are views of it, the
// concatenated dim outermost in its layout); no kernel copies them again.
TEST(Decompose, CatCopiesEachInputIntoItsSliceOfTheOutput) {
  const Graph g = compile(parse_graph(Json::parse(R"({"tensors": [
      {"name": "a", "shape": [64, 128], "role": "input"}, {"name": "b", "shape": [32, 128], "role": "input"},
      {"name": "y", "role": "output"}],
      "ops": [{"op": "cat", "inputs": ["a", "b"], "outputs": ["y"], "attrs": {"dim": 0}}]})"),
                                      "g.json"),
                          {});
  EXPECT_EQ(device_ops(g), (std::vector<std::string>{"identity", "identity"}));
  const int y = g.find("y");
  const Tensor& out = g.tensors[static_cast<size_t>(y)];
  EXPECT_EQ(out.shape, (Shape{96, 128}));
  EXPECT_EQ(out.layout.order.back(), 0);  // rows outermost: each part one block
  int64_t expected_offset = 0;
  for (const auto& op : g.ops) {
    if (op.type != "identity") continue;
    const Tensor& part = g.tensors[static_cast<size_t>(op.outputs[0])];
    EXPECT_EQ(g.storage_of(op.outputs[0]), y) << part.name;
    EXPECT_EQ(part.view_offset, expected_offset) << part.name;
    expected_offset += part.elements() * 2;
  }
  EXPECT_EQ(expected_offset, 96 * 128 * 2);
  // Along the stick dim, a part that ends inside a stick makes the output
  // stick along another dim that fills whole sticks; with none, the cat is refused.
  auto along_columns = [](int64_t rows) {
    return parse_graph(Json::parse(R"({"tensors": [
      {"name": "a", "shape": [)" + std::to_string(rows) +
                                   R"(, 40], "role": "input"}, {"name": "b", "shape": [)" + std::to_string(rows) +
                                   R"(, 128], "role": "input"}, {"name": "y", "role": "output"}],
      "ops": [{"op": "cat", "inputs": ["a", "b"], "outputs": ["y"], "attrs": {"dim": 1}}]})"),
                       "g.json");
  };
  const Graph sticks_along_rows = compile(along_columns(64), {});
  const Tensor& rows_out = sticks_along_rows.tensors[static_cast<size_t>(sticks_along_rows.find("y"))];
  EXPECT_EQ(rows_out.layout.stick, 0);
  EXPECT_EQ(rows_out.layout.order.back(), 1);
  EXPECT_EQ(test::error_of([&] { compile(along_columns(60), {}); }),
            "g.json: $.ops[0] cat 'y': along the stick dim every input but the last must fill whole sticks of 64 "
            "elements (input 0 has 40), or another dim must, to stick along instead");
}

// split, chunk and unbind written with several outputs become one op per
// output when read, each a slice (unbind's then drops the dim): views, no kernel.
TEST(Decompose, TupleViewsBecomeOneSlicePerOutput) {
  const Graph model = parse_graph(Json::parse(R"({"tensors": [
      {"name": "x", "shape": [6, 64, 128], "role": "input"}, {"name": "y", "role": "output"},
      {"name": "z", "role": "output"}],
      "ops": [{"op": "chunk", "inputs": ["x"], "outputs": ["a", "b", "c"], "attrs": {"chunks": 3}},
              {"op": "unbind", "inputs": ["b"], "outputs": ["b0", "b1"]},
              {"op": "split", "inputs": ["c"], "outputs": ["c0", "c1"], "attrs": {"split_size": [64, 64], "dim": 2}},
              {"op": "add", "inputs": ["b1", "a"], "outputs": ["h"]}, {"op": "mul", "inputs": ["h", "c"],
               "outputs": ["y"]}, {"op": "neg", "inputs": ["c1"], "outputs": ["z"]}]})"),
                                  "g.json");
  EXPECT_EQ(model.ops.size(), 10u);
  // aminmax: an amin and an amax.
  const Graph both = parse_graph(Json::parse(R"({"tensors": [{"name": "x", "shape": [64, 128], "role": "input"},
      {"name": "lo", "role": "output"}, {"name": "hi", "role": "output"}],
      "ops": [{"op": "aminmax", "inputs": ["x"], "outputs": ["lo", "hi"], "attrs": {"dim": -1}}]})"),
                                 "g.json");
  ASSERT_EQ(both.ops.size(), 2u);
  EXPECT_EQ(both.ops[0].type, "amin");
  EXPECT_EQ(both.ops[1].type, "amax");
  EXPECT_EQ(both.tensors[static_cast<size_t>(both.find("hi"))].shape, (Shape{64}));
  auto shape_of = [&](const std::string& name) { return model.tensors[static_cast<size_t>(model.find(name))].shape; };
  EXPECT_EQ(shape_of("a"), (Shape{2, 64, 128}));
  EXPECT_EQ(shape_of("b1"), (Shape{64, 128}));
  EXPECT_EQ(shape_of("c1"), (Shape{2, 64, 64}));
  EXPECT_EQ(shape_of("y"), (Shape{2, 64, 128}));
  // Besides the layout copies that let slices of x along two dims read it
  // (a graph input has one layout), only the pointwise ops run.
  const Graph g = compile(model, {});
  std::vector<std::string> ops;
  for (const auto& op : g.ops) {
    if (!is_view_op(op.type) && !op.inserted) ops.push_back(op.type);
  }
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<std::string>{"add", "mul", "neg"}));
}

// Python's operator name truediv and the in-place forms name the same device ops.
TEST(Decompose, AliasesLowerAsTheOpsTheyName) {
  const Graph g = compile(parse_graph(Json::parse(R"({"tensors": [
      {"name": "a", "shape": [64, 128], "role": "input"}, {"name": "b", "shape": [64, 128], "role": "input"},
      {"name": "y", "role": "output"}],
      "ops": [{"op": "truediv", "inputs": ["a", "b"], "outputs": ["q"]},
              {"op": "add_", "inputs": ["q"], "outputs": ["r"], "attrs": {"scalar": 1.0}},
              {"op": "mul_", "inputs": ["r", "b"], "outputs": ["m"]},
              {"op": "sub_", "inputs": ["m", "a"], "outputs": ["d"]},
              {"op": "div_", "inputs": ["d"], "outputs": ["c"], "attrs": {"scalar": 2.0}},
              {"op": "clamp_", "inputs": ["c"], "outputs": ["y"], "attrs": {"min": -4.0, "max": 4.0}}]})"),
                                      "g.json"),
                          {});
  EXPECT_EQ(device_ops(g), (std::vector<std::string>{"realdiv", "add", "mul", "sub", "realdiv", "clip"}));
  EXPECT_FLOAT_EQ(g.ops.back().attrs["constants"]["clipMax"].get<float>(), 4.0f);
}

TEST(Decompose, ScalarsBecomeSizeOneConstants) {
  const Graph g = compile(
      parse_graph(
          Json::parse(
              R"({"tensors": [{"name": "x", "shape": [4, 64], "role": "input"}, {"name": "y", "role": "output"}],
      "ops": [{"op": "mul", "inputs": ["x"], "outputs": ["h"], "attrs": {"scalar": 0.5}},
              {"op": "add", "inputs": ["h"], "outputs": ["y"], "attrs": {"scalar": 0.5}}]})"),
          "g.json"),
      {});
  const int c = g.find("const.0.5");
  ASSERT_GE(c, 0);
  EXPECT_EQ(g.tensors[static_cast<size_t>(c)].shape, (Shape{1}));
  EXPECT_EQ(g.tensors[static_cast<size_t>(c)].role, Role::Constant);
  // One constant serves both ops.
  EXPECT_EQ(g.ops[0].inputs[1], c);
  EXPECT_EQ(g.ops[1].inputs[1], c);
}

TEST(Layouts, ConsumersChooseFreeLayoutsSoNoCopyIsNeeded) {
  // Attention reads K^T with its sticks along the keys. K is a graph input,
  // free to be laid out that way: no restickify.
  WorkloadParams p;
  p.shape = {1, 8, 128, 64};
  p.kv_heads = 2;
  const Graph attention = compile(build_workload("attention", p), {});
  EXPECT_EQ(attention.tensors[static_cast<size_t>(attention.find("k"))].layout.stick, 2);
  for (const auto& op : attention.ops) EXPECT_FALSE(op.inserted) << op.type;
  // The linear weight W (out, in) is stored with its sticks along `out`, so
  // its transposed view is batchmatmul's KERNEL as it is.
  const Graph linear = compiled_workload("linear", {64, 128, 256});
  EXPECT_EQ(linear.tensors[static_cast<size_t>(linear.find("weight"))].layout.stick, 0);
}

TEST(Layouts, RestickifyWhereAProducerFixedTheOtherStick) {
  // In the decoder, K comes out of a linear with its sticks along head_dim
  // (N); K^T needs them along the keys: one ReStickifyOpHBM.
  const Graph g = compile(build_workload("decoder", small_decoder()), {});
  int inserted = 0;
  for (const auto& op : g.ops) {
    if (!op.inserted) continue;
    ++inserted;
    EXPECT_EQ(op.type, "ReStickifyOpHBM");
    EXPECT_EQ(g.tensors[static_cast<size_t>(op.inputs[0])].name, "attn.kT.grouped");
    EXPECT_EQ(op.origin, "attention 'attn'");
  }
  EXPECT_EQ(inserted, 1);
}

// The whole-model workload: its layers' weights, RoPE's cat, each decode
// layer's KV cache grown by cat, and Granite's LM head (49159 vocabulary
// rows, 769 sticks: prime) in blocks of 16384 rows whose weights stay within
// the per-core span, their logits concatenated.
TEST(Workloads, GraniteIsLayersWithRopeAndAnLmHeadInBlocks) {
  WorkloadParams p;
  p.layers = 2;
  p.seq = 64;
  const Graph prefill = build_workload("granite", p);
  auto shape_of = [](const Graph& g, const std::string& name) {
    const int t = g.find(name);
    return t < 0 ? Shape{} : g.tensors[static_cast<size_t>(t)].shape;
  };
  EXPECT_EQ(shape_of(prefill, "layers.1.k_proj.weight"), (Shape{1024, 4096}));
  EXPECT_EQ(shape_of(prefill, "layers.2.k_proj.weight"), Shape{});
  EXPECT_EQ(shape_of(prefill, "mask"), (Shape{1, 1, 64, 64}));
  EXPECT_EQ(shape_of(prefill, "lm_head.weight.0"), (Shape{16384, 4096}));
  EXPECT_EQ(shape_of(prefill, "lm_head.weight.3"), (Shape{49159 - 3 * 16384, 4096}));
  EXPECT_EQ(shape_of(prefill, "logits"), (Shape{1, 64, 49159}));
  int cats = 0;
  for (const auto& op : prefill.ops) cats += op.type == "cat";
  EXPECT_EQ(cats, 2 * 2 + 1);  // rotate_half of q and k per layer, the LM head
  p.phase = "decode";
  p.seq = 0;
  p.context = 100;
  const Graph decode = build_workload("granite", p);
  EXPECT_EQ(shape_of(decode, "layers.0.past_v"), (Shape{1, 8, 100, 128}));
  EXPECT_EQ(shape_of(decode, "mask"), (Shape{1, 1, 1, 101}));
  EXPECT_EQ(shape_of(decode, "layers.0.keys"), (Shape{1, 8, 101, 128}));
  p.phase = "generate";
  EXPECT_EQ(test::error_of([&] { build_workload("granite", p); }),
            "--phase: 'generate' is not a phase (prefill, decode)");
}

// --model CONFIG.json: the same workload from a Hugging Face config. A Llama
// config (no Granite scalars) gets 1/sqrt(head dim), no residual multiplier
// and the LM head writing the logits; Granite's config is --workload granite;
// the command line's sizes win; bad configs name the file and the key.
TEST(Workloads, AnLlmConfigIsTheGraniteWorkloadWithItsSizesAndScalars) {
  auto attr_of = [](const Graph& g, const std::string& output, const char* key) {
    for (const auto& op : g.ops)
      if (g.tensors[static_cast<size_t>(op.outputs[0])].name == output) return op.attrs.at(key).get<double>();
    ADD_FAILURE() << "no op writes " << output;
    return 0.0;
  };
  auto count = [](const Graph& g, const std::string& type) {
    return std::count_if(g.ops.begin(), g.ops.end(), [&](const Op& op) { return op.type == type; });
  };
  WorkloadParams p;
  p.seq = 64;
  const Graph small = build_workload("granite", llm_config_params(test::source_path("models/llm/small.json"), p));
  EXPECT_NEAR(attr_of(small, "layers.1.attn", "scale"), 0.125, 1e-9);  // head dim 64
  EXPECT_NEAR(attr_of(small, "layers.0.h", "eps"), 1e-6, 1e-12);
  EXPECT_EQ(count(small, "mul"), 4 * 2);  // RoPE's cos and sin products of q and k: no residual multiplier
  EXPECT_EQ(count(small, "div"), 0);
  const int logits = small.find("logits");
  ASSERT_GE(logits, 0);
  EXPECT_EQ(small.tensors[static_cast<size_t>(logits)].role, Role::Output);
  EXPECT_EQ(small.find("layers.2.q_proj.weight"), -1);
  EXPECT_GE(small.find("layers.1.q_proj.weight"), 0);

  p.layers = 1;
  p.given = {"layers"};
  const Graph granite =
      build_workload("granite", llm_config_params(test::source_path("models/llm/granite-3.3-8b.json"), p));
  const Graph builtin = build_workload("granite", p);
  EXPECT_EQ(granite.ops.size(), builtin.ops.size());
  EXPECT_EQ(granite.find("layers.1.q_proj.weight"), -1);  // --layers 1 wins over the config's 40
  EXPECT_NEAR(attr_of(granite, "layers.0.attn", "scale"), 0.0078125, 1e-9);
  EXPECT_NEAR(attr_of(granite, "logits", "scalar"), 16.0, 1e-9);

  test::TempDir dir;
  const std::string config = dir.file("config.json");
  test::write_text(config, R"({"hidden_size": 256, "num_attention_heads": 3, "intermediate_size": 512,
                              "num_hidden_layers": 1, "vocab_size": 64})");
  EXPECT_EQ(test::error_of([&] { llm_config_params(config, WorkloadParams{}); }),
            config + ": $.hidden_size: is not a multiple of num_attention_heads (3)");
  test::write_text(config, R"({"hidden_size": 256, "num_attention_heads": 4, "intermediate_size": 512,
                              "num_hidden_layers": 1})");
  EXPECT_EQ(test::error_of([&] { llm_config_params(config, WorkloadParams{}); }),
            config + ": $: missing required field 'vocab_size'");
}

// The backend has no prod within sticks (torch-spyre's
// REDUCTIONS_NON_STICK_DIM_ONLY): a prod over the stick dim reads its input
// restickified along the first other dim that fills whole sticks, and one with
// no such dim is refused.
TEST(Layouts, ProdNeverReducesTheStickDim) {
  WorkloadParams p;
  p.shape = {128, 256};
  for (const int dim : {-1, 0}) {
    p.dim = dim;
    const Graph g = compile(build_workload("prod", p), {});
    int inserted = 0;
    for (const auto& op : g.ops) {
      if (op.inserted) {
        ++inserted;
        EXPECT_EQ(op.type, "ReStickifyOpHBM");
        continue;
      }
      if (op.type != "prodnonstick") continue;
      const Tensor& in = g.tensors[static_cast<size_t>(op.inputs[0])];
      EXPECT_EQ(in.layout.stick, dim == -1 ? 0 : 1) << dim;  // never the reduced dim
    }
    EXPECT_EQ(inserted, dim == -1 ? 1 : 0);
  }
  p.shape = {100, 256};
  p.dim = -1;
  EXPECT_NE(test::error_of([&] { compile(build_workload("prod", p), {}); })
                .find("the backend reduces only a non-stick dim with prodnonstick (it has no prodnonstick within "
                      "sticks), and no dim of x but the reduced one is a multiple of 64 elements to stick along"),
            std::string::npos);
}

TEST(MemoryPlanning, HostTensorsAreArgumentsIntermediatesShareAPool) {
  const Graph g = compiled_workload("softmax", {64, 256});
  ASSERT_EQ(g.bundles.size(), 1u);
  std::vector<std::string> args;
  for (int b : g.bundles[0].arguments) args.push_back(g.buffers[static_cast<size_t>(b)].name);
  EXPECT_EQ(args, (std::vector<std::string>{"x", "pool", "y"}));
  // Four intermediates, 128-byte aligned one after another: max and sum
  // (64 rows x one stick) and sub and exp (64 x 4 sticks).
  EXPECT_EQ(g.buffers[static_cast<size_t>(g.bundles[0].arguments[1])].bytes, 2 * 8192 + 2 * 32768);
}

TEST(MemoryPlanning, BundlesBindAtMostSevenArguments) {
  const WorkloadParams p = small_decoder();
  const Graph g = compile(build_workload("decoder", p), {});
  ASSERT_EQ(g.bundles.size(), 2u);
  for (const auto& b : g.bundles) EXPECT_LE(b.arguments.size(), 7u);
  // Packed placement needs a single argument, so a single bundle.
  CompileOptions packed;
  packed.placement = HbmPlacement::Packed;
  EXPECT_EQ(compile(build_workload("decoder", p), packed).bundles.size(), 1u);
}

// Every workload refuses each option it does not take, naming the option, the
// workload and the options it takes, and builds with every option it takes.
TEST(Workloads, EveryWorkloadRefusesTheOptionsItDoesNotTake) {
  const std::vector<std::string> all = {"shape", "dim", "batch", "seq", "hidden", "heads", "kv-heads", "intermediate"};
  std::vector<std::string> names = pointwise_op_names();
  for (const char* n : {"add", "sub", "mul", "div", "maximum", "minimum", "sum", "mean", "amax", "amin", "softmax",
                        "layernorm", "rmsnorm", "matmul", "bmm", "linear", "mlp", "attention", "decoder"})
    names.emplace_back(n);
  size_t refused = 0;
  for (const auto& name : names) {
    const auto takes = workload_options(name);
    ASSERT_FALSE(takes.empty()) << name;
    WorkloadParams p;
    p.given = takes;
    EXPECT_NO_THROW(build_workload(name, p)) << name;  // the defaults of what it takes
    for (const auto& option : all) {
      if (std::find(takes.begin(), takes.end(), option) != takes.end()) continue;
      p.given = {option};
      std::string list;
      for (const auto& t : takes) list += (list.empty() ? "--" : ", --") + t;
      EXPECT_EQ(test::error_of([&] { build_workload(name, p); }),
                "--" + option + ": the " + name + " workload does not take it (it takes " + list + " and --dtype)");
      ++refused;
    }
  }
  EXPECT_GT(refused, 200u);
}

TEST(CompileJob, WritesNothingWhenCompilationFails) {
  test::TempDir dir;
  CompileJob job;
  job.workload = "abs";
  job.params.shape = {8, int64_t{1} << 25};
  job.options.cores = 1;
  job.output_dir = dir.file("out");
  job.emit_io_dir = dir.file("io");
  EXPECT_NE(test::error_of([&] { run_compile_job(job); }), "");
  EXPECT_FALSE(std::filesystem::exists(job.output_dir));
  EXPECT_FALSE(std::filesystem::exists(job.emit_io_dir));
  // An existing directory that is not a compile output is never replaced.
  std::filesystem::create_directories(dir.file("keep"));
  test::write_text(dir.file("keep/notes.txt"), "mine");
  job.params.shape = {4, 64};
  job.output_dir = dir.file("keep");
  EXPECT_EQ(test::error_of([&] { run_compile_job(job); }),
            dir.file("keep") +
                ": exists and is not an earlier spyre-sim compile output (no program.json); refusing to replace it");
  EXPECT_TRUE(std::filesystem::exists(dir.file("keep/notes.txt")));
}

}  // namespace
}  // namespace spyre::compiler
