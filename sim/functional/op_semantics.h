#pragma once
// An SDSC compute op bound to its registry row (runtime/op_registry.h) and its
// constants (constantInfo_). Operands arrive already in the device format
// (DLFloat16 or fp32) and are widened to float; the caller rounds each result
// to the output tensor's format when storing it, as the hardware rounds its
// results.

#include "runtime/op_registry.h"
#include "runtime/sdsc.h"

namespace spyre::sim {

struct ElementOpParams {
  const OpInfo* op = nullptr;
  OpConstants constants{};
};

// Resolves the op's row and its constants; fails naming the op when the row has
// no element semantics.
ElementOpParams element_op_params(const Sdsc& sdsc, const ComputeOp& op);

// inputs: as many values as the op takes (layernormnorm: 3 to 5).
inline float apply_element_op(const ElementOpParams& p, const float* inputs, int count) {
  return p.op->semantics.one(inputs, count, p.constants);
}
// The same over `n` elements: inputs[j][i] is input j of element i.
inline void apply_element_op(const ElementOpParams& p, const float* const* inputs, int count, float* out, size_t n) {
  p.op->semantics.rows(inputs, count, out, n, p.constants);
}

// The reduction rule of a reduction op; fails naming the op when it has none.
ReduceOp reduce_op_of(const Sdsc& sdsc, const ComputeOp& op);

}  // namespace spyre::sim
