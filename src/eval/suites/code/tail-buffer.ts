/**
 * @module eval/suites/code/tail-buffer
 * The last bytes of a child's output stream, which is all a run's result keeps of it: a program
 * may print without end, and its error is at the end.
 */

/** Keeps the last `max` bytes of a stream pushed to it in chunks. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}
  /** Adds `chunk`, dropping whole older chunks that the last `max` bytes no longer reach. */
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.max && this.chunks.length > 1) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }
  /** The last `max` bytes, as UTF-8 (a character cut at the start reads as U+FFFD). */
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.max)).toString("utf8");
  }
}
