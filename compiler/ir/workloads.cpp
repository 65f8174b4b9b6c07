#include "compiler/ir/workloads.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/ir/model_ops.h"
#include "runtime/error.h"
#include "runtime/text.h"

namespace spyre::compiler {

namespace {

// Granite-3.3-8B (ibm-granite/granite-3.3-8b-instruct config.json):
// hidden_size 4096, num_attention_heads 32, num_key_value_heads 8,
// intermediate_size 12800, rms_norm_eps 1e-5, attention_multiplier 0.0078125,
// residual_multiplier 0.22.
// num_hidden_layers 40; vocab 49159 and logits divided by 16.0 as torch-spyre's
// traced Granite-3.3-8B shows them (tests/resource/models: lm_head [49159, 4096];
// the embeddings are multiplied by 12.0 before the first layer).
constexpr int64_t kGraniteHidden = 4096, kGraniteHeads = 32, kGraniteKvHeads = 8, kGraniteIntermediate = 12800;
constexpr int64_t kGraniteLayers = 40, kGraniteVocab = 49159;
constexpr float kGraniteEps = 1e-5f, kGraniteAttentionMultiplier = 0.0078125f, kGraniteResidualMultiplier = 0.22f,
                kGraniteLogitsScaling = 16.0f, kGraniteEmbeddingMultiplier = 12.0f;

const std::vector<std::string> kBinary = {"add", "sub", "mul", "div", "maximum", "minimum"};
const std::vector<std::string> kReductions = {"sum", "mean", "amax", "amin", "prod"};

// y = op(x): a unary device op or a pointwise composite (ceil, sign, ...).
bool is_unary_workload(const std::string& name) {
  const ModelOp* m = find_model_op(name);
  return m && (m->kind == ModelOpKind::Unary || m->kind == ModelOpKind::PointwiseComposite);
}

class Builder {
 public:
  Builder(const std::string& name, DType dtype) : dtype_(dtype) { g_.name = name; }

  std::string tensor(const std::string& name, const Shape& shape, Role role, int shard_dim = -1,
                     std::optional<DType> dtype = std::nullopt) {
    Tensor t;
    t.name = name;
    t.shape = shape;
    t.dtype = dtype.value_or(dtype_);
    t.dtype_given = dtype.has_value();
    t.role = role;
    t.shard_dim = shard_dim;
    g_.add_tensor(t);
    return name;
  }
  void cards(int n) { g_.cards = n; }

  std::string op(const std::string& type, const std::vector<std::string>& inputs, const std::string& output,
                 Json attrs = Json::object(), Role role = Role::Intermediate) {
    Op o;
    o.type = type;
    for (const auto& i : inputs) o.inputs.push_back(g_.find(i));
    if (g_.find(output) < 0) {
      Tensor t;
      t.name = output;
      t.role = role;
      g_.add_tensor(t);
    }
    o.outputs = {g_.find(output)};
    o.attrs = std::move(attrs);
    o.origin = type + " '" + output + "'";
    g_.ops.push_back(o);
    return output;
  }

  Graph finish() {
    g_.source = "workload " + g_.name;
    validate_graph(g_, g_.source);
    return std::move(g_);
  }

 private:
  Graph g_;
  DType dtype_;
};

Shape shape_or(const WorkloadParams& p, const Shape& fallback, size_t min_rank, size_t max_rank,
               const std::string& name) {
  Shape s = p.shape.empty() ? fallback : p.shape;
  if (s.size() < min_rank || s.size() > max_rank) {
    fail("", "--shape",
         name + " takes " + std::to_string(min_rank) + (max_rank != min_rank ? " to " + std::to_string(max_rank) : "") +
             " dims, got " + std::to_string(s.size()));
  }
  return s;
}

int64_t or_default(int64_t v, int64_t fallback) { return v > 0 ? v : fallback; }

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// x -> reshape (B, S, H, D) -> transpose to (B, H, S, D).
std::string split_heads(Builder& b, const std::string& x, int64_t batch, int64_t seq, int64_t heads, int64_t head_dim) {
  b.op("reshape", {x}, x + ".heads", {{"shape", {batch, seq, heads, head_dim}}});
  return b.op("transpose", {x + ".heads"}, x + ".bhsd", {{"dim0", 1}, {"dim1", 2}});
}

Graph decoder(const WorkloadParams& p) {
  const int64_t batch = or_default(p.batch, 1), seq = or_default(p.seq, 512), e = or_default(p.hidden, kGraniteHidden);
  const int64_t heads = or_default(p.heads, kGraniteHeads), kv = or_default(p.kv_heads, kGraniteKvHeads),
                inter = or_default(p.intermediate, kGraniteIntermediate);
  if (e % heads != 0)
    fail("", "--hidden", "hidden size " + std::to_string(e) + " is not a multiple of --heads " + std::to_string(heads));
  const int64_t d = e / heads;
  Builder b("decoder", p.dtype);
  b.tensor("x", {batch, seq, e}, Role::Input);
  b.tensor("attn_norm.weight", {e}, Role::Weight);
  b.tensor("q_proj.weight", {e, e}, Role::Weight);
  b.tensor("k_proj.weight", {kv * d, e}, Role::Weight);
  b.tensor("v_proj.weight", {kv * d, e}, Role::Weight);
  b.tensor("o_proj.weight", {e, e}, Role::Weight);
  b.tensor("mlp_norm.weight", {e}, Role::Weight);
  b.tensor("gate_proj.weight", {inter, e}, Role::Weight);
  b.tensor("up_proj.weight", {inter, e}, Role::Weight);
  b.tensor("down_proj.weight", {e, inter}, Role::Weight);
  b.op("rms_norm", {"x", "attn_norm.weight"}, "h", {{"eps", kGraniteEps}});
  b.op("linear", {"h", "q_proj.weight"}, "q");
  b.op("linear", {"h", "k_proj.weight"}, "k");
  b.op("linear", {"h", "v_proj.weight"}, "v");
  const std::string q = split_heads(b, "q", batch, seq, heads, d), k = split_heads(b, "k", batch, seq, kv, d),
                    v = split_heads(b, "v", batch, seq, kv, d);
  b.op("attention", {q, k, v}, "attn", {{"scale", kGraniteAttentionMultiplier}});
  b.op("transpose", {"attn"}, "attn.bshd", {{"dim0", 1}, {"dim1", 2}});
  b.op("reshape", {"attn.bshd"}, "attn.merged", {{"shape", {batch, seq, e}}});
  b.op("linear", {"attn.merged", "o_proj.weight"}, "o");
  b.op("mul", {"o"}, "o.scaled", {{"scalar", kGraniteResidualMultiplier}});
  b.op("add", {"x", "o.scaled"}, "r");
  b.op("rms_norm", {"r", "mlp_norm.weight"}, "h2", {{"eps", kGraniteEps}});
  b.op("swiglu_mlp", {"h2", "gate_proj.weight", "up_proj.weight", "down_proj.weight"}, "m");
  b.op("mul", {"m"}, "m.scaled", {{"scalar", kGraniteResidualMultiplier}});
  b.op("add", {"r", "m.scaled"}, "y", Json::object(), Role::Output);
  return b.finish();
}

// RoPE as Hugging Face applies it: x * cos + rotate_half(x) * sin, where
// rotate_half(x) = cat(-x[..., D/2:], x[..., :D/2]); cos and sin (B, 1, S, D).
std::string rope(Builder& b, const std::string& x, int64_t head_dim) {
  const int64_t half = head_dim / 2;
  b.op("narrow", {x}, x + ".x1", {{"dim", -1}, {"start", 0}, {"length", half}});
  b.op("narrow", {x}, x + ".x2", {{"dim", -1}, {"start", half}, {"length", half}});
  b.op("neg", {x + ".x2"}, x + ".minus_x2");
  b.op("cat", {x + ".minus_x2", x + ".x1"}, x + ".rotated", {{"dim", -1}});
  b.op("mul", {x, "rope.cos"}, x + ".cos");
  b.op("mul", {x + ".rotated", "rope.sin"}, x + ".sin");
  return b.op("add", {x + ".cos", x + ".sin"}, x + ".rope");
}

// The whole Granite-3.3-8B (or a smaller one of its shape) from the token ids
// to the logits: the embedding (a gather, torch-spyre's indirect access,
// times embedding_multiplier), --layers decoder layers (RMSNorm, RoPE,
// grouped-query attention with an additive mask, SwiGLU, scaled residuals),
// the final norm and the LM head (divided by logits_scaling). Prefill: --seq tokens attend to each
// other; decode: --seq new tokens attend to --context cached ones too (each
// layer's past_k / past_v grown by cat along the sequence, as a KV cache).
Graph granite(const WorkloadParams& p) {
  const int64_t batch = or_default(p.batch, 1), e = or_default(p.hidden, kGraniteHidden);
  const int64_t heads = or_default(p.heads, kGraniteHeads), kv = or_default(p.kv_heads, kGraniteKvHeads),
                inter = or_default(p.intermediate, kGraniteIntermediate), layers = or_default(p.layers, kGraniteLayers),
                vocab = or_default(p.vocab, kGraniteVocab);
  if (p.phase != "prefill" && p.phase != "decode")
    fail("", "--phase", "'" + p.phase + "' is not a phase (prefill, decode)");
  const bool decode = p.phase == "decode";
  const int64_t seq = or_default(p.seq, decode ? 1 : 512), context = decode ? or_default(p.context, 2048) : 0;
  if (!decode && p.context > 0) fail("", "--context", "applies to --phase decode (the tokens already cached)");
  if (e % heads != 0)
    fail("", "--hidden", "hidden size " + std::to_string(e) + " is not a multiple of --heads " + std::to_string(heads));
  const int64_t d = e / heads;
  // Tensor parallelism as Megatron-style plans divide a decoder layer (and
  // torch-spyre's multi-card runs, up to 8 cards): each card takes heads / N
  // query heads with their kv_heads / N key/value heads (Q, K, V projections
  // split by output rows) and intermediate / N of the MLP (gate and up by
  // rows); the O and down projections take the matching columns and give
  // partial sums, which an all_reduce adds over the cards. Norms, residuals
  // and the LM head run whole on every card.
  const int64_t n = or_default(p.cards, 1);
  if (n > 1) {
    for (const auto& [what, count] : std::vector<std::pair<std::string, int64_t>>{
             {"attention heads", heads}, {"key/value heads", kv}, {"intermediate size", inter}}) {
      if (count % n != 0)
        fail("", "--cards",
             std::to_string(n) + " cards do not divide the " + what + " (" + std::to_string(count) + ")");
    }
  }
  const int64_t heads_c = heads / n, kv_c = kv / n, inter_c = inter / n;
  // A partial sum made whole over the cards (nothing on one card).
  auto summed = [&](Builder& b, const std::string& partial) {
    return n > 1 ? b.op("all_reduce", {partial}, partial + ".sum") : partial;
  };
  auto or_granite = [](double v, float granite) { return v > 0 ? static_cast<float>(v) : granite; };
  const float eps = or_granite(p.rms_norm_eps, kGraniteEps);
  const float scale = or_granite(p.attention_multiplier, kGraniteAttentionMultiplier);
  const float residual = or_granite(p.residual_multiplier, kGraniteResidualMultiplier);
  const float logits_scaling = or_granite(p.logits_scaling, kGraniteLogitsScaling);
  const float embedding_multiplier = or_granite(p.embedding_multiplier, kGraniteEmbeddingMultiplier);
  // x + branch * residual (no multiply where the model has none).
  auto residual_add = [&](Builder& b, const std::string& x, const std::string& branch, const std::string& out) {
    if (residual == 1.0f) return b.op("add", {x, branch}, out);
    b.op("mul", {branch}, branch + ".scaled", {{"scalar", residual}});
    return b.op("add", {x, branch + ".scaled"}, out);
  };
  Builder b("granite", p.dtype);
  b.cards(static_cast<int>(n));
  b.tensor("ids", {batch, seq}, Role::Input, -1, DType::I32);
  b.tensor("embed_tokens.weight", {vocab, e}, Role::Weight);
  b.tensor("rope.cos", {batch, 1, seq, d}, Role::Input);
  b.tensor("rope.sin", {batch, 1, seq, d}, Role::Input);
  b.tensor("mask", {batch, 1, seq, context + seq}, Role::Input);
  std::string hidden = b.op("embedding", {"embed_tokens.weight", "ids"}, "embeds");
  if (embedding_multiplier != 1.0f) hidden = b.op("mul", {hidden}, "x", {{"scalar", embedding_multiplier}});
  for (int64_t l = 0; l < layers; ++l) {
    const std::string layer = "layers." + std::to_string(l) + ".";
    // Each weight with the dim its cards divide (-1: whole on every card).
    struct Weight {
      std::string name;
      Shape shape;
      int shard_dim;
    };
    for (const auto& w : std::vector<Weight>{{"input_layernorm.weight", {e}, -1},
                                             {"q_proj.weight", {heads_c * d, e}, 0},
                                             {"k_proj.weight", {kv_c * d, e}, 0},
                                             {"v_proj.weight", {kv_c * d, e}, 0},
                                             {"o_proj.weight", {e, heads_c * d}, 1},
                                             {"post_attention_layernorm.weight", {e}, -1},
                                             {"gate_proj.weight", {inter_c, e}, 0},
                                             {"up_proj.weight", {inter_c, e}, 0},
                                             {"down_proj.weight", {e, inter_c}, 1}})
      b.tensor(layer + w.name, w.shape, Role::Weight, n > 1 ? w.shard_dim : -1);
    b.op("rms_norm", {hidden, layer + "input_layernorm.weight"}, layer + "h", {{"eps", eps}});
    b.op("linear", {layer + "h", layer + "q_proj.weight"}, layer + "q");
    b.op("linear", {layer + "h", layer + "k_proj.weight"}, layer + "k");
    b.op("linear", {layer + "h", layer + "v_proj.weight"}, layer + "v");
    const std::string q = rope(b, split_heads(b, layer + "q", batch, seq, heads_c, d), d);
    std::string k = rope(b, split_heads(b, layer + "k", batch, seq, kv_c, d), d);
    std::string v = split_heads(b, layer + "v", batch, seq, kv_c, d);
    if (decode) {
      b.tensor(layer + "past_k", {batch, kv_c, context, d}, Role::Input, n > 1 ? 1 : -1);
      b.tensor(layer + "past_v", {batch, kv_c, context, d}, Role::Input, n > 1 ? 1 : -1);
      k = b.op("cat", {layer + "past_k", k}, layer + "keys", {{"dim", 2}});
      v = b.op("cat", {layer + "past_v", v}, layer + "values", {{"dim", 2}});
    }
    b.op("scaled_dot_product_attention", {q, k, v, "mask"}, layer + "attn", {{"scale", scale}});
    b.op("transpose", {layer + "attn"}, layer + "attn.bshd", {{"dim0", 1}, {"dim1", 2}});
    b.op("reshape", {layer + "attn.bshd"}, layer + "attn.merged", {{"shape", {batch, seq, heads_c * d}}});
    b.op("linear", {layer + "attn.merged", layer + "o_proj.weight"}, layer + "o");
    residual_add(b, hidden, summed(b, layer + "o"), layer + "r");
    b.op("rms_norm", {layer + "r", layer + "post_attention_layernorm.weight"}, layer + "h2", {{"eps", eps}});
    b.op("swiglu_mlp", {layer + "h2", layer + "gate_proj.weight", layer + "up_proj.weight", layer + "down_proj.weight"},
         layer + "m");
    hidden = residual_add(b, layer + "r", summed(b, layer + "m"), layer + "y");
  }
  b.tensor("norm.weight", {e}, Role::Weight);
  b.op("rms_norm", {hidden, "norm.weight"}, "final", {{"eps", eps}});
  // The LM head in blocks of vocabulary rows whose weight stays within half
  // the 256 MiB per-core span (Granite's 49159 rows are 769 sticks, a prime:
  // no core split of one weight would keep it within the span), their
  // logits concatenated. A vocabulary that fits is one lm_head.weight.
  const int64_t block = std::max<int64_t>(64, (int64_t{128} << 20) / (e * 2) / 64 * 64);
  // Without a logits divisor the last of these ops writes the logits.
  const bool scaled = logits_scaling != 1.0f, blocked = vocab > block;
  std::vector<std::string> parts;
  for (int64_t first = 0; first < vocab; first += block) {
    const std::string w = blocked ? "lm_head.weight." + std::to_string(parts.size()) : "lm_head.weight";
    b.tensor(w, {std::min(block, vocab - first), e}, Role::Weight);
    const bool last = !blocked && !scaled;
    parts.push_back(b.op("linear", {"final", w}, last ? "logits" : "lm_head." + std::to_string(parts.size()),
                         Json::object(), last ? Role::Output : Role::Intermediate));
  }
  const std::string lm_head = !blocked ? parts[0]
                                       : b.op("cat", parts, scaled ? "lm_head" : "logits", {{"dim", -1}},
                                              scaled ? Role::Intermediate : Role::Output);
  if (scaled) b.op("div", {lm_head}, "logits", {{"scalar", logits_scaling}}, Role::Output);
  return b.finish();
}

}  // namespace

std::vector<int64_t> parse_shape(const std::string& text) {
  std::vector<int64_t> shape;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('x', pos), text.size());
    const std::string part = text.substr(pos, end - pos);
    try {
      size_t used = 0;
      const long long v = std::stoll(part, &used);
      if (used != part.size() || v < 1) throw std::invalid_argument("");
      shape.push_back(v);
    } catch (const std::exception&) {
      fail("", "--shape " + text, "expected sizes joined by 'x', e.g. 512x1024");
    }
    pos = end + 1;
  }
  return shape;
}

std::vector<WorkloadInfo> list_workloads() {
  std::vector<WorkloadInfo> list;
  const std::string unary = join(pointwise_op_names(), ", ");
  list.push_back({"<unary op>", "y = op(x), x of --shape (default 512x1024); ops: " + unary});
  list.push_back({"add, sub, mul, div, maximum, minimum", "y = op(a, b), both of --shape (default 512x1024)"});
  list.push_back({"sum, mean, amax, amin, prod", "y = op(x, dim=--dim), x of --shape (default 512x1024)"});
  list.push_back({"softmax", "y = softmax(x, dim=--dim), x of --shape (default 512x1024)"});
  list.push_back({"layernorm", "y = layer_norm(x, weight, bias) over the last dim, x of --shape (default 512x1024)"});
  list.push_back({"rmsnorm", "y = rms_norm(x, weight) over the last dim, x of --shape (default 512x1024)"});
  list.push_back({"matmul", "c = a @ b, --shape MxKxN (default 512x1024x256)"});
  list.push_back({"bmm", "c = bmm(a, b), --shape BxMxKxN (default 8x128x256x128)"});
  list.push_back({"linear", "y = x @ W^T + bias, --shape MxKxN (default 512x1024x256)"});
  list.push_back(
      {"mlp", "SwiGLU MLP: down(silu(gate(x)) * up(x)), --shape TOKENSxHIDDENxINTERMEDIATE (default 128x4096x12800)"});
  list.push_back({"attention",
                  "softmax(q k^T * scale) v with grouped KV heads, --shape BxHxSxD (default 1x32x512x128), --kv-heads "
                  "(default 8)"});
  list.push_back({"decoder",
                  "one Granite-3.3-8B decoder layer (RMSNorm, GQA attention, SwiGLU MLP, residuals; no RoPE or mask) "
                  "at --seq (default 512); "
                  "--hidden 4096 --heads 32 --kv-heads 8 --intermediate 12800 --batch 1 by default"});
  list.push_back({"granite",
                  "the whole Granite-3.3-8B from the scaled token embeddings to the logits: --layers decoder layers "
                  "(default 40) with RoPE and an additive mask, final norm, LM head (--vocab, default 49159); "
                  "--phase prefill (--seq tokens, default 512) or decode (--seq new tokens, default 1, after "
                  "--context cached ones, default 2048, each layer's KV cache grown by cat); --cards N: each card's "
                  "part of it under tensor parallelism (an all_reduce after the O and down projections); the "
                  "decoder's other options"});
  return list;
}

namespace {
Graph build_named_workload(const std::string& name, const WorkloadParams& p);
}  // namespace

std::vector<std::string> workload_options(const std::string& name) {
  if (is_unary_workload(name)) return {"shape"};
  if (contains(kReductions, name) || name == "softmax") return {"shape", "dim"};
  if (contains(kBinary, name) || name == "layernorm" || name == "rmsnorm" || name == "matmul" || name == "linear" ||
      name == "bmm" || name == "mlp")
    return {"shape"};
  if (name == "attention") return {"shape", "kv-heads"};
  if (name == "decoder") return {"batch", "seq", "hidden", "heads", "kv-heads", "intermediate"};
  if (name == "granite")
    return {"batch",  "seq",   "hidden", "heads",   "kv-heads", "intermediate",
            "layers", "vocab", "phase",  "context", "cards"};
  return {};
}

Graph build_workload(const std::string& name, const WorkloadParams& p) {
  const auto takes = workload_options(name);
  for (const auto& option : p.given) {
    if (takes.empty() || contains(takes, option)) continue;
    fail("", "--" + option,
         "the " + name + " workload does not take it (it takes --" + join(takes, ", --") + " and --dtype)");
  }
  return build_named_workload(name, p);
}

namespace {

Graph build_named_workload(const std::string& name, const WorkloadParams& p) {
  const Shape dflt = {512, 1024};
  if (is_unary_workload(name)) {
    Builder b(name, p.dtype);
    b.tensor("x", shape_or(p, dflt, 1, 8, name), Role::Input);
    b.op(name, {"x"}, "y", Json::object(), Role::Output);
    return b.finish();
  }
  if (contains(kBinary, name)) {
    Builder b(name, p.dtype);
    const Shape s = shape_or(p, dflt, 1, 8, name);
    b.tensor("a", s, Role::Input);
    b.tensor("b", s, Role::Input);
    b.op(name, {"a", "b"}, "y", Json::object(), Role::Output);
    return b.finish();
  }
  if (contains(kReductions, name) || name == "softmax") {
    Builder b(name, p.dtype);
    b.tensor("x", shape_or(p, dflt, 1, 8, name), Role::Input);
    b.op(name, {"x"}, "y", {{"dim", p.dim}}, Role::Output);
    return b.finish();
  }
  if (name == "layernorm" || name == "rmsnorm") {
    Builder b(name, p.dtype);
    const Shape s = shape_or(p, dflt, 1, 8, name);
    b.tensor("x", s, Role::Input);
    b.tensor("weight", {s.back()}, Role::Weight);
    if (name == "layernorm") {
      b.tensor("bias", {s.back()}, Role::Weight);
      b.op("layer_norm", {"x", "weight", "bias"}, "y", {{"eps", 1e-5f}}, Role::Output);
    } else {
      b.op("rms_norm", {"x", "weight"}, "y", {{"eps", 1e-6f}}, Role::Output);
    }
    return b.finish();
  }
  if (name == "matmul" || name == "linear") {
    const Shape s = shape_or(p, {512, 1024, 256}, 3, 3, name);
    Builder b(name, p.dtype);
    b.tensor("a", {s[0], s[1]}, Role::Input);
    if (name == "matmul") {
      b.tensor("b", {s[1], s[2]}, Role::Input);
      b.op("matmul", {"a", "b"}, "c", Json::object(), Role::Output);
    } else {
      b.tensor("weight", {s[2], s[1]}, Role::Weight);
      b.tensor("bias", {s[2]}, Role::Weight);
      b.op("linear", {"a", "weight", "bias"}, "c", Json::object(), Role::Output);
    }
    return b.finish();
  }
  if (name == "bmm") {
    const Shape s = shape_or(p, {8, 128, 256, 128}, 4, 4, name);
    Builder b(name, p.dtype);
    b.tensor("a", {s[0], s[1], s[2]}, Role::Input);
    b.tensor("b", {s[0], s[2], s[3]}, Role::Input);
    b.op("bmm", {"a", "b"}, "c", Json::object(), Role::Output);
    return b.finish();
  }
  if (name == "mlp") {
    const Shape s = shape_or(p, {128, 4096, 12800}, 3, 3, name);
    Builder b(name, p.dtype);
    b.tensor("x", {s[0], s[1]}, Role::Input);
    b.tensor("gate_proj.weight", {s[2], s[1]}, Role::Weight);
    b.tensor("up_proj.weight", {s[2], s[1]}, Role::Weight);
    b.tensor("down_proj.weight", {s[1], s[2]}, Role::Weight);
    b.op("swiglu_mlp", {"x", "gate_proj.weight", "up_proj.weight", "down_proj.weight"}, "y", Json::object(),
         Role::Output);
    return b.finish();
  }
  if (name == "attention") {
    const Shape s = shape_or(p, {1, 32, 512, 128}, 4, 4, name);
    const int64_t kv = or_default(p.kv_heads, std::min<int64_t>(8, s[1]));
    Builder b(name, p.dtype);
    b.tensor("q", s, Role::Input);
    b.tensor("k", {s[0], kv, s[2], s[3]}, Role::Input);
    b.tensor("v", {s[0], kv, s[2], s[3]}, Role::Input);
    b.op("attention", {"q", "k", "v"}, "o", Json::object(), Role::Output);
    return b.finish();
  }
  if (name == "decoder") return decoder(p);
  if (name == "granite") return granite(p);
  fail("", "--workload " + name, "unknown workload (spyre-sim compile --list-workloads lists them)");
}

}  // namespace

}  // namespace spyre::compiler
