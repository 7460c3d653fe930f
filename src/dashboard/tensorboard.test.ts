/**
 * TensorBoard event encoding: CRC-32C against its published check value, the TFRecord framing,
 * the protobuf bytes of a scalar event, and which metrics become scalars.
 */
import { readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeAndMessageOf } from "../../test/assert.js";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import { mountTmpfs, skipWithoutTmpfs } from "../../test/tmpfs.js";
import {
  crc32c,
  EventFileWriter,
  maskedCrc32c,
  stepScalars,
  summaryEvent,
  tfRecord,
} from "./tensorboard.js";

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

describe.skipIf(skipWithoutTmpfs())("an event file on a full disk (tmpfs of 8 KiB)", () => {
  const tmp = tempDirsAfterEach("spade-tb-full-");
  it("is E_DISK_FULL with the caller's next step, not a run folder's resume", () => {
    const disk = tmp();
    const unmount = mountTmpfs(disk, "8k");
    try {
      const writer = EventFileWriter.create(join(disk, "tb"), 0, "resume the run");
      writeFileSync(join(disk, "filler"), Buffer.alloc(4096)); // the other page
      const values = [{ tag: "x".repeat(200), scalar: 1 }];
      const mid = codeAndMessageOf(() => {
        for (let step = 0; step < 100; step++) writer.write(step, values, 0);
      });
      expect(mid.code).toBe("E_DISK_FULL");
      expect(mid.message).toMatch(
        /^the disk holding .*\/tb\/events\.out\.tfevents\.0\..* is full \(ENOSPC: .*\) \(resume the run\)$/,
      );
      writer.close();
      // Full before the first event: run the command again; the file's descriptor is closed.
      const atStart = codeAndMessageOf(() => EventFileWriter.create(join(disk, "tb2"), 0));
      expect(atStart.code).toBe("E_DISK_FULL");
      expect(atStart.message).toMatch(
        new RegExp(`\\(free space on the disk holding ${disk}/tb2 and run the command again\\)$`),
      );
      expect(
        readdirSync("/proc/self/fd").map((fd) => readlinkOr(`/proc/self/fd/${fd}`)),
      ).not.toContain(atStart.message.match(/holding (\S+) is full/)?.[1]);
    } finally {
      unmount();
    }
  });
});

function readlinkOr(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}
