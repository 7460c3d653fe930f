"""Builds a tiny random Qwen3 model in a folder, without downloads and without torch.

The folder must already hold the tokenizer (`tokenizer.json`, `tokenizer_config.json`): the
TypeScript test helper (test/fakes/tiny-model.ts, `writeTinyModel`) writes them, so SPADE's
renderer and the engine read the very same files. This script adds `config.json`,
`generation_config.json` and `model.safetensors` (float32, seeded normal weights, written with
numpy + safetensors under Qwen3's Hugging Face parameter names, which is what
transformers' `save_pretrained` would write; transformers needs torch to instantiate a model,
not to write its config).

    python scripts/engine/tiny_model.py --out DIR [--seed 0] [--bpe-vocab N --bpe-train FILE...]

With `--bpe-vocab`, the byte-level tokenizer first gains BPE merges learned (deterministically,
by the `tokenizers` library) from the given text files, up to N tokens, keeping every existing
id: SPADE's designer prompt and its multi-turn episodes are many thousand bytes, which a tiny
model on CPU can train on only when they are ~3x fewer tokens.
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

# The shape that ran on SkyRL's JAX backend (issue 5); the vocabulary follows the tokenizer.
SHAPE = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
}
# Room for SPADE's prompts: the byte-level tokenizer spends one token per character.
MAX_POSITIONS = 32768
# The output head is NOT tied to the input embeddings, and is larger than them. LoRA (SkyRL
# trains attention and MLP, not the head) can only turn the final hidden state, whose norm the
# final RMSNorm fixes at sqrt(hidden_size) = 8: a logit is at most 8 * |head row|. With
# Hugging Face's init (0.02, row norm 0.16) no token could get more than ~4x the uniform
# probability, so nothing learnable; with rows of norm ~1 a token can reach most of the mass,
# while the initial logits (std ~1) keep sampling close to uniform. Tied weights would also make
# the random model repeat its last input token (its logit would be 8 * |row|, all others ~0).
HEAD_STD = 0.12


def token_id(tokenizer: Tokenizer, config: dict, key: str) -> int | None:
    """The id of the special token named `key` in tokenizer_config.json, or None."""
    value = config.get(key)
    if isinstance(value, dict):
        value = value.get("content")
    return tokenizer.token_to_id(value) if isinstance(value, str) else None


def save_config(out: str, vocab_size: int, eos_id: int, pad_id: int | None) -> None:
    """config.json through transformers' own Qwen3Config (no torch needed for configs)."""
    from transformers import Qwen3Config

    config = Qwen3Config(
        vocab_size=vocab_size,
        **SHAPE,
        max_position_embeddings=MAX_POSITIONS,
        tie_word_embeddings=False,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        eos_token_id=eos_id,
        pad_token_id=pad_id,
        bos_token_id=None,
        dtype="float32",
        architectures=["Qwen3ForCausalLM"],
    )
    config.save_pretrained(out)


def weights(vocab_size: int, seed: int) -> dict[str, np.ndarray]:
    """Qwen3 parameters under their Hugging Face names: normal(0, 0.02) matrices (the head: HEAD_STD), unit norms."""
    rng = np.random.default_rng(seed)
    h, i, hd = SHAPE["hidden_size"], SHAPE["intermediate_size"], SHAPE["head_dim"]
    q, kv = SHAPE["num_attention_heads"] * hd, SHAPE["num_key_value_heads"] * hd

    def normal(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def ones(n: int) -> np.ndarray:
        return np.ones((n,), dtype=np.float32)

    tensors = {
        "model.embed_tokens.weight": normal(vocab_size, h),
        "model.norm.weight": ones(h),
        "lm_head.weight": (rng.standard_normal((vocab_size, h)) * HEAD_STD).astype(np.float32),
    }
    for layer in range(SHAPE["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        tensors.update({
            p + "input_layernorm.weight": ones(h),
            p + "post_attention_layernorm.weight": ones(h),
            p + "self_attn.q_proj.weight": normal(q, h),
            p + "self_attn.k_proj.weight": normal(kv, h),
            p + "self_attn.v_proj.weight": normal(kv, h),
            p + "self_attn.o_proj.weight": normal(h, q),
            p + "self_attn.q_norm.weight": ones(hd),
            p + "self_attn.k_norm.weight": ones(hd),
            p + "mlp.gate_proj.weight": normal(i, h),
            p + "mlp.up_proj.weight": normal(i, h),
            p + "mlp.down_proj.weight": normal(h, i),
        })
    return tensors


def extend_with_merges(tokenizer_path: str, vocab_size: int, train_files: list[str]) -> int:
    """Adds BPE merges learned from `train_files` to the tokenizer at `tokenizer_path`; returns how many.

    The existing vocabulary, merges (first, so they keep their priority) and added tokens keep
    their ids; each learned merge's token gets the next free id.
    """
    with open(tokenizer_path) as f:
        spec = json.load(f)
    learner = Tokenizer(models.BPE())
    learner.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    learner.train(train_files, trainer)
    learned = json.loads(learner.to_str())["model"]["merges"]
    vocab: dict[str, int] = spec["model"]["vocab"]
    merges = [list(m) if isinstance(m, list) else m.split(" ", 1) for m in spec["model"]["merges"]]
    known = {tuple(m) for m in merges}
    specials = {t["content"] for t in spec["added_tokens"]}
    # The Rust library numbers added tokens missing from the model's vocabulary after it (ignoring
    # their ids), the TS one keeps their ids: listing them in the vocabulary at their ids makes both agree.
    for token in spec["added_tokens"]:
        vocab[token["content"]] = token["id"]
    next_id = max([*vocab.values(), *(t["id"] for t in spec["added_tokens"])]) + 1
    added = 0
    for merge in learned:
        left, right = merge if isinstance(merge, list) else merge.split(" ", 1)
        # A learned token spelling an added one (`<|im_end|>` appears in SPADE's prompt texts) would give it two ids.
        if (left, right) in known or left not in vocab or right not in vocab or left + right in specials:
            continue
        if left + right not in vocab:
            vocab[left + right] = next_id
            next_id += 1
        merges.append([left, right])
        known.add((left, right))
        added += 1
    spec["model"]["merges"] = merges
    with open(tokenizer_path, "w") as f:
        json.dump(spec, f)
    return added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="folder holding tokenizer.json and tokenizer_config.json")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bpe-vocab", type=int, default=0, help="learn BPE merges up to this many tokens (0: keep the byte-level tokenizer)")
    parser.add_argument("--bpe-train", nargs="*", default=[], help="text files to learn the merges from")
    args = parser.parse_args()
    tokenizer_path = os.path.join(args.out, "tokenizer.json")
    config_path = os.path.join(args.out, "tokenizer_config.json")
    if not (os.path.exists(tokenizer_path) and os.path.exists(config_path)):
        raise SystemExit(f"{args.out} lacks tokenizer.json / tokenizer_config.json: write them first (test/fakes/tiny-model.ts writeTinyModel)")
    merges_added = extend_with_merges(tokenizer_path, args.bpe_vocab, args.bpe_train) if args.bpe_vocab > 0 else 0
    tokenizer = Tokenizer.from_file(tokenizer_path)
    with open(config_path) as f:
        tokenizer_config = json.load(f)
    vocab_size = tokenizer.get_vocab_size(with_added_tokens=True)
    eos_id = token_id(tokenizer, tokenizer_config, "eos_token")
    if eos_id is None:
        raise SystemExit("tokenizer_config.json names no eos_token the tokenizer knows")
    pad_id = token_id(tokenizer, tokenizer_config, "pad_token")
    # Sampling stops at the end of a turn and at end-of-text alike.
    stop_ids = [eos_id] + ([pad_id] if pad_id is not None and pad_id != eos_id else [])
    save_config(args.out, vocab_size, eos_id, pad_id)
    with open(os.path.join(args.out, "generation_config.json"), "w") as f:
        json.dump({"eos_token_id": stop_ids, "pad_token_id": pad_id, "do_sample": True}, f, indent=2)
    save_file(weights(vocab_size, args.seed), os.path.join(args.out, "model.safetensors"), metadata={"format": "pt"})
    print(json.dumps({"out": args.out, "vocab_size": vocab_size, "merges_added": merges_added, "eos_token_id": eos_id, "stop_ids": stop_ids}))


if __name__ == "__main__":
    main()
