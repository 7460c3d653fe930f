/**
 * @module dashboard/tensorboard
 * TensorBoard event files: what `spade runs export --to tensorboard` and `spade run --log
 * tensorboard:DIR` write. An event file is a TFRecord stream (length, masked CRC-32C of it, the
 * bytes, their masked CRC-32C) of `Event` protobufs; scalars are `Summary.Value.simple_value`
 * (float32), text is a string tensor tagged for TensorBoard's text plugin. The messages are
 * encoded with @bufbuild/protobuf's wire writer; only the handful of fields TensorBoard reads.
 */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { guardIo } from "../store/index.js";

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli) of `bytes`, as TFRecord checksums use it. */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = (CRC32C_TABLE[(crc ^ b) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC: rotated right by 15 bits plus a constant, so CRCs of CRCs differ. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** One TFRecord: length (u64 LE), its masked CRC, the data, the data's masked CRC. */
export function tfRecord(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length + 4);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(data.length), true);
  view.setUint32(8, maskedCrc32c(out.subarray(0, 8)), true);
  out.set(data, 12);
  view.setUint32(12 + data.length, maskedCrc32c(data), true);
  return out;
}

/** A value of one event: a scalar or a text. */
export type SummaryValue = { tag: string; scalar: number } | { tag: string; text: string };

/** An `Event` with the file version (the first record of every file). */
function versionEvent(wallTimeSec: number): Uint8Array {
  return new BinaryWriter()
    .tag(1, WireType.Bit64)
    .double(wallTimeSec)
    .tag(3, WireType.LengthDelimited)
    .string("brain.Event:2")
    .finish();
}

/** An `Event` at `step` carrying a `Summary` of `values`. */
export function summaryEvent(
  wallTimeSec: number,
  step: number,
  values: readonly SummaryValue[],
): Uint8Array {
  const w = new BinaryWriter()
    .tag(1, WireType.Bit64)
    .double(wallTimeSec)
    .tag(2, WireType.Varint)
    .int64(step);
  w.tag(5, WireType.LengthDelimited).fork(); // Event.summary
  for (const v of values) {
    w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(v.tag); // Summary.value, .tag
    if ("scalar" in v) {
      w.tag(2, WireType.Bit32).float(v.scalar); // simple_value
    } else {
      w.tag(8, WireType.LengthDelimited).fork(); // tensor: DT_STRING, scalar shape, one string
      w.tag(1, WireType.Varint)
        .int32(7)
        .tag(2, WireType.LengthDelimited)
        .bytes(new Uint8Array(0))
        .tag(8, WireType.LengthDelimited)
        .string(v.text);
      w.join();
      w.tag(9, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.LengthDelimited)
        .string("text")
        .join()
        .join(); // metadata.plugin_data.plugin_name
    }
    w.join();
  }
  w.join();
  return w.finish();
}

/** Largest magnitude a float32 holds; larger scalars are left out rather than written as infinity. */
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * The scalars of one step's metrics as TensorBoard tags: every finite number, nested objects
 * joined with `/` (`train/loss`), plus `validDesignRate` on design steps. The checkpoint is left out.
 */
export function stepScalars(
  metrics: Record<string, unknown>,
): Array<{ tag: string; scalar: number }> {
  const out: Array<{ tag: string; scalar: number }> = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value === "number" && Number.isFinite(value) && Math.abs(value) <= FLOAT32_MAX)
      out.push({ tag: path, scalar: value });
    else if (typeof value === "object" && value !== null && !Array.isArray(value))
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}/${k}` : k);
  };
  for (const [key, value] of Object.entries(metrics))
    if (key !== "checkpoint" && key !== "step") walk(value, key);
  const slots = metrics.designSlots;
  if (typeof slots === "number" && slots > 0 && typeof metrics.designsValid === "number")
    out.push({ tag: "validDesignRate", scalar: metrics.designsValid / slots });
  return out;
}

/** E_DISK_FULL's next step for an event file in `dir` that no run continues. */
const runAgain = (dir: string) => `free space on the disk holding ${dir} and run the command again`;

/** An event file being written; each `write` is flushed to the file at once. */
export class EventFileWriter {
  readonly path: string;
  readonly #fd: number;
  readonly #onFull: string;

  private constructor(path: string, fd: number, onFull: string) {
    this.path = path;
    this.#fd = fd;
    this.#onFull = onFull;
  }

  /**
   * Creates `dir` when missing and a new event file in it (named as TensorBoard expects).
   * `onFull` is the next step of an E_DISK_FULL while writing (a run's: resume it); a full disk
   * before the first event says to run the command again.
   */
  static create(dir: string, nowMs: number, onFull = runAgain(dir)): EventFileWriter {
    const path = join(
      dir,
      `events.out.tfevents.${Math.floor(nowMs / 1000)}.${hostname()}.${process.pid}.spade`,
    );
    const fd = guardIo(
      path,
      () => {
        mkdirSync(dir, { recursive: true });
        const fd = openSync(path, "wx");
        try {
          writeSync(fd, tfRecord(versionEvent(nowMs / 1000)));
        } catch (err) {
          closeSync(fd);
          rmSync(path, { force: true });
          throw err;
        }
        return fd;
      },
      runAgain(dir),
    );
    return new EventFileWriter(path, fd, onFull);
  }

  #append(event: Uint8Array): void {
    const record = tfRecord(event);
    guardIo(this.path, () => writeSync(this.#fd, record), this.#onFull);
  }

  /** Writes one event at `step` with `values`. */
  write(step: number, values: readonly SummaryValue[], nowMs: number): void {
    if (values.length) this.#append(summaryEvent(nowMs / 1000, step, values));
  }

  close(): void {
    guardIo(this.path, () => closeSync(this.#fd));
  }

  /**
   * Closes (if still open) and removes the file, for a writer that failed part-way. Never throws:
   * the caller is already throwing the failure that matters.
   */
  discard(): void {
    for (const undo of [() => closeSync(this.#fd), () => rmSync(this.path, { force: true })]) {
      try {
        undo();
      } catch {
        // closed already (a failed close is why it is discarded), or the folder is unwritable
      }
    }
  }
}
