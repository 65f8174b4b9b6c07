#pragma once
// A decoder-only LLM's Hugging Face config.json as the granite workload's
// parameters (`spyre-sim compile --model CONFIG.json`): the architecture keys
// (hidden_size, num_attention_heads, num_key_value_heads, intermediate_size,
// num_hidden_layers, vocab_size, rms_norm_eps) and Granite's scalars
// (attention_multiplier, residual_multiplier, logits_scaling); a config
// without them (Llama) gets 1/sqrt(head dim), 1 and 1.

#include <string>

#include "compiler/ir/workloads.h"

namespace spyre::compiler {

// `params` with the config's values, except those the user gave on the command
// line (params.given: "hidden", "heads", "kv-heads", "intermediate", "layers",
// "vocab"). Throws SpyreError naming the file and the key for a missing or
// malformed value or an architecture the workload does not build.
WorkloadParams llm_config_params(const std::string& path, WorkloadParams params);

}  // namespace spyre::compiler
