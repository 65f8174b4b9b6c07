#pragma once
// A plain fp32 evaluator of model graphs (the ops of model_ops.h with NumPy
// semantics). It knows nothing of the device: it is the independent reference
// that `compile --emit-io` writes and `run --expect` checks against.

#include <map>
#include <string>
#include <vector>

#include "compiler/graph.h"

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

}  // namespace spyre::compiler
