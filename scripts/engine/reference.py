"""An independent numpy forward pass of the tiny Qwen3 model, for exact-loss checks.

Reads `config.json` and `model.safetensors` from a model folder (scripts/engine/tiny_model.py)
and computes, in float64, the log-probability of each target token given the tokens before it:
what a Tinker engine reports as `logprobs` for a datum with `model_input = tokens[:-1]`,
`target_tokens = tokens[1:]` while its LoRA adapter is still zero (fresh, before any step).

    echo '{"sequences": [[1, 2, 3]]}' | python scripts/engine/reference.py --model DIR
    -> {"logprobs": [[logp(2 | 1), logp(3 | 1 2)]]}

With `"texts": [...]` it also returns `"ids"`: each text encoded by the `tokenizers` library from
the folder's tokenizer.json (special tokens recognised, none added), to compare with SPADE's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np
from safetensors.numpy import load_file


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rope(x: np.ndarray, theta: float) -> np.ndarray:
    """Rotary position embedding, the default (non-interleaved, rotate-half) form; x is [T, heads, dim]."""
    t, _, dim = x.shape
    inv_freq = 1.0 / theta ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    angles = np.arange(t, dtype=np.float64)[:, None] * inv_freq[None, :]
    cos = np.cos(np.concatenate([angles, angles], axis=-1))[:, None, :]
    sin = np.sin(np.concatenate([angles, angles], axis=-1))[:, None, :]
    half = dim // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


def logprobs(model_dir: str, tokens: list[int]) -> list[float]:
    """log p(tokens[i+1] | tokens[:i+1]) for every i, under the base model."""
    with open(os.path.join(model_dir, "config.json")) as f:
        c = json.load(f)
    w = {k: v.astype(np.float64) for k, v in load_file(os.path.join(model_dir, "model.safetensors")).items()}
    eps, hd = c["rms_norm_eps"], c["head_dim"]
    n_heads, n_kv = c["num_attention_heads"], c["num_key_value_heads"]
    theta = (c.get("rope_parameters") or {}).get("rope_theta", c.get("rope_theta", 10000.0))
    ids = np.array(tokens[:-1])
    t = len(ids)
    x = w["model.embed_tokens.weight"][ids]
    causal = np.triu(np.full((t, t), -np.inf), k=1)
    for layer in range(c["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = (h @ w[p + "self_attn.q_proj.weight"].T).reshape(t, n_heads, hd)
        k = (h @ w[p + "self_attn.k_proj.weight"].T).reshape(t, n_kv, hd)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(t, n_kv, hd)
        q = rope(rms_norm(q, w[p + "self_attn.q_norm.weight"], eps), theta)
        k = rope(rms_norm(k, w[p + "self_attn.k_norm.weight"], eps), theta)
        group = n_heads // n_kv
        k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
        scores = np.einsum("qhd,khd->hqk", q, k) / np.sqrt(hd) + causal
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        attn = np.einsum("hqk,khd->qhd", scores, v).reshape(t, n_heads * hd)
        x = x + attn @ w[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = h @ w[p + "mlp.gate_proj.weight"].T
        x = x + ((gate / (1.0 + np.exp(-gate))) * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w.get("lm_head.weight", w["model.embed_tokens.weight"])
    logits = x @ head.T
    top = logits.max(axis=-1, keepdims=True)
    log_z = top[:, 0] + np.log(np.exp(logits - top).sum(axis=-1))
    targets = np.array(tokens[1:])
    return (logits[np.arange(t), targets] - log_z).tolist()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True)
    args = parser.parse_args()
    request = json.load(sys.stdin)
    answer: dict = {"logprobs": [logprobs(args.model, seq) for seq in request.get("sequences", [])]}
    if "texts" in request:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(os.path.join(args.model, "tokenizer.json"))
        answer["ids"] = [tokenizer.encode(text, add_special_tokens=False).ids for text in request["texts"]]
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
