#include "compiler/ir/llm_config.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/json_node.h"

namespace spyre::compiler {

WorkloadParams llm_config_params(const std::string& path, WorkloadParams params) {
  const Json json = read_json_file(path);
  const JsonNode root(json, path, "$");
  if (!root.is_object()) root.error("must be a JSON object (a Hugging Face config.json)");
  const auto given = [&](const std::string& option) {
    return std::find(params.given.begin(), params.given.end(), option) != params.given.end();
  };
  const auto size = [&](const char* key, const std::string& option, int64_t& field) {
    const int64_t value = root.at(key).as_int_in(1, int64_t{1} << 40);
    if (!given(option)) field = value;
  };
  size("hidden_size", "hidden", params.hidden);
  size("num_attention_heads", "heads", params.heads);
  if (root.has("num_key_value_heads")) {
    size("num_key_value_heads", "kv-heads", params.kv_heads);
  } else if (!given("kv-heads")) {
    params.kv_heads = params.heads;
  }
  size("intermediate_size", "intermediate", params.intermediate);
  size("num_hidden_layers", "layers", params.layers);
  size("vocab_size", "vocab", params.vocab);
  if (params.hidden % params.heads != 0)
    root.at("hidden_size").error("is not a multiple of num_attention_heads (" + std::to_string(params.heads) + ")");
  if (params.heads % params.kv_heads != 0)
    root.at("num_attention_heads")
        .error("is not a multiple of num_key_value_heads (" + std::to_string(params.kv_heads) + ")");
  const int64_t head_dim = params.hidden / params.heads;
  if (const auto d = root.find("head_dim"); d && d->as_int() != head_dim)
    d->error("a head dim other than hidden_size / num_attention_heads (" + std::to_string(head_dim) + ") is not built");
  const auto positive = [&](const char* key, double fallback) {
    const auto node = root.find(key);
    if (!node || node->raw().is_null()) return fallback;
    const double value = node->as_double();
    if (!(value > 0) || !std::isfinite(value)) node->error("must be a positive number");
    return value;
  };
  params.rms_norm_eps = positive("rms_norm_eps", 1e-6);
  params.attention_multiplier = positive("attention_multiplier", 1.0 / std::sqrt(static_cast<double>(head_dim)));
  params.residual_multiplier = positive("residual_multiplier", 1.0);
  params.logits_scaling = positive("logits_scaling", 1.0);
  params.embedding_multiplier = positive("embedding_multiplier", 1.0);
  return params;
}

}  // namespace spyre::compiler
