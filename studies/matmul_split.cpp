#include "studies/matmul_split.h"

#include "compiler/codegen/program_writer.h"
#include "compiler/compiler.h"
#include "compiler/ir/workloads.h"

namespace spyre::studies {

MatmulSplit compile_matmul(const MatmulShape& shape, const MatmulSplit* split, int64_t cores,
                           const DeviceLimits& device, const std::string& dir) {
  compiler::CompileOptions options;
  options.device = device;
  options.cores = static_cast<int>(split != nullptr ? split->cores() : cores);
  if (split != nullptr) {
    // The batchmatmul's iteration dims: x (batch), mb (rows), out (columns), in (reduction).
    std::string text;
    for (const auto& [dim, parts] :
         {std::pair<const char*, int64_t>{"x", split->b}, {"mb", split->m}, {"out", split->n}, {"in", split->k}}) {
      if (parts > 1) text += (text.empty() ? "" : ",") + std::string(dim) + ":" + std::to_string(parts);
    }
    if (!text.empty()) compiler::parse_split_override("c=" + text, options);
  }
  compiler::WorkloadParams params;
  params.dtype = compiler::DType::F16;
  params.shape = shape.batched() ? std::vector<int64_t>{shape.b, shape.m, shape.k, shape.n}
                                 : std::vector<int64_t>{shape.m, shape.k, shape.n};
  const compiler::Graph model = compiler::build_workload(shape.batched() ? "bmm" : "matmul", params);
  const compiler::Graph compiled = compiler::compile(model, options);
  compiler::write_program_dir(dir, compiler::program_files(compiled, compiler::resolve_options(options)));
  MatmulSplit used;
  for (const auto& op : compiled.ops) {
    if (op.type != "batchmatmul") continue;
    const auto parts = [&](const char* dim) {
      const auto it = op.splits.find(dim);
      return it == op.splits.end() ? int64_t{1} : it->second;
    };
    used = {parts("x"), parts("mb"), parts("out"), parts("in")};
  }
  return used;
}

}  // namespace spyre::studies
