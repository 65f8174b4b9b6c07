#pragma once
// The compiler's graph: tensors and ops in topological order. The same IR
// holds the model graph as the user wrote it (torch-level ops) and, after
// decomposition, the device graph (SuperDSC opFuncNames plus views), with
// every decision the passes make recorded on it.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include "compiler/ir/layout.h"
#include "runtime/data_format.h"

#include "runtime/json_node.h"

namespace spyre::compiler {

// I32: integer tensors, int32 and int64 alike (torch-spyre narrows int64 to
// the device's IEEE_INT32 and computes on integers in fp32).
enum class DType { F16, BF16, F32, I32, F8 };
// float16/fp16/half, bfloat16/bf16, float32/fp32/float, int32/int64/int/long,
// float8_e4m3fn/fp8 (SEN143_FP8: torch-spyre's FP8, converted from and to fp16)
bool parse_dtype(const std::string& text, DType& out);
const char* dtype_name(DType dtype);  // "float16", ...
// The device computes fp16 and bf16 tensors in DLFloat16 (torch-spyre: SEN169_FP16).
DataFormat device_format(DType dtype);
int64_t stick_elems(DType dtype);  // elements per 128-byte stick on the device

enum class Role { Input, Weight, Output, Intermediate, Constant };
bool parse_role(const std::string& text, Role& out);
const char* role_name(Role role);

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::F16;
  bool dtype_given = false;  // the graph file names it (else ops decide it)
  Role role = Role::Intermediate;
  float value = 0;  // Role::Constant: every element

  // Decided by the passes.
  Layout layout;                    // device layout
  int storage = -1;                 // a view's tensor that owns the bytes (-1: owns its own)
  int64_t view_offset = 0;          // a view's byte offset into its storage
  std::vector<int64_t> host_shape;  // the shape the host sees when it differs (reductions without keepdim)
  int buffer = -1;                  // storage owners: the HBM buffer holding it (Graph::buffers)
  int64_t buffer_offset = 0;        // storage owners: byte offset in that buffer
  bool in_lx = false;               // LX placement (LX planning)
  int64_t lx_address = 0;
  int clone_of = -1;  // an LX clone of a graph input (clone_input_nodes): that input
  // Tensor parallelism (Graph::cards > 1): each card holds part (its index)
  // of the model's tensor along this dim; -1: every card holds it whole.
  int shard_dim = -1;
  // torch-spyre's named tensor dims (name_tensor_dims): a name per dim, or
  // empty. Ops' work_div hints split the iteration dims of these names.
  std::vector<std::string> dim_names;
  // Coarse tiling (coarse_tiling.cpp): a graph input or output of a tiled op
  // whose HBM buffer holds `tiles` tiles of `shape` along `tile_dim`; loop
  // iteration i reads or writes tile i. 0: not tiled.
  int64_t tiles = 0;
  int tile_dim = -1;
  // Coarse tiling of a reduced dim: the accumulator a fill initializes and
  // the loop's combine reads; it is the bytes of this (output) tensor.
  int accumulates_into = -1;

  // The whole tensor a tiled tensor's buffer holds (`shape` when not tiled).
  Shape full_shape() const;

  int64_t elements() const;
  bool is_host_visible() const { return role != Role::Intermediate; }
  const std::vector<int64_t>& visible_shape() const { return host_shape.empty() ? shape : host_shape; }
};

struct Op {
  std::string type;  // torch-level op name, or after decomposition an opFuncName / view op
  std::vector<int> inputs, outputs;
  Json attrs = Json::object();
  std::string origin;  // the model op it came from, for messages: "softmax 'y'"

  // Work division (device ops), by iteration dim label.
  std::map<std::string, int64_t> span_splits;  // the minimum the span limit forces
  std::map<std::string, int64_t> splits;       // final slices per dim (absent: 1)
  int cores = 1;
  std::string work_division;  // how the splits were chosen, when a search chose them (--work-division model)
  // The search's splits (b_m_n_k) and times, fastest first; `lower_bound`: not simulated, at least this.
  struct SplitCandidate {
    std::string split;
    double kernel_us = 0;
    bool lower_bound = false;
    double bound_us = 0;  // the cost model's lower bound (0: none)
  };
  std::vector<SplitCandidate> split_candidates;
  // LX chain scoring (split_lx_chain.cpp): the split that replaced the
  // op's own fastest and why, or why it was kept over the split with the
  // least HBM traffic; empty when that is the op's own fastest.
  std::string lx_chain;
  bool inserted = false;  // added by a pass (restickify, view copy)
  // torch-spyre's spyre_hint(work_div={NAME: N, ...}): named dims and their
  // splits in priority order; the device ops a model op decomposes into inherit it.
  std::vector<std::pair<std::string, int64_t>> work_div;
  int bundle = 0;
  // Coarse tiling. The model op's hint (torch-spyre's spyre_hint
  // num_tiles_per_dim): run it as `tiles` loop iterations over `dim` of its
  // output. After the coarse_tiling pass, loop_trips is the trip count of
  // the scf.for loop the op runs in (0: not in a loop).
  struct CoarseTile {
    int dim = 0;
    int64_t tiles = 0;
  } coarse_tile;
  int64_t loop_trips = 0;
  int loop_group = -1;  // the ops of one loop share it (-1: not in a loop)
};

// A region of device memory the runtime allocates: one per host-visible
// tensor (a kernel argument), plus the pool holding intermediates.
struct Buffer {
  std::string name;
  int64_t bytes = 0;
  bool pool = false;
};

// One bundle: the device ops it launches, in order, and the buffer bound to
// each of its argument segments (segment i holds arguments[i]).
struct BundlePlan {
  std::vector<int> ops;
  std::vector<int> arguments;
};

// What LX planning decided, for reports: the solver's figures and the HBM
// bytes the program will move (every device op's HBM operands, per core).
struct LxSummary {
  bool enabled = false;
  int stage = 0;
  std::string solver;
  int64_t capacity = 0;  // usable bytes per core
  int candidates = 0;    // buffers offered to the solver
  int placed = 0;
  int64_t peak_bytes = 0;  // highest LX byte used + 1
  double solve_ms = 0;
  std::string note;
  std::vector<std::string> excluded;  // "tensor: reason" for intermediates kept in HBM
};

// An operand that layout propagation found needs another layout than its
// producer gave; insert_restickify places the copy.
struct LayoutCopy {
  int op = -1;     // the op (index into graph.ops) whose input needs the copy
  int input = -1;  // which input
  Layout layout;   // the layout it needs
};

struct Graph {
  std::string name;
  // The graph is one card's part of a tensor-parallel model run on this many
  // cards (each card the same graph on its part of the weights; all_reduce
  // ops sum partial results over the cards).
  int cards = 1;
  std::string source;  // the graph file or "workload NAME", for messages
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  std::vector<Buffer> buffers;            // memory planning
  std::vector<BundlePlan> bundles;        // memory planning
  LxSummary lx;                           // LX planning
  std::vector<LayoutCopy> layout_copies;  // from propagate_layouts to insert_restickify

  int find(const std::string& name) const;  // -1 when absent
  int add_tensor(Tensor t);
  // A fresh tensor name derived from `base` ("y.max", "y.max.1", ...).
  std::string unique_name(const std::string& base) const;
  // "softmax 'y'": the op as the user knows it.
  std::string describe(const Op& op) const;
  int storage_of(int tensor) const {
    return tensors[static_cast<size_t>(tensor)].storage < 0 ? tensor : tensors[static_cast<size_t>(tensor)].storage;
  }
};

// Reads a model graph (docs/graph-format.md). Every problem — malformed JSON,
// unknown op or attribute, wrong shapes, dangling or cyclic references — is a
// SpyreError naming the file and the op.
Graph read_graph(const std::string& path);
Graph parse_graph(const Json& document, const std::string& file);

// Checks a graph built in code (built-in workloads) the same way.
void validate_graph(Graph& graph, const std::string& where);

}  // namespace spyre::compiler
