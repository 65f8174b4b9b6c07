#pragma once
// The SuperDSC opFuncNames this project understands (the spec's OpFuncs table,
// interface-specs 0248 "Supported OpFuncs"), with what the reader validates
// (arity) and what the simulator needs (kind, SFU cost class, constants).

#include <string>
#include <vector>

namespace spyre {

enum class OpKind {
  Elementwise,  // unary/binary/ternary pointwise, inputs broadcast by scale_
  Reduction,    // output listed among the inputs; reduces dims the output lacks
  Matmul,       // batchmatmul on the PT array
  Copy,         // identity / restickify: out[c] = in[c] across layouts
  Shuffle,      // LX-to-LX relayout across cores on the data ring
};

// How expensive an op is on the SFU, in cycles per vector (arch config).
// Reduce: across sticks (elementwise, the *nonstick forms); ReduceStick:
// within each stick (across the vector's lanes).
enum class SfuCost { Simple, Divide, Transcendental, Reduce, ReduceStick };

struct OpInfo {
  std::string name;  // opFuncName as written in SuperDSC
  OpKind kind;
  int min_inputs;  // computeOp_ inputLabeledDs count (reductions include the output)
  int max_inputs;
  int outputs;  // computeOp_ outputLabeledDs count
  SfuCost cost;
  std::vector<std::string> constants;  // constantInfo_ names the op reads
};

// nullptr when the name is unknown.
const OpInfo* find_op(const std::string& op_func_name);
std::vector<std::string> known_op_names();
const char* op_kind_name(OpKind kind);

}  // namespace spyre
