#include "studies/sweep_op_graph.h"

#include "runtime/json_node.h"

namespace spyre::studies {

namespace {

Json input(const std::string& name, int64_t rows, int64_t cols) {
  return {{"name", name}, {"shape", {rows, cols}}, {"dtype", "float16"}, {"role", "input"}};
}

Json output(const std::string& name) { return {{"name", name}, {"role", "output"}}; }

Json op(const std::string& type, std::vector<std::string> inputs, const std::string& out, Json attrs = Json::object()) {
  return {{"op", type}, {"inputs", inputs}, {"outputs", {out}}, {"attrs", attrs}};
}

compiler::Graph graph(const std::string& name, Json tensors, Json ops) {
  return compiler::parse_graph({{"name", name}, {"tensors", tensors}, {"ops", ops}}, "<sweep op " + name + ">");
}

// ((a + b) + c) + ... over `inputs` tensors; t1, t2, ... between.
compiler::Graph add_chain(const std::string& name, int inputs, int64_t rows, int64_t cols) {
  Json tensors = Json::array(), ops = Json::array();
  std::string sum = "x0";
  tensors.push_back(input(sum, rows, cols));
  for (int i = 1; i < inputs; ++i) {
    const std::string operand = "x" + std::to_string(i);
    const std::string result = i + 1 == inputs ? "y" : "t" + std::to_string(i);
    tensors.push_back(input(operand, rows, cols));
    ops.push_back(op("add", {sum, operand}, result));
    sum = result;
  }
  tensors.push_back(output("y"));
  return graph(name, tensors, ops);
}

// N of "addN" or "addN_sep" (3..9), 0 otherwise.
int chain_inputs(const std::string& op) {
  const std::string head = op.substr(0, op.find('_'));
  if (head.size() != 4 || head.rfind("add", 0) != 0 || head[3] < '3' || head[3] > '9') return 0;
  if (head != op && op != head + "_sep") return 0;
  return head[3] - '0';
}

// y = OP(a) over one [rows, cols] input.
compiler::Graph unary(const std::string& name, const std::string& type, int64_t rows, int64_t cols,
                      Json attrs = Json::object()) {
  return graph(name, {input("a", rows, cols), output("y")}, {op(type, {"a"}, "y", std::move(attrs))});
}

}  // namespace

std::string sweep_op_names() {
  return "add, addN, addN_sep (N = 3..9), add_indep2, amax, bcast, bcastcol, mulbcast, neg, copy, gelu, read, sumrow, "
         "write, ctsum, ctamax, ctamin, softmax_row_tiling, cat0, cat1, relu, sigmoid, exp, mul, sumcol, mean, "
         "transpose, sumall, transpose_outer, softmax_noexp_row_tiling, chain";
}

std::optional<std::string> sweep_op_unsupported(const std::string&) { return std::nullopt; }

namespace {

std::optional<std::vector<SweepProgram>> untiled_programs(const std::string& name, int64_t rows, int64_t cols) {
  if (name == "add") return std::vector<SweepProgram>{{add_chain(name, 2, rows, cols)}};
  if (const int n = chain_inputs(name); n > 0) {
    // Separate launches keep nothing in LX between them.
    return std::vector<SweepProgram>{{add_chain(name, n, rows, cols), name.size() > 4}};
  }
  if (name == "add_indep2") {
    return std::vector<SweepProgram>{{graph(name,
                                            {input("a", rows, cols), input("b", rows, cols), input("c", rows, cols),
                                             input("d", rows, cols), output("y"), output("z")},
                                            {op("add", {"a", "b"}, "y"), op("add", {"c", "d"}, "z")})}};
  }
  if (name == "amax") {
    return std::vector<SweepProgram>{{graph(name, {input("a", rows, cols), output("y")},
                                            {op("amax", {"a"}, "y", {{"dim", -1}, {"keepdim", true}})})}};
  }
  if (name == "bcast" || name == "bcastcol" || name == "mulbcast") {
    const Json b = name == "bcastcol" ? input("b", rows, 1) : input("b", 1, cols);
    return std::vector<SweepProgram>{{graph(name, {input("a", rows, cols), b, output("y")},
                                            {op(name == "mulbcast" ? "mul" : "add", {"a", "b"}, "y")})}};
  }
  if (name == "neg" || name == "gelu" || name == "relu" || name == "sigmoid" || name == "exp")
    return std::vector<SweepProgram>{{unary(name, name, rows, cols)}};
  if (name == "mul") {
    return std::vector<SweepProgram>{
        {graph(name, {input("a", rows, cols), input("b", rows, cols), output("y")}, {op("mul", {"a", "b"}, "y")})}};
  }
  if (name == "copy") return std::vector<SweepProgram>{{unary(name, "add", rows, cols, {{"scalar", 1.0}})}};
  if (name == "read" || name == "sumrow") {
    return std::vector<SweepProgram>{{unary(name, "sum", rows, cols, {{"dim", -1}, {"keepdim", false}})}};
  }
  if (name == "ctsum" || name == "sumcol")
    return std::vector<SweepProgram>{{unary(name, "sum", rows, cols, {{"dim", 0}})}};
  if (name == "ctamax" || name == "ctamin")
    return std::vector<SweepProgram>{{unary(name, name.substr(2), rows, cols, {{"dim", 0}})}};
  if (name == "mean") return std::vector<SweepProgram>{{unary(name, "mean", rows, cols, {{"dim", -1}})}};
  // x.sum(): both dims reduced to one value (the harness's ring-combine probe).
  if (name == "sumall") return std::vector<SweepProgram>{{unary(name, "sum", rows, cols, {{"dim", {0, 1}}})}};
  if (name == "transpose_outer") {
    // x [R, 8, C].transpose(0, 1).contiguous(): the outer dims swap, the stick (C) stays.
    Json x = input("x", rows, cols);
    x["shape"] = {rows, 8, cols};
    return std::vector<SweepProgram>{
        {graph(name, {x, output("y")},
               {op("transpose", {"x"}, "x.t", {{"dim0", 0}, {"dim1", 1}}), op("clone", {"x.t"}, "y")})}};
  }
  if (name == "transpose") {
    // x.transpose(0, 1).contiguous(): the stick dim moves.
    return std::vector<SweepProgram>{
        {graph(name, {input("x", rows, cols), output("y")},
               {op("transpose", {"x"}, "x.t", {{"dim0", 0}, {"dim1", 1}}), op("clone", {"x.t"}, "y")})}};
  }
  if (name == "softmax_row_tiling")
    return std::vector<SweepProgram>{{unary(name, "softmax", rows, cols, {{"dim", -1}})}};
  if (name == "softmax_noexp_row_tiling") {
    // The harness's control for softmax's exp: y = x - amax(x), z = y * 0.5, z / sum(z).
    return std::vector<SweepProgram>{
        {graph(name, {input("x", rows, cols), output("out")},
               {op("amax", {"x"}, "m", {{"dim", -1}, {"keepdim", true}}), op("sub", {"x", "m"}, "y"),
                op("mul", {"y"}, "z", {{"scalar", 0.5}}), op("sum", {"z"}, "s", {{"dim", -1}, {"keepdim", true}}),
                op("div", {"z", "s"}, "out")})}};
  }
  if (name == "chain") {
    // (a + b) * c: a fused pointwise chain, its intermediate in LX when tiled.
    return std::vector<SweepProgram>{
        {graph(name, {input("a", rows, cols), input("b", rows, cols), input("c", rows, cols), output("z")},
               {op("add", {"a", "b"}, "y"), op("mul", {"y", "c"}, "z")})}};
  }
  if (name == "cat1") {
    // torch.cat([x, x], 1): x expanded over a new dim 1 of 2 ([R, 2, C], read as [R, 2C]).
    return std::vector<SweepProgram>{{graph(name, {input("x", rows, cols), output("y")},
                                            {op("unsqueeze", {"x"}, "x.copies", {{"dim", 1}}),
                                             op("expand", {"x.copies"}, "y", {{"shape", {rows, 2, cols}}})})}};
  }
  if (name == "cat0") {
    // torch.cat([x, x], 0) of one tensor repeated: Inductor's decomposition
    // expands it (x.unsqueeze(0).expand(2, R, C), then a clone), one identity
    // kernel writing [2, R, C] in its default layout; the host reads it as
    // [2R, C], the same bytes.
    return std::vector<SweepProgram>{{graph(name, {input("x", rows, cols), output("y")},
                                            {op("unsqueeze", {"x"}, "x.copies", {{"dim", 0}}),
                                             op("expand", {"x.copies"}, "y", {{"shape", {2, rows, cols}}})})}};
  }
  if (name == "write") {
    return std::vector<SweepProgram>{
        {graph(name, {input("b", 1, cols), input("c", rows, 1), output("y")}, {op("add", {"b", "c"}, "y")})}};
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<SweepProgram>> sweep_op_programs(const std::string& name, int64_t rows, int64_t cols,
                                                           int64_t tiles) {
  auto programs = untiled_programs(name, rows, cols);
  if (programs && tiles > 1) {
    // The harness's spyre_hint(num_tiles_per_dim={rows: tiles}) on every op.
    for (auto& program : *programs) {
      for (auto& op : program.graph.ops) op.coarse_tile = {0, tiles};
    }
  }
  return programs;
}

}  // namespace spyre::studies
