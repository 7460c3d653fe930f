/**
 * @module designer/dedupe-shingles
 * The dedupe index's postings: which archived programs hold each shingle hash, in typed arrays.
 */

/**
 * Shingle hash -> the archived programs holding it, in typed arrays: millions of postings, and no
 * object per shingle for the garbage collector to walk. Open addressing (load at most 0.7); a
 * shingle held once keeps its program in its slot, one held more often keeps its programs in
 * chunks of 2, 4, 8... in one pool, each chunk contiguous, so reading a shingle's programs costs
 * a few cache misses, not one per program.
 */
export class ShingleTable {
  private keys = new Uint32Array(1 << 12);
  /** Programs holding the slot's shingle; 0: the slot is empty. */
  private counts = new Uint32Array(1 << 12);
  /** Count 1: the program; more: the pool offset of the newest chunk. */
  private refs = new Int32Array(1 << 12);
  private used = 0;
  /** Chunks: [older chunk's offset or -1, capacity, ...programs]. */
  private pool = new Int32Array(1 << 16);
  private poolUsed = 0;

  /** The slot of `key`: where it is, or the empty slot where it would go. */
  private probe(key: number): number {
    const mask = this.keys.length - 1;
    let slot = Math.imul(key ^ (key >>> 16), 0x45d9f3b) & mask;
    while (this.counts[slot] !== 0 && this.keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  /** The slot holding `key`, or -1. */
  find(key: number): number {
    const slot = this.probe(key);
    return this.counts[slot] === 0 ? -1 : slot;
  }

  /** How many programs hold the shingle in `slot` (0 for -1). */
  count(slot: number): number {
    return slot < 0 ? 0 : (this.counts[slot] as number);
  }

  /** Calls `visit` with every program holding the shingle in `slot` (a found slot), in no set order. */
  forEach(slot: number, visit: (program: number) => void): void {
    const count = this.counts[slot] as number;
    if (count === 1) {
      visit(this.refs[slot] as number);
      return;
    }
    const { pool } = this;
    let chunk = this.refs[slot] as number;
    // The newest chunk holds what the older ones (2 + 4 + ... = its capacity - 2) do not.
    let filled = count - (pool[chunk + 1] as number) + 2;
    while (chunk !== -1) {
      for (let i = 0; i < filled; i++) visit(pool[chunk + 2 + i] as number);
      chunk = pool[chunk] as number;
      if (chunk !== -1) filled = pool[chunk + 1] as number;
    }
  }

  /** A new chunk of `capacity` after `older`; its offset. */
  private chunk(older: number, capacity: number): number {
    if (this.poolUsed + 2 + capacity > this.pool.length) {
      const pool = new Int32Array(Math.max(this.pool.length * 2, this.poolUsed + 2 + capacity));
      pool.set(this.pool);
      this.pool = pool;
    }
    const at = this.poolUsed;
    this.pool[at] = older;
    this.pool[at + 1] = capacity;
    this.poolUsed += 2 + capacity;
    return at;
  }

  /** Records that `program` holds `key` (an unsigned 32-bit hash; once per program and key). */
  add(key: number, program: number): void {
    if ((this.used + 1) * 10 > this.keys.length * 7) this.rehash();
    const slot = this.probe(key);
    const count = this.counts[slot] as number;
    if (count === 0) {
      this.keys[slot] = key;
      this.refs[slot] = program;
      this.used++;
    } else if (count === 1) {
      const chunk = this.chunk(-1, 2);
      this.pool[chunk + 2] = this.refs[slot] as number;
      this.pool[chunk + 3] = program;
      this.refs[slot] = chunk;
    } else {
      let chunk = this.refs[slot] as number;
      const capacity = this.pool[chunk + 1] as number;
      let filled = count - capacity + 2;
      if (filled === capacity) {
        chunk = this.chunk(chunk, capacity * 2);
        this.refs[slot] = chunk;
        filled = 0;
      }
      this.pool[chunk + 2 + filled] = program;
    }
    this.counts[slot] = count + 1;
  }

  private rehash(): void {
    const { keys, counts, refs } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.counts = new Uint32Array(keys.length * 2);
    this.refs = new Int32Array(keys.length * 2);
    for (let old = 0; old < keys.length; old++) {
      if (counts[old] === 0) continue;
      const slot = this.probe(keys[old] as number);
      this.keys[slot] = keys[old] as number;
      this.counts[slot] = counts[old] as number;
      this.refs[slot] = refs[old] as number;
    }
  }
}
