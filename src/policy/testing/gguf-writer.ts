/**
 * @module policy/testing/gguf-writer
 * TEST DOUBLE. Writes a tiny random-weight llama GGUF (2 layers, hidden 64) with a byte/char
 * SentencePiece vocabulary and a ChatML template, so GGUF tests need no download.
 */
import { writeFile } from "node:fs/promises";
import { mulberry32 } from "../../random/index.js";

/** GGUF metadata value types used here (spec: ggml docs/gguf.md). */
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;
type Value =
  | { type: "u32" | "i32" | "f32"; value: number }
  | { type: "bool"; value: boolean }
  | string
  | string[]
  | { type: "f32[]" | "i32[]"; value: number[] };

/** Token types of the llama.cpp vocabulary (`tokenizer.ggml.token_type`). */
const NORMAL = 1,
  UNKNOWN = 2,
  CONTROL = 3,
  BYTE = 6;

/** A ChatML template: the shape most chat models use, and one node-llama-cpp recognises. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** The tiny model's shape. */
export const TINY_LLAMA = {
  layers: 2,
  hidden: 64,
  heads: 4,
  feedForward: 128,
  contextLength: 4096,
} as const;

/** Vocabulary: `<unk> <s> </s> <|im_start|> <|im_end|>`, 256 byte tokens, printable ASCII and `▁`. */
export function tinyVocab(): { tokens: string[]; types: number[] } {
  const tokens = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"];
  const types = [UNKNOWN, CONTROL, CONTROL, CONTROL, CONTROL];
  for (let b = 0; b < 256; b++)
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`), types.push(BYTE);
  // "▁" is SentencePiece's space; the other printable characters get one token each.
  for (const ch of ["\u2581", ...Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i))])
    tokens.push(ch), types.push(NORMAL);
  return { tokens, types };
}

/** Uniform random floats in [-scale, scale] from a seeded mulberry32 stream. */
function randomFloats(count: number, next: () => number, scale: number): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (next() * 2 - 1) * scale;
  return out;
}

/** Little-endian byte builder. */
class Bytes {
  private parts: Buffer[] = [];
  length = 0;
  push(buf: Buffer): void {
    this.parts.push(buf);
    this.length += buf.length;
  }
  /** Pushes `size` bytes that `write` fills. */
  private fixed(size: number, write: (b: Buffer) => unknown): void {
    const b = Buffer.alloc(size);
    write(b);
    this.push(b);
  }
  u32(v: number): void {
    this.fixed(4, (b) => b.writeUInt32LE(v));
  }
  i32(v: number): void {
    this.fixed(4, (b) => b.writeInt32LE(v));
  }
  u64(v: number): void {
    this.fixed(8, (b) => b.writeBigUInt64LE(BigInt(v)));
  }
  f32(v: number): void {
    this.fixed(4, (b) => b.writeFloatLE(v));
  }
  str(s: string): void {
    const b = Buffer.from(s, "utf8");
    this.u64(b.length);
    this.push(b);
  }
  pad(alignment: number): void {
    this.push(Buffer.alloc((alignment - (this.length % alignment)) % alignment));
  }
  concat(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** An array value: its element type, its length, then each element as `write` puts it. */
function writeArray<E>(
  out: Bytes,
  type: number,
  items: readonly E[],
  write: (item: E) => void,
): void {
  out.u32(T.ARRAY);
  out.u32(type);
  out.u64(items.length);
  for (const item of items) write(item);
}

function writeValue(out: Bytes, v: Value): void {
  if (typeof v === "string") return (out.u32(T.STRING), out.str(v));
  if (Array.isArray(v)) return writeArray(out, T.STRING, v, (s) => out.str(s));
  switch (v.type) {
    case "bool":
      return (out.u32(T.BOOL), out.push(Buffer.from([v.value ? 1 : 0])));
    case "f32[]":
      return writeArray(out, T.FLOAT32, v.value, (x) => out.f32(x));
    case "i32[]":
      return writeArray(out, T.INT32, v.value, (x) => out.i32(x));
    case "f32":
      return (out.u32(T.FLOAT32), out.f32(v.value));
    case "i32":
      return (out.u32(T.INT32), out.i32(v.value));
    case "u32":
      return (out.u32(T.UINT32), out.u32(v.value));
  }
}

/** One F32 tensor: GGUF dimensions (innermost first) and its values. */
export interface GgufTensor {
  name: string;
  dims: number[];
  data: Float32Array;
}

/** Encodes a GGUF v3 file: header, metadata, tensor infos, then 32-byte-aligned F32 data. */
export function encodeGguf(metadata: Record<string, Value>, tensors: GgufTensor[]): Buffer {
  const alignment = 32;
  const out = new Bytes();
  out.push(Buffer.from("GGUF", "ascii")),
    out.u32(3),
    out.u64(tensors.length),
    out.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) out.str(key), writeValue(out, value);
  let offset = 0;
  for (const t of tensors) {
    out.str(t.name),
      out.u32(t.dims.length),
      t.dims.forEach((d) => out.u64(d)),
      out.u32(0 /* GGML_TYPE_F32 */),
      out.u64(offset);
    offset += Math.ceil(t.data.byteLength / alignment) * alignment;
  }
  for (const t of tensors)
    out.pad(alignment), out.push(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return out.concat();
}

/** Writes the tiny random llama model to `path`; the same seed gives the same bytes. */
export async function writeTinyLlamaGguf(
  path: string,
  options: { seed?: number; chatTemplate?: string } = {},
): Promise<{ path: string; tokens: string[] }> {
  const { layers, hidden, heads, feedForward, contextLength } = TINY_LLAMA;
  const { tokens, types } = tinyVocab();
  const next = mulberry32(options.seed ?? 1);
  const ones = (n: number) => new Float32Array(n).fill(1);
  const matrix = (cols: number, rows: number) =>
    randomFloats(cols * rows, next, 1 / Math.sqrt(cols));
  const tensors: GgufTensor[] = [
    {
      name: "token_embd.weight",
      dims: [hidden, tokens.length],
      data: matrix(hidden, tokens.length),
    },
  ];
  for (let l = 0; l < layers; l++) {
    const p = `blk.${l}.`;
    tensors.push(
      { name: `${p}attn_norm.weight`, dims: [hidden], data: ones(hidden) },
      ...["attn_q", "attn_k", "attn_v", "attn_output"].map((n) => ({
        name: `${p}${n}.weight`,
        dims: [hidden, hidden],
        data: matrix(hidden, hidden),
      })),
      { name: `${p}ffn_norm.weight`, dims: [hidden], data: ones(hidden) },
      {
        name: `${p}ffn_gate.weight`,
        dims: [hidden, feedForward],
        data: matrix(hidden, feedForward),
      },
      { name: `${p}ffn_up.weight`, dims: [hidden, feedForward], data: matrix(hidden, feedForward) },
      {
        name: `${p}ffn_down.weight`,
        dims: [feedForward, hidden],
        data: matrix(feedForward, hidden),
      },
    );
  }
  tensors.push(
    { name: "output_norm.weight", dims: [hidden], data: ones(hidden) },
    { name: "output.weight", dims: [hidden, tokens.length], data: matrix(hidden, tokens.length) },
  );
  const u32 = (value: number) => ({ type: "u32" as const, value });
  const metadata: Record<string, Value> = {
    "general.architecture": "llama",
    "general.name": "spade-tiny-random-llama",
    "general.alignment": u32(32),
    "general.file_type": u32(0),
    "llama.context_length": u32(contextLength),
    "llama.embedding_length": u32(hidden),
    "llama.block_count": u32(layers),
    "llama.feed_forward_length": u32(feedForward),
    "llama.attention.head_count": u32(heads),
    "llama.attention.head_count_kv": u32(heads),
    "llama.rope.dimension_count": u32(hidden / heads),
    "llama.attention.layer_norm_rms_epsilon": { type: "f32", value: 1e-5 },
    "tokenizer.ggml.model": "llama",
    "tokenizer.ggml.tokens": tokens,
    "tokenizer.ggml.scores": { type: "f32[]", value: tokens.map(() => 0) },
    "tokenizer.ggml.token_type": { type: "i32[]", value: types },
    "tokenizer.ggml.unknown_token_id": u32(0),
    "tokenizer.ggml.bos_token_id": u32(1),
    "tokenizer.ggml.eos_token_id": u32(4),
    "tokenizer.ggml.add_bos_token": { type: "bool", value: false },
    "tokenizer.chat_template": options.chatTemplate ?? CHATML_TEMPLATE,
  };
  await writeFile(path, encodeGguf(metadata, tensors));
  return { path, tokens };
}
