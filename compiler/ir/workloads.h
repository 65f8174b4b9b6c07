#pragma once
// Built-in workloads: model graphs by name with shape parameters, so users
// can ask what the compiler does with an op or a layer without writing JSON.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace spyre::compiler {

struct WorkloadParams {
  std::vector<int64_t> shape;  // empty: the workload's default
  int64_t dim = -1;            // softmax / reductions
  DType dtype = DType::F16;
  // Transformer workloads (mlp, attention, decoder): 0 means the default.
  int64_t batch = 0, seq = 0, hidden = 0, heads = 0, kv_heads = 0, intermediate = 0;
  // The whole model (granite): decoder layers, vocabulary, and the phase:
  // prefill (seq tokens) or decode (seq new tokens after context cached ones).
  int64_t layers = 0, vocab = 0, context = 0;
  std::string phase = "prefill";
  // Tensor parallelism (granite): the graph is each card's part of the model
  // on this many cards (0 or 1: one card).
  int64_t cards = 0;
  // The model's scalars (0: Granite-3.3-8B's): RMSNorm eps, the attention
  // scale, the residual branches' and the logits' divisor, the embeddings'
  // multiplier (--model sets them from a config.json: llm_config.h).
  double rms_norm_eps = 0, attention_multiplier = 0, residual_multiplier = 0, logits_scaling = 0,
         embedding_multiplier = 0;
  // The options the user set ("shape", "dim", "seq", "kv-heads", ...): one the
  // workload does not take is refused, not ignored.
  std::vector<std::string> given;
};

struct WorkloadInfo {
  std::string name;
  std::string description;  // with the default shape and the parameters it reads
};

std::vector<WorkloadInfo> list_workloads();
// Throws SpyreError for an unknown name, a shape the workload cannot take or
// an option of params.given it does not take.
Graph build_workload(const std::string& name, const WorkloadParams& params);
// The options (without "--") a workload takes besides --dtype; empty for an
// unknown name.
std::vector<std::string> workload_options(const std::string& name);
// "512x1024" -> {512, 1024}.
std::vector<int64_t> parse_shape(const std::string& text);

}  // namespace spyre::compiler
