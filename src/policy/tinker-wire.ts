/**
 * @module policy/tinker-wire
 * The binary encodings of the official Tinker SDK: `forward_backward` bodies as protobuf (the
 * SDK's published schema, generated into `third_party/tinker-proto/`), optionally
 * zstd-compressed, and the protobuf results of `forward_backward` and `asample` futures, turned
 * into the same shapes the JSON API answers. Numbers travel as little-endian packed arrays: tokens
 * int32, float tensors float32, integer tensors int64, exactly as the SDK's
 * `proto/request_conv.py` writes them.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { compress, decompress } from "zstd-napi";
import { SpadeError } from "../errors.js";
import {
  DatumSchema,
  DType,
  ForwardBackwardOutputSchema,
  ForwardBackwardRequestSchema,
  LossConfigValueSchema,
  SampleResponseSchema,
  StopReason,
  TensorSchema,
  type BatchedTensor,
  type LossConfigValue,
  type Tensor,
} from "./third_party/tinker-proto/tinker_public_pb.js";

/** Content type of protobuf bodies and answers. */
export const PROTOBUF_CONTENT_TYPE = "application/x-protobuf";

/** A flat tensor as the JSON API carries it. */
export interface WireTensor {
  data: number[];
  dtype: "int64" | "float32";
  shape: number[];
}

/** A `forward_backward` body in its JSON shape (what SkyRL takes and SPADE builds). */
export interface ForwardBackwardBody {
  model_id: string;
  seq_id: number;
  forward_backward_input: {
    data: ReadonlyArray<{
      model_input: { chunks: ReadonlyArray<{ type: "encoded_text"; tokens: readonly number[] }> };
      loss_fn_inputs: Readonly<Record<string, WireTensor>>;
    }>;
    loss_fn: string;
    loss_fn_config?: Readonly<Record<string, number | string>> | null;
  };
}

function packed(values: readonly number[], dtype: "int32" | "int64" | "float32"): Uint8Array {
  const bytes = new Uint8Array(values.length * (dtype === "int64" ? 8 : 4));
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => {
    if (dtype === "int32") view.setInt32(i * 4, v, true);
    else if (dtype === "float32") view.setFloat32(i * 4, v, true);
    else view.setBigInt64(i * 8, BigInt(v), true);
  });
  return bytes;
}

function unpacked(bytes: Uint8Array, dtype: DType): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = [];
  switch (dtype) {
    case DType.DTYPE_FLOAT32:
      for (let i = 0; i + 4 <= bytes.byteLength; i += 4) out.push(view.getFloat32(i, true));
      return out;
    case DType.DTYPE_INT32:
      for (let i = 0; i + 4 <= bytes.byteLength; i += 4) out.push(view.getInt32(i, true));
      return out;
    case DType.DTYPE_INT64:
      for (let i = 0; i + 8 <= bytes.byteLength; i += 8)
        out.push(Number(view.getBigInt64(i, true)));
      return out;
    case DType.DTYPE_BFLOAT16:
      // bfloat16 is the upper half of a float32.
      for (let i = 0; i + 2 <= bytes.byteLength; i += 2)
        out.push(
          new Float32Array(new Uint32Array([view.getUint16(i, true) << 16]).buffer)[0] as number,
        );
      return out;
    default:
      throw new SpadeError(
        "E_POLICY_OUTPUT",
        `the engine answered a tensor of unknown dtype ${dtype}`,
        { nextStep: "update SPADE: the engine speaks a newer Tinker protocol" },
      );
  }
}

const DTYPE_OF = { float32: DType.DTYPE_FLOAT32, int64: DType.DTYPE_INT64 } as const;
/** Public dtypes collapse integer widths to int64 and bfloat16 to float32, as the SDK does. */
const PUBLIC_DTYPE = (dtype: DType): WireTensor["dtype"] =>
  dtype === DType.DTYPE_INT64 || dtype === DType.DTYPE_INT32 ? "int64" : "float32";

function tensorMessage(name: string, t: WireTensor): Tensor {
  const dtype = DTYPE_OF[t.dtype];
  if (dtype === undefined)
    throw new SpadeError(
      "E_CONFIG",
      `loss_fn_inputs.${name} has dtype ${String(t.dtype)}; the Tinker protocol carries float32 and int64`,
    );
  return create(TensorSchema, {
    dtype,
    shape: t.shape.map(BigInt),
    encoding: { case: "dense", value: packed(t.data, t.dtype) },
  });
}

/** Entries in key order: maps are written sorted, as protobuf's deterministic serialization writes them. */
const byKey = <T>(record: Readonly<Record<string, T>>): Array<[string, T]> =>
  Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * A `forward_backward` body as the SDK's protobuf bytes: every `loss_fn_config` number is written
 * to both the legacy map and `loss_fn_config_v2` (strings to v2 only), as the SDK does. The bytes
 * equal the SDK's message serialized deterministically (map entries in key order; the SDK itself
 * writes them in its hash table's order, which a server cannot tell apart).
 */
export function encodeForwardBackward(body: ForwardBackwardBody, forwardOnly = false): Uint8Array {
  const input = body.forward_backward_input;
  const lossFnConfig: Record<string, number> = {};
  const lossFnConfigV2: Record<string, LossConfigValue> = {};
  for (const [key, value] of byKey(input.loss_fn_config ?? {})) {
    if (typeof value === "string") {
      lossFnConfigV2[key] = create(LossConfigValueSchema, { value: { case: "text", value } });
    } else {
      lossFnConfig[key] = value;
      lossFnConfigV2[key] = create(LossConfigValueSchema, { value: { case: "number", value } });
    }
  }
  const data = input.data.map((datum) =>
    create(DatumSchema, {
      modelInput: datum.model_input.chunks.map((chunk) => {
        if (chunk.type !== "encoded_text")
          throw new SpadeError(
            "E_CONFIG",
            `model_input chunks of type ${String(chunk.type)} cannot be sent; SPADE trains on token ids`,
          );
        return {
          chunk: { case: "encodedText" as const, value: { tokens: packed(chunk.tokens, "int32") } },
        };
      }),
      lossFnInputs: Object.fromEntries(
        byKey(datum.loss_fn_inputs).map(([name, t]) => [name, tensorMessage(name, t)]),
      ),
    }),
  );
  const message = create(ForwardBackwardRequestSchema, {
    modelId: body.model_id,
    seqId: body.seq_id,
    lossFn: input.loss_fn,
    lossFnConfig,
    lossFnConfigV2,
    forwardOnly,
    data,
  });
  return toBinary(ForwardBackwardRequestSchema, message);
}

/** The JSON shape of a `forward_backward` protobuf body (what a JSON client would have sent). */
export function decodeForwardBackward(bytes: Uint8Array): ForwardBackwardBody & {
  forward_only: boolean;
  loss_fn_config_v2: Record<string, number | string>;
} {
  const m = fromBinary(ForwardBackwardRequestSchema, bytes);
  const tensor = (t: Tensor): WireTensor => {
    if (t.encoding.case !== "dense")
      throw new SpadeError("E_POLICY_OUTPUT", "sparse tensors are not decoded here");
    return {
      data: unpacked(t.encoding.value, t.dtype),
      dtype: PUBLIC_DTYPE(t.dtype),
      shape: t.shape.map(Number),
    };
  };
  const config = Object.keys(m.lossFnConfig).length ? { ...m.lossFnConfig } : null;
  return {
    model_id: m.modelId,
    seq_id: m.seqId,
    forward_only: m.forwardOnly,
    loss_fn_config_v2: Object.fromEntries(
      Object.entries(m.lossFnConfigV2).map(([k, v]) => [k, v.value.value as number | string]),
    ),
    forward_backward_input: {
      loss_fn: m.lossFn,
      loss_fn_config: config,
      data: m.data.map((d) => ({
        model_input: {
          chunks: d.modelInput.map((c) => {
            if (c.chunk.case !== "encodedText")
              throw new SpadeError(
                "E_POLICY_OUTPUT",
                `model_input chunk ${String(c.chunk.case)} is not token ids`,
              );
            return {
              type: "encoded_text" as const,
              tokens: unpacked(c.chunk.value.tokens, DType.DTYPE_INT32),
            };
          }),
        },
        loss_fn_inputs: Object.fromEntries(
          Object.entries(d.lossFnInputs).map(([k, t]) => [k, tensor(t)]),
        ),
      })),
    },
  };
}

/** Per datum, its slices of a batched output tensor (`offsets` are byte offsets into `data`). */
function perDatum(bt: BatchedTensor): number[][] {
  const values = unpacked(bt.data, bt.dtype);
  const offsets = unpacked(bt.offsets, DType.DTYPE_INT64);
  const itemBytes = bt.dtype === DType.DTYPE_INT64 ? 8 : bt.dtype === DType.DTYPE_BFLOAT16 ? 2 : 4;
  const out: number[][] = [];
  for (let i = 0; i + 1 < offsets.length; i++)
    out.push(
      values.slice((offsets[i] as number) / itemBytes, (offsets[i + 1] as number) / itemBytes),
    );
  return out;
}

/**
 * A protobuf `ForwardBackwardOutput` in the JSON API's shape: `{loss_fn_output_type,
 * loss_fn_outputs: [{name: {data, dtype, shape}}], metrics}`, one output per datum across all
 * record chunks, shapes `[leading, ...trailing_shape]`.
 */
export function decodeForwardBackwardOutput(bytes: Uint8Array): {
  loss_fn_output_type: string;
  loss_fn_outputs: Array<Record<string, WireTensor>>;
  metrics: Record<string, number>;
} {
  const m = fromBinary(ForwardBackwardOutputSchema, bytes);
  const outputs: Array<Record<string, WireTensor>> = [];
  for (const record of m.lossFnOutputs) {
    const fields = Object.entries(record.fields).map(([name, bt]) => ({
      name,
      bt,
      slices: perDatum(bt),
    }));
    const count = Number(record.numDatums) || (fields[0]?.slices.length ?? 0);
    for (let i = 0; i < count; i++) {
      const datum: Record<string, WireTensor> = {};
      for (const { name, bt, slices } of fields) {
        const data = slices[i] ?? [];
        const trailing = bt.trailingShape.map(Number);
        const inner = trailing.reduce((a, b) => a * b, 1);
        datum[name] = {
          data,
          dtype: PUBLIC_DTYPE(bt.dtype),
          shape: [inner ? data.length / inner : 0, ...trailing],
        };
      }
      outputs.push(datum);
    }
  }
  return {
    loss_fn_output_type: m.lossFnOutputType.split(":").pop() ?? "",
    loss_fn_outputs: outputs,
    metrics: { ...m.metrics },
  };
}

/** A protobuf `SampleResponse` in the JSON API's shape: `{sequences: [{tokens, logprobs, stop_reason}], prompt_logprobs}`. */
export function decodeSampleResponse(bytes: Uint8Array): {
  sequences: Array<{ tokens: number[]; logprobs: number[] | null; stop_reason: string }>;
  prompt_logprobs: number[] | null;
} {
  const m = fromBinary(SampleResponseSchema, bytes);
  return {
    sequences: m.sequences.map((s) => {
      const stop =
        s.stopReason === StopReason.STOP
          ? "stop"
          : s.stopReason === StopReason.LENGTH
            ? "length"
            : null;
      if (stop === null)
        throw new SpadeError(
          "E_POLICY_OUTPUT",
          `the engine answered an unknown stop reason ${s.stopReason}`,
          { nextStep: "update SPADE: the engine speaks a newer Tinker protocol" },
        );
      return {
        tokens: unpacked(s.tokens, DType.DTYPE_INT32),
        logprobs: s.logprobs?.length ? unpacked(s.logprobs, DType.DTYPE_FLOAT32) : null,
        stop_reason: stop,
      };
    }),
    prompt_logprobs: m.promptLogprobs?.length
      ? unpacked(m.promptLogprobs, DType.DTYPE_FLOAT32)
      : null,
  };
}

/** zstd-compresses a body (level 3, content size in the frame: what the SDK's `ZstdCompressor().compress` writes). */
export function zstdCompress(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(compress(bytes));
}

/** Decompresses one zstd frame; E_POLICY_OUTPUT when it is not one. */
export function zstdDecompress(bytes: Uint8Array): Uint8Array {
  try {
    return new Uint8Array(decompress(bytes));
  } catch (cause) {
    throw new SpadeError(
      "E_POLICY_OUTPUT",
      `a body marked zstd is not a zstd frame: ${(cause as Error).message}`,
      { cause },
    );
  }
}
