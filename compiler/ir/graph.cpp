#include "compiler/ir/graph.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "compiler/ir/model_ops.h"
#include "runtime/enum_names.h"
#include "runtime/error.h"
#include "runtime/text.h"

namespace spyre::compiler {

namespace {

constexpr EnumName<DType> kDTypes[] = {{DType::F16, "float16"},      {DType::F16, "fp16"},  {DType::F16, "half"},
                                       {DType::BF16, "bfloat16"},    {DType::BF16, "bf16"}, {DType::F32, "float32"},
                                       {DType::F32, "fp32"},         {DType::F32, "float"}, {DType::I32, "int32"},
                                       {DType::I32, "int64"},        {DType::I32, "int"},   {DType::I32, "long"},
                                       {DType::F8, "float8_e4m3fn"}, {DType::F8, "fp8"}};
constexpr EnumName<Role> kRoles[] = {{Role::Input, "input"},
                                     {Role::Weight, "weight"},
                                     {Role::Output, "output"},
                                     {Role::Intermediate, "intermediate"},
                                     {Role::Constant, "constant"}};

}  // namespace

bool parse_dtype(const std::string& text, DType& out) { return parse_enum(kDTypes, text, out); }
const char* dtype_name(DType dtype) { return enum_name(kDTypes, dtype); }

DataFormat device_format(DType dtype) {
  if (dtype == DType::I32) return DataFormat::Int32;
  if (dtype == DType::F8) return DataFormat::Fp8E4m3;
  return dtype == DType::F32 ? DataFormat::Fp32 : DataFormat::Dl16;
}

int64_t stick_elems(DType dtype) { return kStickBytes / word_bytes(device_format(dtype)); }

bool parse_role(const std::string& text, Role& out) { return parse_enum(kRoles, text, out); }
const char* role_name(Role role) { return enum_name(kRoles, role); }

int64_t Tensor::elements() const {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

Shape Tensor::full_shape() const {
  Shape full = shape;
  if (tiles > 1) full[static_cast<size_t>(tile_dim)] *= tiles;
  return full;
}

int Graph::find(const std::string& name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Graph::add_tensor(Tensor t) {
  tensors.push_back(std::move(t));
  return static_cast<int>(tensors.size()) - 1;
}

std::string Graph::unique_name(const std::string& base) const {
  if (find(base) < 0) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "." + std::to_string(i);
    if (find(candidate) < 0) return candidate;
  }
}

std::string Graph::describe(const Op& op) const {
  if (!op.origin.empty()) return op.origin;
  const std::string out = op.outputs.empty() ? "" : " '" + tensors[static_cast<size_t>(op.outputs[0])].name + "'";
  return op.type + out;
}

namespace {

// Tensor names are unique and sizes positive.
void check_tensors(const Graph& g, const std::string& where) {
  std::set<std::string> names;
  for (const auto& t : g.tensors) {
    if (t.name.empty()) fail(where, "", "a tensor has no name");
    if (!names.insert(t.name).second) fail(where, "tensor '" + t.name + "'", "declared twice");
    for (int64_t s : t.shape) {
      if (s < 1) fail(where, "tensor '" + t.name + "'", "dimension sizes must be positive");
    }
  }
}

// The op producing each tensor (-1: none); every read tensor is produced or given.
std::vector<int> find_producers(const Graph& g, const std::string& where) {
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Op& op = g.ops[o];
    if (op.outputs.size() != 1) fail(where, g.describe(op), "an op produces exactly one tensor");
    for (int t : op.outputs) {
      const Tensor& tensor = g.tensors[static_cast<size_t>(t)];
      if (tensor.role == Role::Input || tensor.role == Role::Weight || tensor.role == Role::Constant) {
        fail(where, g.describe(op), "writes '" + tensor.name + "', which is a graph " + role_name(tensor.role));
      }
      if (producer[static_cast<size_t>(t)] >= 0)
        fail(where, g.describe(op), "'" + tensor.name + "' is produced by two ops");
      producer[static_cast<size_t>(t)] = static_cast<int>(o);
    }
  }
  for (const auto& op : g.ops) {
    for (int t : op.inputs) {
      const Tensor& tensor = g.tensors[static_cast<size_t>(t)];
      const bool given = tensor.role == Role::Input || tensor.role == Role::Weight || tensor.role == Role::Constant;
      if (!given && producer[static_cast<size_t>(t)] < 0) {
        fail(where, g.describe(op),
             "reads '" + tensor.name + "', which no op produces and which is not a graph input, weight or constant");
      }
    }
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].role == Role::Output && producer[t] < 0)
      fail(where, "tensor '" + g.tensors[t].name + "'", "is a graph output but no op produces it");
  }
  return producer;
}

// Orders the ops so each comes after the producers of its inputs (Kahn).
void sort_topologically(Graph& g, const std::string& where, const std::vector<int>& producer) {
  std::vector<int> order, pending(g.ops.size(), 0);
  std::vector<std::vector<int>> users(g.ops.size());
  for (size_t o = 0; o < g.ops.size(); ++o) {
    for (int t : g.ops[o].inputs) {
      const int p = producer[static_cast<size_t>(t)];
      if (p >= 0) {
        users[static_cast<size_t>(p)].push_back(static_cast<int>(o));
        ++pending[o];
      }
    }
  }
  std::vector<int> ready;
  for (size_t o = 0; o < g.ops.size(); ++o) {
    if (pending[o] == 0) ready.push_back(static_cast<int>(o));
  }
  while (!ready.empty()) {
    const int o = ready.front();
    ready.erase(ready.begin());
    order.push_back(o);
    for (int u : users[static_cast<size_t>(o)]) {
      if (--pending[static_cast<size_t>(u)] == 0) ready.push_back(u);
    }
  }
  if (order.size() != g.ops.size()) {
    for (size_t o = 0; o < g.ops.size(); ++o) {
      if (pending[o] > 0) fail(where, g.describe(g.ops[o]), "is part of a cycle: it depends on its own output");
    }
  }
  std::vector<Op> sorted;
  for (int o : order) sorted.push_back(g.ops[static_cast<size_t>(o)]);
  g.ops = std::move(sorted);
}

// What is wrong with an attribute's JSON type, or "": the passes read them
// as these types, so garbage must stop here with the op named.
std::string attr_type_error(const std::string& key, const Json& value) {
  auto is_int_list = [](const Json& v) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const Json& x) { return x.is_number_integer(); });
  };
  if (key == "dim" || key == "dims" || key == "shape")
    return value.is_number_integer() || is_int_list(value) ? "" : "must be an integer or a list of integers";
  if (key == "size" || key == "repeats" || key == "pad") return is_int_list(value) ? "" : "must be a list of integers";
  if (key == "split_size")
    return value.is_number_integer() || is_int_list(value) ? "" : "must be an integer or a list of integers";
  if (key == "stride" || key == "padding" || key == "dilation" || key == "kernel_size")  // conv2d, avg_pool2d
    return value.is_number_integer() || (is_int_list(value) && value.size() <= 2)
               ? ""
               : "must be an integer or a list of two";
  if (key == "groups") return value.is_number_integer() ? "" : "must be an integer";
  if (key == "divisor_override") return value.is_number_integer() || value.is_null() ? "" : "must be an integer";
  if (key == "chunks" || key == "piece" || key == "pieces" || key == "k")
    return value.is_number_integer() ? "" : "must be an integer";
  if (key == "ord" || key == "p") return value.is_number() || value.is_string() ? "" : "must be a number or a string";
  if (key == "dim0" || key == "dim1" || key == "start" || key == "end" || key == "start_dim" || key == "end_dim" ||
      key == "length" || key == "index")
    return value.is_number_integer() ? "" : "must be an integer";
  if (key == "keepdim" || key == "training" || key == "is_causal" || key == "enable_gqa" || key == "largest" ||
      key == "sorted" || key == "ceil_mode" || key == "count_include_pad")
    return value.is_boolean() ? "" : "must be true or false";
  if (key == "dtype" || key == "out_dtype") return value.is_string() ? "" : "must be a dtype name";
  return value.is_number() ? "" : "must be a number";  // eps, scale, scalar, min, max, beta, threshold
}

// Each op's arity, attributes and output shape, in topological order; the
// output takes the inferred shape and the first input's dtype (a cast's: its
// target) when undeclared.
void infer_shapes(Graph& g, const std::string& where) {
  for (auto& op : g.ops) {
    const ModelOp* m = find_model_op(op.type);
    const std::string name = g.describe(op);
    if (!m) fail(where, name, "unsupported op '" + op.type + "'");
    const int n = static_cast<int>(op.inputs.size());
    if (n < m->min_inputs || n > m->max_inputs) {
      fail(where, name,
           op.type + " takes " + std::to_string(m->min_inputs) +
               (m->max_inputs != m->min_inputs ? "-" + std::to_string(m->max_inputs) : "") + " inputs, got " +
               std::to_string(n));
    }
    if (!op.attrs.is_object()) fail(where, name, "attrs must be an object");
    for (auto it = op.attrs.begin(); it != op.attrs.end(); ++it) {
      if (std::find(m->attrs.begin(), m->attrs.end(), it.key()) == m->attrs.end())
        fail(where, name, op.type + " does not take attribute '" + it.key() + "'");
      const std::string why = attr_type_error(it.key(), it.value());
      if (!why.empty()) fail(where, name, "attribute '" + it.key() + "' " + why);
    }
    if (m->kind == ModelOpKind::Binary && n == 1 && !op.attrs.contains("scalar"))
      fail(where, name, op.type + " needs a second input or attribute 'scalar'");
    if (m->kind == ModelOpKind::Binary && n == 2 && op.attrs.contains("scalar"))
      fail(where, name, op.type + " takes a second input or 'scalar', not both");
    std::vector<Shape> shapes;
    for (int t : op.inputs) {
      const Tensor& in = g.tensors[static_cast<size_t>(t)];
      if (in.shape.empty()) fail(where, name, "input '" + in.name + "' has no shape");
      shapes.push_back(in.shape);
    }
    const Shape out_shape = infer_shape(*m, shapes, op.attrs, where.empty() ? name : where + ": " + name);
    Tensor& out = g.tensors[static_cast<size_t>(op.outputs[0])];
    std::vector<DType> dtypes;
    for (int t : op.inputs) dtypes.push_back(g.tensors[static_cast<size_t>(t)].dtype);
    // A fill with no input and no dtype attribute makes what its output declares.
    const bool declared = m->kind == ModelOpKind::Fill && dtypes.empty() && !op.attrs.contains("dtype");
    const DType out_dtype =
        declared ? g.tensors[static_cast<size_t>(op.outputs[0])].dtype : output_dtype(*m, op.attrs, dtypes, name);
    if (out.shape.empty()) {
      out.shape = out_shape;
      out.dtype = out_dtype;
    } else if ((m->kind == ModelOpKind::Cast || (m->kind == ModelOpKind::Fill && op.attrs.contains("dtype"))) &&
               out.dtype != out_dtype) {
      fail(where, name,
           "declares '" + out.name + "' as " + dtype_name(out.dtype) + " but the op makes " + dtype_name(out_dtype));
    } else if (out.shape != out_shape) {
      fail(where, name,
           "declares '" + out.name + "' as (" + join(out.shape, ", ") + ") but the op produces (" +
               join(out_shape, ", ") + ")");
    }
  }
  for (const auto& t : g.tensors) {
    if (t.shape.empty()) fail(where, "tensor '" + t.name + "'", "has no shape and no op produces it");
  }
}

}  // namespace

void validate_graph(Graph& g, const std::string& where) {
  check_tensors(g, where);
  const std::vector<int> producer = find_producers(g, where);
  sort_topologically(g, where, producer);
  infer_shapes(g, where);
  for (const auto& op : g.ops) {
    if (op.type == "all_reduce" && g.cards < 2)
      fail(where, g.describe(op),
           "all_reduce sums over the cards of a tensor-parallel model; this graph runs on one card "
           "(compile --cards N builds the parts)");
  }
}

namespace {

std::vector<int> tensor_refs(Graph& g, const JsonNode& list, bool outputs) {
  if (!list.is_array()) list.error("expected an array of tensor names");
  std::vector<int> refs;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string name = list.element(i).as_string();
    int t = g.find(name);
    if (t < 0) {
      // Op outputs may be left undeclared; inputs must exist.
      if (!outputs) list.element(i).error("unknown tensor '" + name + "'");
      Tensor tensor;
      tensor.name = name;
      t = g.add_tensor(tensor);
    }
    refs.push_back(t);
  }
  return refs;
}

}  // namespace

Graph parse_graph(const Json& document, const std::string& file) {
  JsonNode root(document, file, "$");
  if (!root.is_object()) root.error("expected a JSON object");
  Graph g;
  g.name = root.find("name") ? root.at("name").as_string() : "graph";
  JsonNode tensors = root.at("tensors");
  if (!tensors.is_array()) tensors.error("expected an array");
  for (size_t i = 0; i < tensors.size(); ++i) {
    JsonNode node = tensors.element(i);
    Tensor t;
    t.name = node.at("name").as_string();
    if (auto shape = node.find("shape")) t.shape = shape->as_int_list();
    if (auto dtype = node.find("dtype")) {
      if (!parse_dtype(dtype->as_string(), t.dtype))
        dtype->error("unsupported dtype '" + dtype->as_string() +
                     "' (the device has float16, bfloat16, float32, int32; int64 is kept as int32)");
      t.dtype_given = true;
    }
    if (auto role = node.find("role")) {
      if (!parse_role(role->as_string(), t.role))
        role->error("unknown role '" + role->as_string() + "' (input, weight, output, intermediate, constant)");
    }
    if (t.role != Role::Intermediate && t.role != Role::Output && t.shape.empty())
      node.error("a graph " + std::string(role_name(t.role)) + " needs a shape");
    if (t.role == Role::Constant) t.value = static_cast<float>(node.at("value").as_double());
    if (auto names = node.find("dims")) {
      if (!names->is_array()) names->error("expected a list of dim names, one per dim");
      for (size_t d = 0; d < names->size(); ++d) t.dim_names.push_back(names->element(d).as_string());
      if (!t.shape.empty() && t.dim_names.size() != t.shape.size())
        names->error(std::to_string(t.dim_names.size()) + " dim names for a tensor of " +
                     std::to_string(t.shape.size()) + " dims");
    }
    if (g.find(t.name) >= 0) node.at("name").error("tensor '" + t.name + "' declared twice");
    g.add_tensor(t);
  }
  JsonNode ops = root.at("ops");
  if (!ops.is_array()) ops.error("expected an array");
  for (size_t i = 0; i < ops.size(); ++i) {
    JsonNode node = ops.element(i);
    Op op;
    op.type = node.at("op").as_string();
    op.inputs = tensor_refs(g, node.at("inputs"), false);
    op.outputs = tensor_refs(g, node.at("outputs"), true);
    if (auto attrs = node.find("attrs")) op.attrs = attrs->raw();
    if (auto hint = node.find("work_div")) {
      if (!hint->is_object())
        hint->error("expected an object {\"DIM NAME\": splits, ...} (torch-spyre's work_div hint)");
      for (const auto& [name, value] : hint->members()) op.work_div.emplace_back(name, value.as_int());
    }
    if (auto tile = node.find("coarse_tile")) {
      if (!tile->is_object()) tile->error("expected an object {\"dim\": D, \"tiles\": K}");
      op.coarse_tile.dim = static_cast<int>(tile->at("dim").as_int());
      op.coarse_tile.tiles = tile->at("tiles").as_int();
      if (op.coarse_tile.tiles < 1) tile->at("tiles").error("a tile count must be at least 1");
    }
    const std::string out = op.outputs.empty() ? "" : " '" + g.tensors[static_cast<size_t>(op.outputs[0])].name + "'";
    op.origin = "$.ops[" + std::to_string(i) + "] " + op.type + out;
    if (returns_pieces(op.type) && op.outputs.size() > 1) {
      // A tuple of views: one op per output, each its piece.
      if (op.attrs.contains("piece")) node.at("attrs").error("'piece' names one output; this op has several");
      for (size_t k = 0; k < op.outputs.size(); ++k) {
        Op piece = op;
        piece.outputs = {op.outputs[k]};
        piece.attrs["piece"] = k;
        piece.attrs["pieces"] = op.outputs.size();
        piece.origin = "$.ops[" + std::to_string(i) + "] " + op.type + " '" +
                       g.tensors[static_cast<size_t>(op.outputs[k])].name + "'";
        g.ops.push_back(piece);
      }
      continue;
    }
    if (returns_pieces(op.type) && !op.attrs.contains("piece")) op.attrs["piece"] = 0;
    if (op.type == "aminmax") {
      // torch.aminmax's (min, max): an amin and an amax of the same dims.
      if (op.outputs.size() != 2) node.at("outputs").error("aminmax has two outputs, its min and its max");
      for (size_t k = 0; k < 2; ++k) {
        Op half = op;
        half.type = k == 0 ? "amin" : "amax";
        half.outputs = {op.outputs[k]};
        half.origin =
            "$.ops[" + std::to_string(i) + "] aminmax '" + g.tensors[static_cast<size_t>(op.outputs[k])].name + "'";
        g.ops.push_back(half);
      }
      continue;
    }
    if (op.type == "topk") {
      // torch.topk's (values, indices): one op each; a graph may keep either alone.
      if (op.attrs.contains("piece")) node.at("attrs").error("'piece' is the compiler's; list topk's outputs instead");
      if (op.outputs.size() != 2) node.at("outputs").error("topk has two outputs, its values and its indices");
      for (size_t k = 0; k < 2; ++k) {
        Op part = op;
        part.outputs = {op.outputs[k]};
        part.attrs["piece"] = k;
        part.origin =
            "$.ops[" + std::to_string(i) + "] topk '" + g.tensors[static_cast<size_t>(op.outputs[k])].name + "'";
        g.ops.push_back(part);
      }
      continue;
    }
    g.ops.push_back(op);
  }
  validate_graph(g, file);
  g.source = file;
  return g;
}

Graph read_graph(const std::string& path) { return parse_graph(read_json_file(path), path); }

}  // namespace spyre::compiler
