/**
 * @module designer/dedupe-index
 * The dedupe archive as an inverted index: finds the same best near-duplicate as scoring every
 * archived program (designer/dedupe.ts explains the measure and why this is exact), scoring only
 * the few that could reach the threshold. Built incrementally, one program at a time.
 */
import {
  CODE_WEIGHT,
  DEFAULT_DUPLICATE_THRESHOLD,
  jaccard,
  similarity,
  type ArchivedProgram,
  type DuplicateMatch,
  type Fingerprint,
} from "./dedupe.js";

/**
 * The description similarity that splits the search: a program whose description is at least this
 * alike is found through the word index, any other must share code enough to be found through the
 * shingle index (`(threshold - (1 - CODE_WEIGHT) * DESCRIPTION_SPLIT) / CODE_WEIGHT`, 0.5625 at the
 * default threshold). Any value in (0, 1] gives the same answers; 0.25 scored fewest library
 * programs of 0.1, 0.25, 0.5 and 0.75 (10 of 24 against 11.5, 12 and 17 each).
 */
export const DESCRIPTION_SPLIT = 0.25;

/** Slack on every bound, far above float rounding: a looser bound only scores one more program. */
const SLACK = 1e-9;

/**
 * Shingle hash -> the archived programs holding it, newest first, in typed arrays (open addressing;
 * postings as linked lists in one pool): millions of postings, and no object per shingle for the
 * garbage collector to walk.
 */
class ShingleTable {
  private keys = new Uint32Array(1 << 12);
  /** Newest posting of the slot's shingle; -1: the slot is empty. */
  private heads = new Int32Array(1 << 12).fill(-1);
  private counts = new Uint32Array(1 << 12);
  private used = 0;
  private nextByPosting = new Int32Array(1 << 14);
  private programByPosting = new Int32Array(1 << 14);
  private postings = 0;

  /** The slot of `key`: where it is, or the empty slot where it would go. */
  private probe(key: number): number {
    const mask = this.keys.length - 1;
    let slot = Math.imul(key ^ (key >>> 16), 0x45d9f3b) & mask;
    while (this.heads[slot] !== -1 && this.keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  /** The slot holding `key`, or -1. */
  find(key: number): number {
    const slot = this.probe(key);
    return this.heads[slot] === -1 ? -1 : slot;
  }

  /** How many programs hold the shingle in `slot` (0 for -1). */
  count(slot: number): number {
    return slot < 0 ? 0 : (this.counts[slot] as number);
  }

  /** The newest posting of `slot`; follow with `next`, -1 ends. */
  head(slot: number): number {
    return this.heads[slot] as number;
  }

  next(posting: number): number {
    return this.nextByPosting[posting] as number;
  }

  program(posting: number): number {
    return this.programByPosting[posting] as number;
  }

  /** Records that `program` (newer than every program recorded so far) holds `key`. */
  add(key: number, program: number): void {
    if ((this.used + 1) * 2 > this.keys.length) this.rehash();
    if (this.postings === this.programByPosting.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.nextByPosting = grow(this.nextByPosting);
      this.programByPosting = grow(this.programByPosting);
    }
    const slot = this.probe(key);
    if (this.heads[slot] === -1) {
      this.keys[slot] = key;
      this.used++;
    }
    const posting = this.postings++;
    this.nextByPosting[posting] = this.heads[slot] as number;
    this.programByPosting[posting] = program;
    this.heads[slot] = posting;
    this.counts[slot] = (this.counts[slot] as number) + 1;
  }

  private rehash(): void {
    const { keys, heads, counts } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.heads = new Int32Array(keys.length * 2).fill(-1);
    this.counts = new Uint32Array(keys.length * 2);
    for (let old = 0; old < keys.length; old++) {
      if (heads[old] === -1) continue;
      const slot = this.probe(keys[old] as number);
      this.keys[slot] = keys[old] as number;
      this.heads[slot] = heads[old] as number;
      this.counts[slot] = counts[old] as number;
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

/** The dedupe archive, indexed (see the module comment); append-only. */
export class DedupeIndex implements DedupeArchive {
  private readonly entries: ArchivedProgram[] = [];
  private readonly shingles = new ShingleTable();
  private readonly programsByWord = new Map<string, number[]>();
  /** Per program, shared shingles counted by the current search; zero between searches. */
  private hits = new Uint32Array(64);
  /** Per program, whether the current search has it as a candidate. */
  private seen = new Uint8Array(64);

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
    this.entries.push(program);
    for (const shingle of program.fingerprint.shingles) this.shingles.add(shingle, id);
    for (const word of program.fingerprint.words) {
      const ids = this.programsByWord.get(word);
      if (ids) ids.push(id);
      else this.programsByWord.set(word, [id]);
    }
    if (id >= this.hits.length) {
      const hits = new Uint32Array(this.hits.length * 2);
      this.hits = hits;
      this.seen = new Uint8Array(hits.length);
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
    // The code a program with a description less alike than the split must share.
    const codeFloor = (threshold - (1 - CODE_WEIGHT) * DESCRIPTION_SPLIT) / CODE_WEIGHT - SLACK;
    if (!(codeFloor > 0)) {
      // The description alone can reach the threshold (or it is NaN): no bound on the code.
      for (let id = 0; id < count; id++)
        best = better(best, candidate, this.entries[id] as ArchivedProgram, threshold);
    } else {
      const candidates = this.candidates(candidate, codeFloor, count);
      const { shingles, words } = candidate;
      // Unsearched after the prefix: its least overlap less one.
      const unsearched = leastOverlap(codeFloor, shingles.length) - 1;
      for (const id of candidates) {
        const program = this.entries[id] as ArchivedProgram;
        const size = program.fingerprint.shingles.length;
        const shared = Math.min((this.hits[id] as number) + unsearched, shingles.length, size);
        this.hits[id] = 0;
        this.seen[id] = 0;
        const union = shingles.length + size - shared;
        const codeAtMost = union === 0 ? 0 : shared / union;
        const description = jaccard(words, program.fingerprint.words);
        const scoreAtMost = CODE_WEIGHT * codeAtMost + (1 - CODE_WEIGHT) * description;
        if (scoreAtMost >= threshold - SLACK) best = better(best, candidate, program, threshold);
      }
    }
    for (const program of after) best = better(best, candidate, program, threshold);
    return best;
  }

  /**
   * The programs among the first `count` that may be near-duplicates of `candidate`, ascending:
   * those sharing a word among its rarest words beyond its least overlap at `DESCRIPTION_SPLIT`,
   * and those sharing a shingle among its rarest beyond its least overlap at `codeFloor`; each
   * one's shingles shared within that prefix counted in `hits`.
   */
  private candidates(candidate: Fingerprint, codeFloor: number, count: number): number[] {
    const found: number[] = [];
    const note = (id: number) => {
      if (this.seen[id] === 0) {
        this.seen[id] = 1;
        found.push(id);
      }
    };
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
    const prefix = shingles.length - leastOverlap(codeFloor, shingles.length) + 1;
    for (let k = 0; k < prefix && k < shingles.length; k++) {
      const slot = slots[(order[k] as number) % 2 ** 32] as number;
      if (slot < 0) continue;
      for (let p = this.shingles.head(slot); p !== -1; p = this.shingles.next(p)) {
        const id = this.shingles.program(p);
        if (id >= count) continue;
        this.hits[id] = (this.hits[id] as number) + 1;
        note(id);
      }
    }
    const words = [...candidate.words]
      .map((word) => ({ word, ids: this.programsByWord.get(word) ?? [] }))
      .sort((a, b) => a.ids.length - b.ids.length || (a.word < b.word ? -1 : 1));
    const wordPrefix = words.length - leastOverlap(DESCRIPTION_SPLIT, words.length) + 1;
    for (let k = 0; k < wordPrefix && k < words.length; k++) {
      for (const id of (words[k] as { ids: number[] }).ids) {
        if (id >= count) break;
        note(id);
      }
    }
    return found.sort((a, b) => a - b);
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
