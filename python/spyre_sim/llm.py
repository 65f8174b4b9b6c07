"""A decoder-only LLM in plain PyTorch, from a Hugging Face-style config: Llama's and
Granite's architecture (RMSNorm, RoPE, grouped-query attention with an additive mask,
SwiGLU MLP; Granite's embedding, residual, attention and logits multipliers).

The same definition is the CPU reference and what `spyre_sim.compile` traces, so the
values the device computes are checked against the module itself. The model takes token
ids: the embedding is a lookup on the card (a gather, torch-spyre's indirect access).
RoPE's cos/sin tables and the mask are inputs (the host makes them from the positions, as
torch-spyre's models run sin/cos on the CPU). A decode step takes each layer's cache of
past keys and values and grows it by `torch.cat` along the sequence.
"""
import json
import math

import torch
from torch import nn


def load_config(path_or_dict):
    """A config.json (path or dict) with Hugging Face's key names; missing keys take Llama's defaults."""
    if isinstance(path_or_dict, dict):
        raw = dict(path_or_dict)
    else:
        with open(path_or_dict) as f:
            raw = json.load(f)
    cfg = {
        "hidden_size": raw["hidden_size"],
        "num_attention_heads": raw["num_attention_heads"],
        "num_key_value_heads": raw.get("num_key_value_heads", raw["num_attention_heads"]),
        "intermediate_size": raw["intermediate_size"],
        "num_hidden_layers": raw["num_hidden_layers"],
        "vocab_size": raw["vocab_size"],
        "rope_theta": raw.get("rope_theta", 10000.0),
        "rms_norm_eps": raw.get("rms_norm_eps", 1e-6),
        "tie_word_embeddings": raw.get("tie_word_embeddings", False),
        "embedding_multiplier": raw.get("embedding_multiplier", 1.0),
        "residual_multiplier": raw.get("residual_multiplier", 1.0),
        "attention_multiplier": raw.get("attention_multiplier", None),
        "logits_scaling": raw.get("logits_scaling", 1.0),
    }
    if cfg["hidden_size"] % cfg["num_attention_heads"]:
        raise ValueError("config: hidden_size is not a multiple of num_attention_heads")
    if cfg["num_attention_heads"] % cfg["num_key_value_heads"]:
        raise ValueError("config: num_attention_heads is not a multiple of num_key_value_heads")
    cfg["head_dim"] = raw.get("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    return cfg


class RMSNorm(nn.Module):
    def __init__(self, size, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


STICK_ELEMENTS = 64  # fp16 elements in a 128-byte stick


def rotate_half(x, rotation=None):
    """(-x2, x1) for the halves x1, x2 of the last dim. As Hugging Face writes it (slices and
    a cat) when a half fills whole sticks; otherwise (head dim 64: halves of 32) as x times
    the signed permutation `rotation`, the same values, because the device addresses the
    stick dim in whole sticks and cannot slice a stick in two."""
    if rotation is not None:
        return torch.matmul(x, rotation)
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotation_matrix(dim):
    """R with x @ R == rotate_half(x): [[0, I], [-I, 0]] over the halves."""
    half = dim // 2
    rotation = torch.zeros(dim, dim)
    rotation[half:, :half] = -torch.eye(half)
    rotation[:half, half:] = torch.eye(half)
    return rotation


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
        hidden = cfg["hidden_size"]
        self.q_proj = nn.Linear(hidden, self.heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, self.kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, self.kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.heads * self.head_dim, hidden, bias=False)
        if (self.head_dim // 2) % STICK_ELEMENTS:
            self.register_buffer("rope_rotation", rotation_matrix(self.head_dim), persistent=False)
        else:
            self.rope_rotation = None
        multiplier = cfg["attention_multiplier"]
        self.scale = multiplier if multiplier is not None else 1.0 / math.sqrt(self.head_dim)

    def forward(self, x, cos, sin, mask, past_k=None, past_v=None):
        batch, seq, _ = x.shape
        q = self.q_proj(x).view(batch, seq, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q, self.rope_rotation) * sin
        k = k * cos + rotate_half(k, self.rope_rotation) * sin
        if past_k is not None:
            k = torch.cat((past_k, k), dim=2)
            v = torch.cat((past_v, v), dim=2)
        group = self.heads // self.kv_heads
        # Grouped-query attention as Hugging Face's repeat_kv writes it: each KV head
        # broadcast over its group of query heads.
        length = k.shape[2]
        k = k[:, :, None].expand(batch, self.kv_heads, group, length, self.head_dim)
        k = k.reshape(batch, self.heads, length, self.head_dim)
        v = v[:, :, None].expand(batch, self.kv_heads, group, length, self.head_dim)
        v = v.reshape(batch, self.heads, length, self.head_dim)
        scores = torch.matmul(q, k.transpose(2, 3)) * self.scale + mask
        probs = torch.softmax(scores, dim=-1)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(batch, seq, self.heads * self.head_dim)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        hidden, inter = cfg["hidden_size"], cfg["intermediate_size"]
        self.gate_proj = nn.Linear(hidden, inter, bias=False)
        self.up_proj = nn.Linear(hidden, inter, bias=False)
        self.down_proj = nn.Linear(inter, hidden, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.mlp = MLP(cfg)
        self.residual_multiplier = cfg["residual_multiplier"]

    def forward(self, x, cos, sin, mask, past_k=None, past_v=None):
        attn = self.self_attn(self.input_layernorm(x), cos, sin, mask, past_k, past_v)
        x = x + attn * self.residual_multiplier if self.residual_multiplier != 1.0 else x + attn
        mlp = self.mlp(self.post_attention_layernorm(x))
        return x + mlp * self.residual_multiplier if self.residual_multiplier != 1.0 else x + mlp


class DecoderLM(nn.Module):
    """forward(ids, cos, sin, mask[, past_k_0, past_v_0, past_k_1, ...]) -> logits.

    ids: [batch, seq] token ids (int64); cos, sin:
    [batch, 1, seq, head_dim]; mask: additive, [batch, 1, seq, context + seq]; past_k_i,
    past_v_i: [batch, kv_heads, context, head_dim] for a decode step."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed_tokens = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        self.layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg["num_hidden_layers"]))
        self.norm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.lm_head = nn.Linear(cfg["hidden_size"], cfg["vocab_size"], bias=False)
        if cfg["tie_word_embeddings"]:
            self.lm_head.weight = self.embed_tokens.weight

    def embed(self, ids):
        """Token ids -> embeddings (with Granite's multiplier)."""
        embeds = self.embed_tokens(ids)
        multiplier = self.cfg["embedding_multiplier"]
        return embeds * multiplier if multiplier != 1.0 else embeds

    def forward(self, ids, cos, sin, mask, *past):
        if past and len(past) != 2 * len(self.layers):
            raise ValueError(f"a decode step takes 2 x {len(self.layers)} cache tensors, got {len(past)}")
        x = self.embed(ids)
        for i, layer in enumerate(self.layers):
            past_k, past_v = (past[2 * i], past[2 * i + 1]) if past else (None, None)
            x = layer(x, cos, sin, mask, past_k, past_v)
        logits = self.lm_head(self.norm(x))
        scaling = self.cfg["logits_scaling"]
        return logits / scaling if scaling != 1.0 else logits


def rope_tables(cfg, positions, batch=1):
    """cos, sin of shape [batch, 1, len(positions), head_dim] (Llama's rotate_half convention)."""
    dim = cfg["head_dim"]
    inv_freq = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    angles = torch.outer(torch.as_tensor(positions, dtype=torch.float64), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)
    shape = (batch, 1, len(positions), dim)
    return angles.cos().float().expand(shape).contiguous(), angles.sin().float().expand(shape).contiguous()


def causal_mask(seq, context=0, batch=1, masked=-1e4):
    """Additive mask [batch, 1, seq, context + seq]: query i sees the context and keys up to
    itself. -1e4 rather than -inf: DLFloat16 holds it, and exp of it is 0."""
    mask = torch.zeros(seq, context + seq)
    mask[:, context:] = torch.triu(torch.full((seq, seq), masked), diagonal=1)
    return mask.expand(batch, 1, seq, context + seq).contiguous()


def example_inputs(model, seq, context=0, batch=1, seed=0):
    """Inputs of a prefill (context 0) or a decode step after `context` tokens: random
    token ids, RoPE tables at the right positions, the causal mask, and (decode) random
    caches of past keys and values."""
    cfg = model.cfg
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, cfg["vocab_size"], (batch, seq), generator=gen)
    cos, sin = rope_tables(cfg, range(context, context + seq), batch)
    inputs = [ids, cos, sin, causal_mask(seq, context, batch)]
    for _ in range(len(model.layers) if context else 0):
        for _kv in range(2):
            inputs.append(torch.randn(batch, cfg["num_key_value_heads"], context, cfg["head_dim"], generator=gen))
    return tuple(inputs)


def main(argv=None):
    import argparse

    from . import SpyreError, fx_import

    parser = argparse.ArgumentParser(
        prog="python3 -m spyre_sim.llm",
        description="Compile a decoder-only LLM from a Hugging Face config.json (random weights) for a prefill "
        "or one decode step")
    parser.add_argument("config", help="config.json (e.g. models/llm/small.json)")
    parser.add_argument("output", help="folder for graph.json, weights/ and the compiled program/")
    parser.add_argument("--phase", choices=["prefill", "decode"], default="prefill")
    parser.add_argument("--seq", type=int, default=None, help="tokens (default: prefill 64, decode 1)")
    parser.add_argument("--context", type=int, default=64, help="decode: tokens already in the KV cache")
    parser.add_argument("--layers", type=int, default=None, help="decoder layers (default: the config's)")
    parser.add_argument("--seed", type=int, default=0, help="weights and inputs")
    fx_import.add_compile_arguments(parser)
    args = parser.parse_args(argv)

    def compile_config():
        try:
            cfg = load_config(args.config)
        except (OSError, ValueError, KeyError) as error:
            raise SpyreError(f"{args.config}: {error}") from error
        if args.layers is not None:
            cfg["num_hidden_layers"] = args.layers
        torch.manual_seed(args.seed)
        model = DecoderLM(cfg).eval()
        seq = args.seq or (64 if args.phase == "prefill" else 1)
        inputs = example_inputs(model, seq, context=args.context if args.phase == "decode" else 0, seed=args.seed)
        fx_import.compile_and_report(model, inputs, args, name=f"llm_{args.phase}")

    return fx_import.run_command(compile_config)


if __name__ == "__main__":
    raise SystemExit(main())
