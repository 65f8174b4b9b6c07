// Span reduction (torch-spyre's span_reduction pass, seed 001): a core can
// address 256 MiB of device memory, so every tensor's per-core span — from
// the first to the last stick a core touches — must fit. For a tensor that
// does not, walk its device dims outermost first and try every valid slice
// count of the dim's iteration variable (a divisor of its stick count for a
// stick dim), keeping earlier choices as lower bounds:
//   tier 1: among counts that fit the limit within the core budget, the one
//           with the largest span (fewest cores);
//   tier 2: if none fits, the one with the smallest span, and go on inward.
// (A count that fits only beyond the core budget ends the search with an
// error saying how many cores the tensor needs.)
// At most one reduction variable may be split this way.

#include <string>

#include "compiler/ir/iteration_space.h"
#include "compiler/passes/passes.h"
#include "runtime/error.h"
#include "runtime/tensor_layout.h"

namespace spyre::compiler {

namespace {

std::string mib(int64_t bytes) { return std::to_string(bytes / (1 << 20)) + " MiB"; }

}  // namespace

void span_reduction(Graph& g, const CompileOptions& options) {
  for (Op& op : g.ops) {
    if (!device_op_info(op)) continue;
    const IterationSpace space = iteration_space(g, op);
    const std::vector<int64_t> units = split_units(g, space);
    std::vector<int64_t> slices(space.dims.size(), 1);
    for (const Operand& operand : space.operands) {
      if (per_core_span(g, space, operand, slices) <= options.device.span_limit_bytes) continue;
      const Tensor& t = g.tensors[static_cast<size_t>(operand.tensor)];
      for (auto d = t.layout.order.rbegin(); d != t.layout.order.rend(); ++d) {
        if (operand_scale(g, space, operand, *d) != DimScaleKind::Normal) continue;
        const size_t i = static_cast<size_t>(operand.iter_of[static_cast<size_t>(*d)]);
        int64_t within = 0, fits = 0, fits_span = -1, least = 0, least_span = -1;
        for (int64_t c = slices[i]; c <= units[i]; ++c) {
          if (units[i] % c != 0) continue;
          std::vector<int64_t> trial = slices;
          trial[i] = c;
          const int64_t span = per_core_span(g, space, operand, trial);
          if (span <= options.device.span_limit_bytes && span > fits_span) {
            fits = c;
            fits_span = span;
            if (product(trial) <= options.cores) {
              within = c;
            }
          }
          if (least_span < 0 || span < least_span) {
            least = c;
            least_span = span;
          }
        }
        // A count that fits beyond the core budget is kept too, so the error
        // below can say how many cores the tensor needs.
        slices[i] = within > 0 ? within : fits > 0 ? fits : least;
        if (within > 0 || fits > 0) break;
      }
      const int64_t span = per_core_span(g, space, operand, slices);
      if (span > options.device.span_limit_bytes) {
        fail("", g.describe(op),
             "tensor '" + t.name + "' spans " + mib(span) +
                 " per core even split into whole sticks as far as its shape allows; a core addresses at most " +
                 mib(options.device.span_limit_bytes));
      }
    }
    int reduction_vars = 0;
    op.span_splits.clear();
    for (size_t i = 0; i < slices.size(); ++i) {
      if (slices[i] == 1) continue;
      op.span_splits[space.dims[i].label] = slices[i];
      if (space.dims[i].reduction) ++reduction_vars;
    }
    if (reduction_vars > 1)
      fail("", g.describe(op),
           "the 256 MiB span limit would need splits of " + std::to_string(reduction_vars) +
               " reduction dims; at most one can be split");
    if (product(slices) > options.cores) {
      fail("", g.describe(op),
           "keeping every tensor within the " + mib(options.device.span_limit_bytes) + " per-core span needs " +
               std::to_string(product(slices)) + " cores, more than the " + std::to_string(options.cores) +
               " available (--cores)");
    }
  }
}

}  // namespace spyre::compiler
