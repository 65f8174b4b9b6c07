#pragma once
// Test data for a model graph: random inputs and weights, and the reference
// outputs the plain fp32 host evaluator computes from them, as .npy files
// named by tensor (DIR/inputs/<name>.npy, DIR/reference/<name>.npy) — what
// `spyre-sim run OUT --inputs DIR/inputs --expect DIR/reference` checks.

#include <cstdint>
#include <string>

#include "compiler/graph.h"
#include "compiler/host_evaluator.h"

namespace spyre::compiler {

// Deterministic for a given seed. Inputs are already rounded to the device
// format, so the reference and the device start from the same values.
// Tensors feeding log/sqrt/rsqrt/reciprocal or a divisor are positive;
// matrix weights are scaled by 1/sqrt(fan-in) to keep activations near 1.
HostValues random_inputs(const Graph& g, uint64_t seed);

// Writes inputs/ and reference/ under dir, given the inputs and every
// tensor's value (evaluate_graph), and reference/tolerance.json: for each
// output the tolerance it deserves — its dtype's default, widened where the
// graph evaluated with device-format storage between ops strays further from
// the reference (ill-conditioned chains). Returns the number of .npy files.
int write_io(const Graph& g, const HostValues& inputs, const HostValues& all, const std::string& dir);

}  // namespace spyre::compiler
