/**
 * @module designer/dedupe-index
 * The dedupe archive as an inverted index: finds the same best near-duplicate as scoring every
 * archived program (designer/dedupe.ts explains the measure and why this is exact), scoring only
 * the few that could reach the threshold. Built incrementally, one program at a time.
 */
import {
  CODE_WEIGHT,
  DEFAULT_DUPLICATE_THRESHOLD,
  similarity,
  type ArchivedProgram,
  type DuplicateMatch,
  type Fingerprint,
} from "./dedupe.js";

/** Slack on every bound, far above float rounding: a looser bound only scores one more program. */
const SLACK = 1e-9;

/**
 * Shingle hash -> the archived programs holding it, in typed arrays: millions of postings, and no
 * object per shingle for the garbage collector to walk. Open addressing (load at most 0.7); a
 * shingle held once keeps its program in its slot, one held more often keeps its programs in
 * chunks of 2, 4, 8... in one pool, each chunk contiguous, so reading a shingle's programs costs
 * a few cache misses, not one per program.
 */
class ShingleTable {
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

  /** Records that `program` holds `key` (once per program and key). */
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

/** An archive `findDuplicate` searches. */
export interface DedupeArchive {
  /** How many programs it holds. */
  readonly size: number;
  /** Its programs, in archive order (a copy). */
  programs(): ArchivedProgram[];
  /**
   * The program most similar to `candidate` when its score reaches `threshold`, else null, as
   * if every program were scored, then every one of `after` (a few, scored one by one: a slot's
   * library examples). Ties go to the earlier program.
   */
  findDuplicate(
    candidate: Fingerprint,
    threshold?: number,
    after?: readonly ArchivedProgram[],
  ): DuplicateMatch | null;
}

/** The better of a match so far and `program`'s, ties to the one so far. */
function better(
  best: DuplicateMatch | null,
  candidate: Fingerprint,
  program: ArchivedProgram,
  threshold: number,
): DuplicateMatch | null {
  const sim = similarity(candidate, program.fingerprint);
  return sim.score >= threshold && (!best || sim.score > best.score)
    ? { id: program.id, name: program.name, ...sim }
    : best;
}

/**
 * The least overlap of a set of `size` elements with one whose Jaccard index with it reaches
 * `atLeast` (`I >= atLeast * size`), at least 1; the rest of the set, searched rarest first, is
 * the prefix that must hold a shared element.
 */
function leastOverlap(atLeast: number, size: number): number {
  return Math.max(1, Math.ceil(atLeast * size - SLACK * size));
}

/** A typed array twice as long, its start copied from `a`. */
function doubled<T extends Uint32Array | Uint8Array>(a: T): T {
  const b = new (a.constructor as new (length: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

/** The dedupe archive, indexed (see the module comment); append-only. */
export class DedupeIndex implements DedupeArchive {
  private readonly entries: ArchivedProgram[] = [];
  private readonly shingles = new ShingleTable();
  private readonly programsByWord = new Map<string, number[]>();
  /** Per program: its shingles and its words, counted. */
  private shingleCounts = new Uint32Array(64);
  private wordCounts = new Uint32Array(64);
  /** Per program, for the search under way (zero between searches): shingles shared in the prefix, words shared, whether touched. */
  private sharedShingles = new Uint32Array(64);
  private sharedWords = new Uint32Array(64);
  private touched = new Uint8Array(64);

  /** An index of `programs`, in order. */
  constructor(programs: Iterable<ArchivedProgram> = []) {
    for (const p of programs) this.add(p);
  }

  get size(): number {
    return this.entries.length;
  }

  programs(): ArchivedProgram[] {
    return this.entries.slice();
  }

  /** Appends `program` to the archive. */
  add(program: ArchivedProgram): void {
    const id = this.entries.length;
    if (id === this.touched.length) {
      this.shingleCounts = doubled(this.shingleCounts);
      this.wordCounts = doubled(this.wordCounts);
      this.sharedShingles = doubled(this.sharedShingles);
      this.sharedWords = doubled(this.sharedWords);
      this.touched = doubled(this.touched);
    }
    this.entries.push(program);
    const { shingles, words } = program.fingerprint;
    this.shingleCounts[id] = shingles.length;
    this.wordCounts[id] = words.size;
    for (const shingle of shingles) this.shingles.add(shingle, id);
    for (const word of words) {
      const ids = this.programsByWord.get(word);
      if (ids) ids.push(id);
      else this.programsByWord.set(word, [id]);
    }
  }

  /** The first `size` programs, as an archive that never sees the ones added later. */
  view(size = this.size): DedupeArchive {
    const count = Math.min(size, this.size);
    return {
      size: count,
      programs: () => this.entries.slice(0, count),
      findDuplicate: (candidate, threshold, after) =>
        this.search(candidate, threshold, after, count),
    };
  }

  findDuplicate(
    candidate: Fingerprint,
    threshold = DEFAULT_DUPLICATE_THRESHOLD,
    after: readonly ArchivedProgram[] = [],
  ): DuplicateMatch | null {
    return this.search(candidate, threshold, after, this.size);
  }

  /** `findDuplicate` over the first `count` programs. */
  private search(
    candidate: Fingerprint,
    threshold = DEFAULT_DUPLICATE_THRESHOLD,
    after: readonly ArchivedProgram[] = [],
    count = this.size,
  ): DuplicateMatch | null {
    let best: DuplicateMatch | null = null;
    // The code a program sharing no word with the candidate (description similarity 0) must share.
    const codeFloor = threshold / CODE_WEIGHT - SLACK;
    if (!(codeFloor > 0)) {
      // Any program reaches the threshold (or it is NaN): nothing to filter by.
      for (let id = 0; id < count; id++)
        best = better(best, candidate, this.entries[id] as ArchivedProgram, threshold);
    } else {
      const size = candidate.shingles.length;
      const words = candidate.words.size;
      // After the prefix, the candidate's shingles left unsearched: its least overlap less one.
      const unsearched = leastOverlap(codeFloor, size) - 1;
      this.touch(candidate, unsearched, count);
      // Ascending, so the first of equal best scores is kept.
      for (let id = 0; id < count; id++) {
        if (this.touched[id] === 0) continue;
        const shared = Math.min(
          (this.sharedShingles[id] as number) + unsearched,
          size,
          this.shingleCounts[id] as number,
        );
        const union = size + (this.shingleCounts[id] as number) - shared;
        const sharedWords = this.sharedWords[id] as number;
        const wordUnion = words + (this.wordCounts[id] as number) - sharedWords;
        const description = wordUnion === 0 ? 0 : sharedWords / wordUnion;
        const codeAtMost = union === 0 ? 0 : shared / union;
        this.sharedShingles[id] = 0;
        this.sharedWords[id] = 0;
        this.touched[id] = 0;
        if (CODE_WEIGHT * codeAtMost + (1 - CODE_WEIGHT) * description >= threshold - SLACK)
          best = better(best, candidate, this.entries[id] as ArchivedProgram, threshold);
      }
    }
    for (const program of after) best = better(best, candidate, program, threshold);
    return best;
  }

  /**
   * Marks in `touched` the programs among the first `count` that share a word with `candidate`
   * (all its words counted in `sharedWords`) or a shingle among its rarest, all but the last
   * `unsearched` (counted in `sharedShingles`).
   */
  private touch(candidate: Fingerprint, unsearched: number, count: number): void {
    const { shingles } = candidate;
    // Rarest first: count * 2^32 + position sorts by count, then by hash (shingles ascend).
    const slots = new Int32Array(shingles.length);
    const order = new Float64Array(shingles.length);
    for (let i = 0; i < shingles.length; i++) {
      const slot = this.shingles.find(shingles[i] as number);
      slots[i] = slot;
      order[i] = this.shingles.count(slot) * 2 ** 32 + i;
    }
    order.sort();
    for (let k = 0; k < shingles.length - unsearched; k++) {
      const slot = slots[(order[k] as number) % 2 ** 32] as number;
      if (slot < 0) continue;
      this.shingles.forEach(slot, (id) => {
        if (id >= count) return;
        this.sharedShingles[id] = (this.sharedShingles[id] as number) + 1;
        this.touched[id] = 1;
      });
    }
    for (const word of candidate.words) {
      for (const id of this.programsByWord.get(word) ?? []) {
        if (id >= count) break;
        this.sharedWords[id] = (this.sharedWords[id] as number) + 1;
        this.touched[id] = 1;
      }
    }
  }
}

/**
 * The archived program most similar to `candidate` when its score reaches `threshold`, else
 * null. Ties go to the earlier archive entry. An array is indexed for the call.
 */
export function findDuplicate(
  candidate: Fingerprint,
  archive: DedupeArchive | readonly ArchivedProgram[],
  threshold = DEFAULT_DUPLICATE_THRESHOLD,
): DuplicateMatch | null {
  const searched = "findDuplicate" in archive ? archive : new DedupeIndex(archive);
  return searched.findDuplicate(candidate, threshold);
}
