#include "sim/functional/op_semantics.h"

#include "runtime/error.h"

namespace spyre::sim {

ElementOpParams element_op_params(const Sdsc& sdsc, const ComputeOp& op) {
  if (!op.info->semantics) fail(sdsc.file, op.path, op.info->name + " has no element semantics in the op registry");
  ElementOpParams p;
  p.op = op.info;
  p.constants = op_constants(*op.info, [&](const OpConstant& c) {
    const SdscConstant* given = sdsc.find_constant(c.sdsc_name);
    return given ? given->value : c.default_value;
  });
  return p;
}

ReduceOp reduce_op_of(const Sdsc& sdsc, const ComputeOp& op) {
  if (op.info->reduce == ReduceOp::None)
    fail(sdsc.file, op.path, op.info->name + " has no reduce rule in the op registry");
  return op.info->reduce;
}

}  // namespace spyre::sim
