/**
 * TensorBoard event encoding: CRC-32C against its published check value, the TFRecord framing,
 * the protobuf bytes of a scalar event, and which metrics become scalars.
 */
import { describe, expect, it } from "vitest";
import { crc32c, maskedCrc32c, stepScalars, summaryEvent, tfRecord } from "./tensorboard.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("checksums and framing", () => {
  it("computes CRC-32C's check value and TFRecord's mask", () => {
    expect(crc32c(bytes("123456789"))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa); // RFC 3720 B.4: 32 bytes of zeros
    // mask = rotr15(crc) + 0xa282ead8 (mod 2^32)
    const crc = 0xe3069283;
    expect(maskedCrc32c(bytes("123456789"))).toBe(
      ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0,
    );
  });

  it("frames a record as length, masked CRC of the length, data, masked CRC of the data", () => {
    const record = tfRecord(bytes("abc"));
    const view = new DataView(record.buffer);
    expect(record.length).toBe(8 + 4 + 3 + 4);
    expect(view.getBigUint64(0, true)).toBe(3n);
    expect(view.getUint32(8, true)).toBe(maskedCrc32c(record.subarray(0, 8)));
    expect(new TextDecoder().decode(record.subarray(12, 15))).toBe("abc");
    expect(view.getUint32(15, true)).toBe(maskedCrc32c(bytes("abc")));
  });
});

describe("events", () => {
  it("encodes a scalar event field by field", () => {
    const event = summaryEvent(0, 3, [{ tag: "a", scalar: 1 }]);
    // wall_time (1, fixed64) 0.0; step (2, varint) 3; summary (5) { value (1) { tag (1) "a"; simple_value (2, fixed32) 1.0f } }
    expect([...event]).toEqual([
      0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 3, 0x2a, 10, 0x0a, 8, 0x0a, 1, 0x61, 0x15, 0, 0, 0x80,
      0x3f,
    ]);
  });

  it("turns every finite number of a step's metrics into a scalar, nested ones joined with /", () => {
    const scalars = stepScalars({
      step: 4,
      designSlots: 4,
      designsValid: 3,
      agentSuccess: 0.5,
      hintedSuccess: null,
      regenerated: true,
      train: { loss: -2, "agentLogRatio:mean": 0.01 },
      checkpoint: { step: 4 },
      huge: 1e39,
    });
    expect(scalars).toEqual([
      { tag: "designSlots", scalar: 4 },
      { tag: "designsValid", scalar: 3 },
      { tag: "agentSuccess", scalar: 0.5 },
      { tag: "train/loss", scalar: -2 },
      { tag: "train/agentLogRatio:mean", scalar: 0.01 },
      { tag: "validDesignRate", scalar: 0.75 },
    ]);
  });
});
