#pragma once
// A plain fp32 evaluator of model graphs (the ops of model_ops.h with NumPy
// semantics). It knows nothing of the device: it is the independent reference
// that `compile --emit-io` writes and `run --expect` checks against.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace spyre::compiler {

using HostValues = std::map<std::string, std::vector<float>>;

// How results are kept between ops: in fp32 (the reference), or rounded to
// each tensor's device format as the card stores them (an estimate of the
// error the device's storage precision alone puts into each output).
enum class StoredPrecision { Fp32, Device };

// Values of every tensor of the graph, given its inputs and weights by name
// (constants come from the graph). Throws SpyreError for a missing input.
HostValues evaluate_graph(const Graph& graph, const HostValues& inputs,
                          StoredPrecision precision = StoredPrecision::Fp32);

// Fills `values` with an input or weight tensor's, asked for when an op first
// needs them (the graph's large weights need not all be in memory at once);
// `values` may hold a released tensor's storage, to be reused.
using InputSource = std::function<void(const Tensor& tensor, std::vector<float>& values)>;
// The values of the tensors named in `keep` (the graph's outputs, say), every
// other value dropped after its last use; `keep` empty: every tensor's.
// Matmuls multiply in BLAS: double precision for the fp32 reference, single
// for the device-storage estimate (whose error is the storage's, 2^-10, not
// the accumulation's). `scratch` (may be null): storage for the first large
// input, left holding the largest storage released (for the next call).
HostValues evaluate_graph(const Graph& graph, const InputSource& inputs, StoredPrecision precision,
                          const std::vector<std::string>& keep, std::vector<float>* scratch);

}  // namespace spyre::compiler
