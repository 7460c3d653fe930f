import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { codeOf } from "../../test/assert.js";
import {
  DType,
  ForwardBackwardOutputSchema,
  ForwardBackwardRequestSchema,
  SampleResponseSchema,
  StopReason,
} from "./third_party/tinker-proto/tinker_public_pb.js";
import {
  decodeForwardBackward,
  decodeForwardBackwardOutput,
  decodeSampleResponse,
  encodeForwardBackward,
  zstdCompress,
  zstdDecompress,
  type ForwardBackwardBody,
} from "./tinker-wire.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const fromHex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

const BODY: ForwardBackwardBody = {
  model_id: "m-1",
  seq_id: 3,
  forward_backward_input: {
    loss_fn: "ppo",
    loss_fn_config: { clip_low_threshold: 0.8, mode: "token" },
    data: [
      {
        model_input: { chunks: [{ type: "encoded_text", tokens: [1, 258] }] },
        loss_fn_inputs: {
          target_tokens: { data: [258, -1], dtype: "int64", shape: [2] },
          advantages: { data: [0.5, -2], dtype: "float32", shape: [2] },
        },
      },
    ],
  },
};

describe("encodeForwardBackward", () => {
  it("packs tokens as int32, float tensors as float32 and integer tensors as int64, little-endian", () => {
    const message = fromBinary(ForwardBackwardRequestSchema, encodeForwardBackward(BODY));
    expect([message.modelId, message.seqId, message.lossFn, message.forwardOnly]).toEqual([
      "m-1",
      3,
      "ppo",
      false,
    ]);
    const datum = message.data[0]!;
    expect(datum.modelInput[0]!.chunk.case).toBe("encodedText");
    expect(hex((datum.modelInput[0]!.chunk.value as { tokens: Uint8Array }).tokens)).toBe(
      "01000000" + "02010000",
    );
    const targets = datum.lossFnInputs.target_tokens!;
    expect([targets.dtype, targets.shape, hex(targets.encoding.value as Uint8Array)]).toEqual([
      DType.DTYPE_INT64,
      [2n],
      "0201000000000000" + "ffffffffffffffff",
    ]);
    const advantages = datum.lossFnInputs.advantages!;
    expect([advantages.dtype, hex(advantages.encoding.value as Uint8Array)]).toEqual([
      DType.DTYPE_FLOAT32,
      "0000003f" + "000000c0",
    ]);
  });

  it("writes config numbers to both maps and strings to v2 only, as the SDK does", () => {
    const message = fromBinary(ForwardBackwardRequestSchema, encodeForwardBackward(BODY));
    expect(message.lossFnConfig).toEqual({ clip_low_threshold: 0.8 });
    expect(
      Object.fromEntries(Object.entries(message.lossFnConfigV2).map(([k, v]) => [k, v.value])),
    ).toEqual({
      clip_low_threshold: { case: "number", value: 0.8 },
      mode: { case: "text", value: "token" },
    });
  });

  it("writes map entries in key order, so the bytes do not depend on the order keys were set in", () => {
    const reordered = structuredClone(BODY) as unknown as {
      forward_backward_input: { data: Array<{ loss_fn_inputs: Record<string, unknown> }> };
    };
    const inputs = reordered.forward_backward_input.data[0]!.loss_fn_inputs;
    reordered.forward_backward_input.data[0]!.loss_fn_inputs = {
      advantages: inputs.advantages,
      target_tokens: inputs.target_tokens,
    };
    expect(hex(encodeForwardBackward(reordered as unknown as ForwardBackwardBody))).toBe(
      hex(encodeForwardBackward(BODY)),
    );
  });

  it("decodes back into the JSON shape exactly (float32 values that are exact stay exact)", () => {
    const decoded = decodeForwardBackward(encodeForwardBackward(BODY, true));
    expect(decoded).toEqual({
      model_id: "m-1",
      seq_id: 3,
      forward_only: true,
      loss_fn_config_v2: { clip_low_threshold: 0.8, mode: "token" },
      forward_backward_input: {
        loss_fn: "ppo",
        loss_fn_config: { clip_low_threshold: 0.8 },
        data: [
          {
            model_input: { chunks: [{ type: "encoded_text", tokens: [1, 258] }] },
            loss_fn_inputs: BODY.forward_backward_input.data[0]!.loss_fn_inputs,
          },
        ],
      },
    });
  });

  it("refuses dtypes and chunks the protocol cannot carry with E_CONFIG", () => {
    const badDtype = structuredClone(BODY) as any;
    badDtype.forward_backward_input.data[0].loss_fn_inputs.advantages.dtype = "float64";
    expect(codeOf(() => encodeForwardBackward(badDtype))).toBe("E_CONFIG");
    const badChunk = structuredClone(BODY) as any;
    badChunk.forward_backward_input.data[0].model_input.chunks[0].type = "image";
    expect(codeOf(() => encodeForwardBackward(badChunk))).toBe("E_CONFIG");
  });
});

/** Little-endian bytes. */
function le(values: number[], kind: "f32" | "i32" | "i64" | "bf16"): Uint8Array {
  const size = kind === "i64" ? 8 : kind === "bf16" ? 2 : 4;
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => {
    if (kind === "f32") view.setFloat32(i * 4, v, true);
    else if (kind === "i32") view.setInt32(i * 4, v, true);
    else if (kind === "i64") view.setBigInt64(i * 8, BigInt(v), true);
    else view.setUint16(i * 2, v, true);
  });
  return out;
}

describe("decodeForwardBackwardOutput", () => {
  it("slices batched tensors per datum across record chunks, widening int32 to int64 and bfloat16 to float32", () => {
    const bytes = toBinary(
      ForwardBackwardOutputSchema,
      create(ForwardBackwardOutputSchema, {
        lossFnOutputType: "tinker.types:ArrayRecord",
        metrics: { "loss:sum": -1.5 },
        lossFnOutputs: [
          {
            numDatums: 2n,
            fields: {
              logprobs: {
                data: le([-0.5, -0.25, -1], "f32"),
                offsets: le([0, 8, 12], "i64"),
                dtype: DType.DTYPE_FLOAT32,
                trailingShape: [],
              },
              ids: {
                data: le([7, 8, 9], "i32"),
                offsets: le([0, 4, 12], "i64"),
                dtype: DType.DTYPE_INT32,
                trailingShape: [],
              },
            },
          },
          // 0x3fc0 is bfloat16 1.5; 0xbf80 is -1. One datum of shape [1, 2].
          {
            numDatums: 0n,
            fields: {
              logprobs: {
                data: le([0x3fc0, 0xbf80], "bf16"),
                offsets: le([0, 4], "i64"),
                dtype: DType.DTYPE_BFLOAT16,
                trailingShape: [2n],
              },
            },
          },
        ],
      }),
    );
    expect(decodeForwardBackwardOutput(bytes)).toEqual({
      loss_fn_output_type: "ArrayRecord",
      metrics: { "loss:sum": -1.5 },
      loss_fn_outputs: [
        {
          logprobs: { data: [-0.5, -0.25], dtype: "float32", shape: [2] },
          ids: { data: [7], dtype: "int64", shape: [1] },
        },
        {
          logprobs: { data: [-1], dtype: "float32", shape: [1] },
          ids: { data: [8, 9], dtype: "int64", shape: [2] },
        },
        { logprobs: { data: [1.5, -1], dtype: "float32", shape: [1, 2] } },
      ],
    });
  });
});

describe("decodeSampleResponse", () => {
  it("reads tokens, logprobs (absent: null) and stop reasons; an unknown stop reason is E_POLICY_OUTPUT", () => {
    const bytes = toBinary(
      SampleResponseSchema,
      create(SampleResponseSchema, {
        sequences: [
          {
            stopReason: StopReason.STOP,
            tokens: le([5, 70000], "i32"),
            logprobs: le([-0.5, -0.125], "f32"),
          },
          { stopReason: StopReason.LENGTH, tokens: le([3], "i32") },
        ],
      }),
    );
    expect(decodeSampleResponse(bytes)).toEqual({
      sequences: [
        { tokens: [5, 70000], logprobs: [-0.5, -0.125], stop_reason: "stop" },
        { tokens: [3], logprobs: null, stop_reason: "length" },
      ],
      prompt_logprobs: null,
    });
    const unknown = toBinary(
      SampleResponseSchema,
      create(SampleResponseSchema, {
        sequences: [{ stopReason: 7 as StopReason, tokens: le([1], "i32") }],
      }),
    );
    expect(codeOf(() => decodeSampleResponse(unknown))).toBe("E_POLICY_OUTPUT");
  });
});

describe("zstd", () => {
  it("writes the frame the SDK's zstandard writes (level 3, content size) and reads it back", () => {
    const text = new TextEncoder().encode("hello hello hello hello");
    // python -c "import zstandard; print(zstandard.ZstdCompressor().compress(b'hello hello hello hello').hex())"
    expect(hex(zstdCompress(text))).toBe("28b52ffd20176500003068656c6c6f200100994b11");
    expect(
      new TextDecoder().decode(
        zstdDecompress(fromHex("28b52ffd20176500003068656c6c6f200100994b11")),
      ),
    ).toBe("hello hello hello hello");
    expect(codeOf(() => zstdDecompress(fromHex("00010203")))).toBe("E_POLICY_OUTPUT");
  });
});
