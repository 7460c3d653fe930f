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
import { ShingleTable } from "./dedupe-shingles.js";

/** Slack on every bound, far above float rounding: a looser bound only scores one more program. */
const SLACK = 1e-9;

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
 * How many of its `size` elements a set shares, at least, with any set whose Jaccard index with
 * it reaches `atLeast` (`I >= atLeast * size`; at least 1). So such a set shares one of any
 * `size - leastOverlap + 1` of them: the prefix filter.
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
