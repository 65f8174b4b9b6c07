#pragma once
// Every op the project knows, one row each: the one place an op's facts live
// (docs/extending.md, "A new op"). A row names the op as torch-spyre spells it
// (SuperDSC opFuncName; the torch op that lowers to it alone), says what the
// SDSC reader checks (arity, constants), what the timing model needs (unit,
// SFU cost class), what it computes (element semantics used by both the
// simulator and the host reference; a reduction's combine rule), which inputs
// it needs (generated test data) and an oracle: values it must produce, taken
// from the mathematics rather than from its semantics. The reader's op table,
// the compiler's graph ops, decomposition, emit-io domains and the
// documentation's op list derive from these rows; tests/runtime/op_registry_test.cpp
// fails when a row lacks semantics, oracle or cost.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace spyre {

enum class OpKind {
  Elementwise,  // unary/binary/ternary pointwise, inputs broadcast by scale_
  Reduction,    // output listed among the inputs; reduces dims the output lacks
  Matmul,       // batchmatmul on the PT array
  Copy,         // identity / restickify: out[c] = in[c] across layouts
  Shuffle,      // LX-to-LX relayout across cores on the data ring
  TopK,         // topkvalue / topkindex: the k largest along a search dim the output replaces with k
};

// The unit an op runs on (computeOp_ exUnit: "pt" or "sfp").
enum class ExecUnit { PT, SFU };

// How expensive an op is on the SFU, in cycles per vector (arch config).
// Reduce: across sticks (elementwise, the *nonstick forms); ReduceStick:
// within each stick (across the vector's lanes).
enum class SfuCost { Simple, Divide, Transcendental, Reduce, ReduceStick };

// What a reduction accumulates and writes.
enum class ReduceOp { None, Sum, Max, Min, AbsMax, Mean, Exx2, Exx2ZeroMean, Prod };

// The inputs an op needs for defined results; generated test data obeys it.
enum class InputDomain {
  Any,
  PositiveFirst,  // input 0 > 0 (log, sqrt, rsqrt, reciprocal)
  NonzeroSecond,  // input 1 away from 0 (a divisor)
  NearOne,        // input 0 near 1, so a product of many stays in range (prod)
};

constexpr int kMaxOpInputs = 5;
constexpr int kMaxOpConstants = 4;

// A constant an op reads: from the SDSC's constantInfo_ on the device, from the
// torch op's attribute in a graph.
struct OpConstant {
  std::string sdsc_name;   // constantInfo_ key
  std::string torch_attr;  // graph attribute ("" when the graph cannot set it)
  float default_value;     // when absent (graph) or optional (SDSC)
  bool required;           // the SDSC reader refuses an op without it
};

// Constant values in the row's `constants` order.
using OpConstants = std::array<float, kMaxOpConstants>;

// One element: in[0..count) -> the result (float math; the caller rounds it to
// the output's format). `rows`: the same over n elements, in[j][i] being input
// j of element i; one call per row keeps the loop free of dispatch.
using ElementFn = float (*)(const float* in, int count, const OpConstants& c);
using ElementRowsFn = void (*)(const float* const* in, int count, float* out, size_t n, const OpConstants& c);
struct ElementSemantics {
  ElementFn one = nullptr;
  ElementRowsFn rows = nullptr;
  explicit operator bool() const { return one && rows; }
};

// A value the op must produce. Elementwise: inputs -> expected. Reduction:
// the reduced values -> lane 0 (and lane 1 for exx2), with scale the op's
// scaling constant.
struct OracleCase {
  std::vector<float> inputs;
  std::vector<double> expected;
  OpConstants constants{};
  float scale = 1;
};

struct OpInfo {
  std::string name;        // opFuncName as written in SuperDSC
  std::string torch_name;  // the graph (torch) op that lowers to this op alone; "" when none
  OpKind kind = OpKind::Elementwise;
  int min_inputs = 1;  // computeOp_ inputLabeledDs count (reductions include the output)
  int max_inputs = 1;
  int outputs = 1;  // computeOp_ outputLabeledDs count
  ExecUnit unit = ExecUnit::SFU;
  SfuCost cost = SfuCost::Simple;
  std::vector<OpConstant> constants;
  InputDomain domain = InputDomain::Any;
  ElementSemantics semantics;        // Elementwise, Copy, Shuffle
  ReduceOp reduce = ReduceOp::None;  // Reduction
  std::string nonstick_form;         // a stick reduction's form over a non-stick dim ("sum" -> "sumnonstick")
  // The backend reduces only a non-stick dim with it: there is no form within
  // sticks (torch-spyre's REDUCTIONS_NON_STICK_DIM_ONLY: prod), so the
  // compiler lays its input out sticking along another dim.
  bool nonstick_only = false;
  bool moment_pair_input = false;  // reads exx2's stick: lane 0 E[x], lane 1 E[x^2] as two inputs
  bool topk_indices = false;       // TopK: writes the positions of the k largest (topkindex), not their values
  bool windowed = false;           // reads its activation through N_.paddingSizes_ windows (conv, pool)
  std::vector<OracleCase> oracle;
};

// nullptr when the name is unknown (opFuncNames match case-insensitively).
const OpInfo* find_op(const std::string& op_func_name);
// The row whose torch_name is `torch_name`; nullptr when none.
const OpInfo* find_torch_op(const std::string& torch_name);
// Every row, built-in first; pointers stay valid for the program's life.
std::vector<const OpInfo*> all_ops();
// The rows built into the project, without those registered at run time.
std::vector<const OpInfo*> builtin_ops();
std::vector<std::string> known_op_names();
const char* op_kind_name(OpKind kind);
const char* exec_unit_name(ExecUnit unit);  // "pt" / "sfp", as computeOp_ exUnit

// Adds a row (a test's toy op, a plug-in's op). Fails with one line if the
// name or torch name is taken or the row is incomplete (see registry_gaps).
const OpInfo& register_op(OpInfo op);
// What a row lacks for the simulator, the compiler and the tests (semantics,
// reduce rule, oracle, constants for its torch attributes); empty when complete.
std::vector<std::string> registry_gaps(const OpInfo& op);

// The constants of `op`, each from `lookup(name)` or its default.
template <typename Lookup>
OpConstants op_constants(const OpInfo& op, Lookup&& lookup) {
  OpConstants c{};
  for (size_t i = 0; i < op.constants.size(); ++i) c[i] = lookup(op.constants[i]);
  return c;
}

// The positions of the `count` largest of values[0..n), largest first; equal
// values keep their order (the lower position first) and NaN ranks above
// every number, as torch.topk on the CPU orders them. TopK ops' one rule.
std::vector<int64_t> topk_positions(const float* values, size_t n, size_t count);

// A reduction's running value: a is the sum/max/min/absmax/product, b the sum of squares.
struct ReduceAccumulator {
  float a = 0;
  float b = 0;
  bool empty = true;
};
void reduce_accumulate(ReduceOp r, ReduceAccumulator& acc, float x);
void reduce_combine(ReduceOp r, ReduceAccumulator& into, const ReduceAccumulator& from);
// Lane 0 (and lane 1 for exx2) of the result; scale: mean's scaling_factor, exx2's exx2scale.
std::array<float, 2> reduce_finish(ReduceOp r, const ReduceAccumulator& acc, float scale);
// Lanes a reduction writes: 2 for exx2 (E[x], E[x^2]), else 1.
int reduce_lanes(ReduceOp r);

}  // namespace spyre
