/**
 * @module sandbox/frames
 * The wire between the host and an isolated-vm sandbox process: length-prefixed frames on a byte
 * stream (a 4-byte little-endian length, then that many bytes of UTF-8 JSON). The host's reader
 * refuses a frame longer than its bound as soon as the length arrives, before buffering it.
 */
import { SpadeError } from "../errors.js";

/** Bytes of a frame's length prefix. */
export const FRAME_HEADER_BYTES = 4;

/** Largest length a prefix can state (2^32 - 1). */
export const MAX_FRAME_LENGTH = 0xffff_ffff;

/** One frame holding `text`: its UTF-8 byte length (4 bytes, little-endian), then the bytes. */
export function encodeFrame(text: string): Buffer {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_FRAME_LENGTH) {
    throw new SpadeError("E_SANDBOX_OUTPUT_SIZE", `a ${bytes}-byte message cannot be framed`, {
      nextStep: "send less: a message to a sandbox process is at most 4 GiB",
    });
  }
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + bytes);
  frame.writeUInt32LE(bytes, 0);
  frame.write(text, FRAME_HEADER_BYTES, "utf8");
  return frame;
}

/** Error of a frame whose stated length is over the reader's bound. */
export function frameTooLargeError(what: string, bytes: number, maxBytes: number): SpadeError {
  return new SpadeError(
    "E_SANDBOX_OUTPUT_SIZE",
    `${what} sent a ${bytes}-byte frame, over the ${maxBytes}-byte bound of its replies`,
    {
      nextStep: "return smaller answers (outputBytes); a sandbox process that oversteps is ended",
    },
  );
}

/**
 * Cuts a byte stream into frames. Chunks may split a frame (or its length) anywhere, and hold
 * several; the bytes of a frame are copied once, when it is complete.
 */
export class FrameReader {
  readonly #what: string;
  readonly #maxFrameBytes: () => number;
  #parts: Buffer[] = [];
  #size = 0;

  /**
   * `what` names the sender in errors ("the sandbox process"); `maxFrameBytes` gives the
   * longest frame accepted now (read when each length arrives).
   */
  constructor(what: string, maxFrameBytes: () => number) {
    this.#what = what;
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** Bytes received that do not yet make a whole frame. */
  get pendingBytes(): number {
    return this.#size;
  }

  /**
   * Adds `chunk`; returns the text of every frame it completed, in order. Throws
   * E_SANDBOX_OUTPUT_SIZE for a frame over the bound (the stream is then unusable).
   */
  push(chunk: Buffer): string[] {
    const frames: string[] = [];
    if (chunk.length === 0) return frames;
    this.#parts.push(chunk);
    this.#size += chunk.length;
    while (this.#size >= FRAME_HEADER_BYTES) {
      const length = this.#header();
      const max = this.#maxFrameBytes();
      if (length > max) throw frameTooLargeError(this.#what, length, max);
      if (this.#size < FRAME_HEADER_BYTES + length) break;
      const frame = this.#take(FRAME_HEADER_BYTES + length);
      frames.push(frame.toString("utf8", FRAME_HEADER_BYTES));
    }
    return frames;
  }

  /** The length prefix at the front (it may straddle chunks). */
  #header(): number {
    const first = this.#parts[0] as Buffer;
    if (first.length >= FRAME_HEADER_BYTES) return first.readUInt32LE(0);
    return Buffer.concat(this.#parts, FRAME_HEADER_BYTES).readUInt32LE(0);
  }

  /** Removes the first `n` bytes (all buffered) and returns them, copying only across chunks. */
  #take(n: number): Buffer {
    const first = this.#parts[0] as Buffer;
    let taken: Buffer;
    if (first.length >= n) {
      taken = first.subarray(0, n);
      if (first.length === n) this.#parts.shift();
      else this.#parts[0] = first.subarray(n);
    } else {
      taken = Buffer.concat(this.#parts, n);
      let left = n;
      while (left > 0) {
        const part = this.#parts[0] as Buffer;
        if (part.length <= left) {
          this.#parts.shift();
          left -= part.length;
        } else {
          this.#parts[0] = part.subarray(left);
          left = 0;
        }
      }
    }
    this.#size -= n;
    return taken;
  }
}
