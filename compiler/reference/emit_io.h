#pragma once
// Test data for a model graph: random inputs and weights, and the reference
// outputs the plain fp32 host evaluator computes from them, as .npy files
// named by tensor (DIR/inputs/<name>.npy, DIR/reference/<name>.npy) — what
// `spyre-sim run OUT --inputs DIR/inputs --expect DIR/reference` checks.

#include <cstdint>
#include <string>

#include "compiler/ir/graph.h"
#include "compiler/reference/host_evaluator.h"

namespace spyre::compiler {

// Deterministic for a given seed. Inputs are already rounded to the device
// format, so the reference and the device start from the same values.
// Tensors feeding log/sqrt/rsqrt/reciprocal or a divisor are positive;
// matrix weights are scaled by 1/sqrt(fan-in) to keep activations near 1.
HostValues random_inputs(const Graph& g, uint64_t seed);

// Writes inputs/ (random_inputs, one tensor at a time) and reference/ (the
// outputs evaluate_graph computes from them) into a staging folder beside
// `dir`, and reference/tolerance.json: for each output the tolerance it
// deserves — its dtype's default, widened where the graph evaluated with
// device-format storage between ops strays further from the reference
// (ill-conditioned chains). The evaluation reads the inputs back as it needs
// them, so a graph's weights are never all in memory at once. Returns the
// staging folder; commit_io moves its files into `dir`. On failure the
// staging folder is removed and nothing is left.
std::string stage_io(const Graph& g, uint64_t seed, const std::string& dir);
// Moves the staged inputs/ and reference/ into `dir` (replacing files of the
// same names) and removes the staging folder. Returns the number of .npy files.
int commit_io(const std::string& staged, const std::string& dir);

}  // namespace spyre::compiler
