/**
 * @module sandbox/shared-lane
 * One direction of the shared-memory channel between the host and a QuickJS worker: a ring of
 * UTF-8 JSON records in a `SharedArrayBuffer`, and a message port for what does not fit. The
 * class is self-contained (no imports, no module state) because the worker runs its source too.
 */

/**
 * Int32 slots of the channel's header per lane: records sent, the reader's and writer's offsets,
 * and whether the reader sleeps (waits to be woken).
 */
export const LANE_HEADER_INTS = 4;
/** Bytes before the first ring: the two lanes' headers. */
export const CHANNEL_HEADER_BYTES = 2 * LANE_HEADER_INTS * 4;
/** Ring bytes per lane; a record that does not fit goes through the port. */
export const LANE_RING_BYTES = 256 * 1024;
/** The host -> worker lane and the worker -> host lane. */
export const TO_WORKER = 0;
export const TO_HOST = 1;

/** What `Atomics.waitAsync` returns without a timeout. */
type AsyncWait = { async: false; value: "not-equal" } | { async: true; value: Promise<"ok"> };

/** The `SharedArrayBuffer` of one host-worker channel (both lanes). */
export function newChannelBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(CHANNEL_HEADER_BYTES + 2 * LANE_RING_BYTES);
}

/**
 * One direction of the channel. The writer copies each record into the ring (`[length][sequence]
 * [UTF-8, padded to 4 bytes]`, a length of -1 marks a wrap to the start) and then publishes the
 * count of records sent; a record the ring has no room for is posted on the port instead, and the
 * reader takes record n from whichever of the two holds sequence n, so the order is the writer's.
 * Only the writer moves the tail and only the reader the head, each with an atomic store after
 * the bytes it covers are written or read, so neither side takes a lock.
 */
export class SharedLane {
  /** The most spins a reader skips after spins that came up empty. */
  static readonly MAX_SPIN_BACKOFF = 64;
  readonly #ctl: Int32Array;
  readonly #words: Int32Array;
  readonly #bytes: Uint8Array;
  readonly #count: number;
  readonly #headSlot: number;
  readonly #tailSlot: number;
  readonly #sleepSlot: number;
  readonly #size: number;
  readonly #post: (text: string) => void;
  readonly #take: () => string | undefined;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  /** Spins the reader skips before it spins again, and how many it skipped last (see `spin`). */
  #spinsToSkip = 0;
  #backoff = 0;
  /** Records sent (writer) or received (reader) by this side. */
  #done = 0;
  /** The offset this side owns: the tail for the writer, the head for the reader. */
  #offset = 0;

  /**
   * Lane `lane` of `buffer` (rings of `ringBytes`, a multiple of 4, after a header of
   * `headerBytes`); `post` sends a record on the port, `take` receives the next one from it.
   */
  constructor(
    buffer: SharedArrayBuffer,
    lane: number,
    headerBytes: number,
    ringBytes: number,
    post: (text: string) => void,
    take: () => string | undefined,
  ) {
    const start = headerBytes + lane * ringBytes;
    this.#ctl = new Int32Array(buffer, 0, headerBytes / 4);
    this.#words = new Int32Array(buffer, start, ringBytes / 4);
    this.#bytes = new Uint8Array(buffer, start, ringBytes);
    this.#count = lane * 4;
    this.#headSlot = lane * 4 + 1;
    this.#tailSlot = lane * 4 + 2;
    this.#sleepSlot = lane * 4 + 3;
    this.#size = ringBytes;
    this.#post = post;
    this.#take = take;
  }

  /** Sends one record (not yet announced to a sleeping reader: see `wake`). */
  send(text: string): void {
    const seq = this.#done + 1;
    if (!this.#writeRing(seq, text)) this.#post(text);
    this.#done = seq;
    Atomics.store(this.#ctl, this.#count, seq);
  }

  /**
   * Wakes the reader if it sleeps in `wait` or `waitAsync`. A reader that is awake finds the
   * record at its next `receive`: it announces its sleep before it checks the count, and the
   * writer publishes the count before it checks the sleep, so one of the two sees the other.
   */
  wake(): void {
    if (Atomics.load(this.#ctl, this.#sleepSlot) === 1) Atomics.notify(this.#ctl, this.#count);
  }

  /** Wakes the reader whatever it announced (the host, when the worker has exited). */
  wakeAlways(): void {
    Atomics.notify(this.#ctl, this.#count);
  }

  /** Whether a record is waiting to be received. */
  get ready(): boolean {
    return Atomics.load(this.#ctl, this.#count) !== this.#done;
  }

  /** The next record, or undefined when none has been sent since the last one received. */
  receive(): string | undefined {
    if (!this.ready) return undefined;
    const seq = this.#done + 1;
    const text = this.#readRing(seq) ?? this.#take();
    if (text === undefined) throw new Error(`shared lane: record ${seq} is missing`);
    this.#done = seq;
    return text;
  }

  /**
   * Spins up to `spinMicros` for a record (reader side) and says whether one is ready. A spin that
   * came up empty (the writer is slow, or has no core: the machine is loaded) skips the next 1, 2,
   * 4 ... 64 spins, and one that caught a record spins again next time.
   */
  spin(spinMicros: number): boolean {
    if (this.ready) return true;
    if (spinMicros <= 0) return false;
    if (this.#spinsToSkip > 0) {
      this.#spinsToSkip--;
      return false;
    }
    const until = performance.now() + spinMicros / 1000;
    while (performance.now() < until) {
      if (this.ready) {
        this.#backoff = 0;
        return true;
      }
    }
    this.#backoff = Math.min(SharedLane.MAX_SPIN_BACKOFF, this.#backoff * 2 || 1);
    this.#spinsToSkip = this.#backoff;
    return this.ready;
  }

  /** Blocks until a record is ready, spinning first (see `spin`) (worker side). */
  wait(spinMicros: number): void {
    if (this.spin(spinMicros)) return;
    Atomics.store(this.#ctl, this.#sleepSlot, 1);
    while (!this.ready) Atomics.wait(this.#ctl, this.#count, this.#done);
    Atomics.store(this.#ctl, this.#sleepSlot, 0);
  }

  /**
   * Resolves when a record is ready or `wake` is called (host side); undefined when one is ready
   * already. The reader counts as sleeping until it calls `awake`.
   */
  waitAsync(): Promise<unknown> | undefined {
    Atomics.store(this.#ctl, this.#sleepSlot, 1);
    // Node 20 has it unflagged; the project's \`lib\` (ES2023) does not declare it.
    const atomics = Atomics as unknown as {
      waitAsync(array: Int32Array, index: number, value: number): AsyncWait;
    };
    const waited = atomics.waitAsync(this.#ctl, this.#count, this.#done);
    if (waited.async) return waited.value;
    this.awake();
    return undefined;
  }

  /** The reader woken from `waitAsync` is awake: writers need not wake it until it waits again. */
  awake(): void {
    Atomics.store(this.#ctl, this.#sleepSlot, 0);
  }

  /** Copies a record into the ring if it fits before the head (or the end, or after a wrap). */
  #writeRing(seq: number, text: string): boolean {
    const tail = this.#offset;
    const head = Atomics.load(this.#ctl, this.#headSlot);
    // Four bytes always stay free before the end (for a wrap mark) and before the head (a full
    // ring is never mistaken for an empty one).
    let end = this.#writeAt(tail, tail < head ? head - 4 : this.#size - 4, seq, text);
    if (end < 0 && tail >= head) {
      end = this.#writeAt(0, head - 4, seq, text);
      if (end >= 0) this.#words[tail / 4] = -1;
    }
    if (end < 0) return false;
    this.#offset = end;
    Atomics.store(this.#ctl, this.#tailSlot, end);
    return true;
  }

  /** Writes a record at `at` if it ends by `limit`; returns where it ends, or -1. */
  #writeAt(at: number, limit: number, seq: number, text: string): number {
    if (limit - at < 8) return -1;
    const encoded = this.#encoder.encodeInto(text, this.#bytes.subarray(at + 8, limit));
    if (encoded.read < text.length) return -1;
    this.#words[at / 4] = encoded.written;
    this.#words[at / 4 + 1] = seq;
    return at + 8 + Math.ceil(encoded.written / 4) * 4;
  }

  #readRing(seq: number): string | undefined {
    const tail = Atomics.load(this.#ctl, this.#tailSlot);
    let head = this.#offset;
    if (head === tail) return undefined;
    if (this.#words[head / 4] === -1) head = 0;
    if (head === tail || this.#words[head / 4 + 1] !== seq) {
      this.#offset = head;
      Atomics.store(this.#ctl, this.#headSlot, head);
      return undefined;
    }
    const length = this.#words[head / 4] as number;
    const text = this.#decoder.decode(this.#bytes.subarray(head + 8, head + 8 + length));
    this.#offset = head + 8 + Math.ceil(length / 4) * 4;
    Atomics.store(this.#ctl, this.#headSlot, this.#offset);
    return text;
  }
}
