import { beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../random/index.js";
import {
  archivedProgram,
  DEFAULT_DUPLICATE_THRESHOLD,
  fingerprint,
  similarity,
  type ArchivedProgram,
  type DuplicateMatch,
  type Fingerprint,
} from "./dedupe.js";
import { DedupeIndex, findDuplicate } from "./dedupe-index.js";
import {
  disguise,
  loadDedupeLibrary,
  type DedupeLibraryProgram,
} from "./testing/dedupe-library.js";

/**
 * REFERENCE (test only): the exhaustive search the index must agree with, exactly as
 * `findDuplicate` was before the index: score every program, keep the first of the best, and
 * return it when it reaches the threshold.
 */
function bruteForce(
  candidate: Fingerprint,
  archive: readonly ArchivedProgram[],
  threshold = DEFAULT_DUPLICATE_THRESHOLD,
): DuplicateMatch | null {
  let best: DuplicateMatch | null = null;
  for (const entry of archive) {
    const sim = similarity(candidate, entry.fingerprint);
    if (!best || sim.score > best.score) best = { id: entry.id, name: entry.name, ...sim };
  }
  return best && best.score >= threshold ? best : null;
}

/** Thresholds across every path of the search: scored all (<= 0.05), split, unreachable (> 1). */
const THRESHOLDS = [0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.01];

let library: DedupeLibraryProgram[] = [];
beforeAll(async () => {
  library = await loadDedupeLibrary();
});

const libraryArchive = () =>
  library.map((p) => archivedProgram(`lib-${p.name}`, p.name, p.source, p.description));

/**
 * Random programs over a pool of statements and words: each keeps most of a run of 20 of the
 * pool's statements, and some words, so pairs range from unrelated to near-identical.
 */
function randomPrograms(count: number, seed: number): ArchivedProgram[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, i) => {
    const start = Math.floor(random() * 60);
    const body = STATEMENTS.slice(start, start + 20)
      .filter(() => random() < 0.8)
      .join("\n");
    const words = VOCABULARY.filter(() => random() < 0.3).join(" ");
    return archivedProgram(
      `r${i}`,
      `random-${i}`,
      `class Environment { step(a) { ${body} } }`,
      words,
    );
  });
}

/** The statements random programs are made of, distinct token shapes (one seed for every test). */
const STATEMENTS = (() => {
  const random = mulberry32(5);
  const ops = ["+", "-", "*", "<", "===", "&&", "??"];
  const op = () => ops[Math.floor(random() * ops.length)] as string;
  return Array.from({ length: 80 }, (_, i) => {
    const shape = i % 4;
    if (shape === 0) return `a ${op()} b ${op()} ${i};`;
    if (shape === 1) return `if (a ${op()} b) { c(${i}); }`;
    if (shape === 2) return `this.x.push([a, b ${op()} c]);`;
    return `for (const v of w) { v ${op()}= ${i}; }`;
  });
})();
const VOCABULARY = "grid code vault coin maze pebble lamp switch story label crate queue".split(
  " ",
);

describe("DedupeIndex agrees with the exhaustive search", () => {
  it("library programs against the library, at every threshold", () => {
    const archive = libraryArchive();
    const index = new DedupeIndex(archive);
    for (const p of archive)
      for (const t of THRESHOLDS)
        expect(index.findDuplicate(p.fingerprint, t), `${p.name} @ ${t}`).toEqual(
          bruteForce(p.fingerprint, archive, t),
        );
  });

  it("renamed copies of the library find their program, with the same score", () => {
    const archive = libraryArchive();
    const index = new DedupeIndex(archive);
    for (const p of library) {
      const copy = fingerprint(disguise(p.source), "A brand new puzzle about something else.");
      const match = index.findDuplicate(copy);
      expect(match, p.name).toEqual(bruteForce(copy, archive));
      expect(match?.id, p.name).toBe(`lib-${p.name}`);
      expect(match?.code, p.name).toBe(1);
      for (const t of THRESHOLDS)
        expect(index.findDuplicate(copy, t), `${p.name} @ ${t}`).toEqual(
          bruteForce(copy, archive, t),
        );
    }
  });

  it("random programs: decision, match and score, built one program at a time", () => {
    const archive = randomPrograms(300, 11);
    const index = new DedupeIndex();
    const candidates = randomPrograms(40, 12);
    // Decisions at the default threshold.
    const decisions = { duplicate: 0, not: 0 };
    for (let n = 0; n < archive.length; n++) {
      index.add(archive[n] as ArchivedProgram);
      if (n % 100 !== 99 && n !== 9) continue;
      const sofar = archive.slice(0, n + 1);
      for (const c of [...candidates, ...sofar.slice(-10)]) {
        for (const t of THRESHOLDS) {
          const expected = bruteForce(c.fingerprint, sofar, t);
          if (t === DEFAULT_DUPLICATE_THRESHOLD) decisions[expected ? "duplicate" : "not"]++;
          expect(
            index.findDuplicate(c.fingerprint, t),
            `${c.id} @ ${t}, ${n + 1} programs`,
          ).toEqual(expected);
        }
      }
    }
    // Not vacuous: the random pairs reach the default threshold often, and miss it often.
    expect(decisions).toEqual({ duplicate: 150, not: 50 });
  });

  it("a score exactly at the threshold is a duplicate; the next number above is not", () => {
    const archive = randomPrograms(80, 21);
    const index = new DedupeIndex(archive);
    let checked = 0;
    for (const c of randomPrograms(40, 22)) {
      const best = bruteForce(c.fingerprint, archive, Number.NEGATIVE_INFINITY) as DuplicateMatch;
      if (best.score <= 0.05 || best.score >= 1) continue;
      checked++;
      expect(index.findDuplicate(c.fingerprint, best.score)).toEqual(best);
      const above = best.score + Number.EPSILON;
      expect(index.findDuplicate(c.fingerprint, above)).toEqual(
        bruteForce(c.fingerprint, archive, above),
      );
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("a hand-made pair exactly at the default threshold: code 0.5 and description 0.5", () => {
    const a: Fingerprint = { shingles: Uint32Array.of(1, 2, 3), words: new Set(["x", "y", "z"]) };
    const b: Fingerprint = { shingles: Uint32Array.of(2, 3, 4), words: new Set(["y", "z", "w"]) };
    const archived = { id: "b", name: "b", fingerprint: b };
    const match = { id: "b", name: "b", code: 0.5, description: 0.5, score: 0.5 };
    expect(bruteForce(a, [archived])).toEqual(match);
    expect(new DedupeIndex([archived]).findDuplicate(a)).toEqual(match);
    expect(new DedupeIndex([archived]).findDuplicate(a, 0.5 + Number.EPSILON)).toBeNull();
  });

  it("an empty archive finds nothing, at any threshold; an empty candidate only by description", () => {
    const empty = new DedupeIndex();
    const vault = fingerprint(library[0]?.source ?? "", "find the code");
    for (const t of THRESHOLDS) expect(empty.findDuplicate(vault, t)).toBeNull();
    expect(findDuplicate(vault, [])).toBeNull();
    const blank: Fingerprint = { shingles: new Uint32Array(), words: new Set(["find", "code"]) };
    const archive = [archivedProgram("v", "vault", library[0]?.source ?? "", "find the code")];
    for (const t of THRESHOLDS)
      expect(new DedupeIndex(archive).findDuplicate(blank, t), `@ ${t}`).toEqual(
        bruteForce(blank, archive, t),
      );
    // Found by its words alone: 0.2 * 1 is 0.19999999999999996 in doubles.
    expect(new DedupeIndex(archive).findDuplicate(blank, 0.1)).toMatchObject({
      id: "v",
      code: 0,
      description: 1,
      score: 0.19999999999999996,
    });
    expect(new DedupeIndex(archive).findDuplicate(blank, 0.2)).toBeNull();
  });
});

describe("DedupeIndex", () => {
  it("ties go to the earlier program, and the archive before the examples after it", () => {
    const src = "class Environment { reset(s) { this.n = s * 2; return { observation: 'x' }; } }";
    const first = archivedProgram("a", "first", src, "double it");
    const second = archivedProgram("b", "second", src, "double it");
    const example = archivedProgram("lib-c", "third", src, "double it");
    const print = fingerprint(src, "double it");
    expect(new DedupeIndex([first, second]).findDuplicate(print)?.id).toBe("a");
    expect(new DedupeIndex([second, first]).findDuplicate(print)?.id).toBe("b");
    expect(new DedupeIndex([first]).findDuplicate(print, 0.5, [example])?.id).toBe("a");
    expect(new DedupeIndex().findDuplicate(print, 0.5, [example])).toMatchObject({
      id: "lib-c",
      score: 1,
    });
    // An example scoring higher than the archive's best wins.
    const near = archivedProgram("n", "near", src.replace("* 2", "* 2 + 1"), "double it");
    expect(new DedupeIndex([near]).findDuplicate(print, 0.5, [example])?.id).toBe("lib-c");
  });

  it("a view sees only the programs added before it", () => {
    const archive = libraryArchive();
    const index = new DedupeIndex(archive.slice(0, 10));
    const view = index.view();
    for (const p of archive.slice(10)) index.add(p);
    expect(view.size).toBe(10);
    expect(index.size).toBe(archive.length);
    expect(view.programs().map((p) => p.id)).toEqual(archive.slice(0, 10).map((p) => p.id));
    for (const p of archive) {
      expect(view.findDuplicate(p.fingerprint), p.id).toEqual(
        bruteForce(p.fingerprint, archive.slice(0, 10)),
      );
      expect(index.view(15).findDuplicate(p.fingerprint, 0.1), p.id).toEqual(
        bruteForce(p.fingerprint, archive.slice(0, 15), 0.1),
      );
    }
    expect(view.findDuplicate((archive[12] as ArchivedProgram).fingerprint)).toBeNull();
    expect(index.findDuplicate((archive[12] as ArchivedProgram).fingerprint)?.id).toBe(
      (archive[12] as ArchivedProgram).id,
    );
  });

  it("findDuplicate takes an index or an array", () => {
    const archive = libraryArchive();
    const copy = fingerprint(disguise(library[3]?.source ?? ""), "something else");
    expect(findDuplicate(copy, archive)).toEqual(bruteForce(copy, archive));
    expect(findDuplicate(copy, new DedupeIndex(archive))?.id).toBe(`lib-${library[3]?.name}`);
  });
});
