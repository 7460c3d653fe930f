import { beforeAll, describe, expect, it } from "vitest";
import {
  archivedProgram,
  descriptionWords,
  DEFAULT_DUPLICATE_THRESHOLD,
  fingerprint,
  jaccard,
  sortedJaccard,
  normaliseCode,
  similarity,
  SHINGLE_TOKENS,
} from "./dedupe.js";
import { fnv1a32 } from "../random/index.js";
import { findDuplicate } from "./dedupe-index.js";
import {
  disguise,
  loadDedupeLibrary,
  type DedupeLibraryProgram,
} from "./testing/dedupe-library.js";

type LibraryProgram = DedupeLibraryProgram;

let library: LibraryProgram[] = [];

beforeAll(async () => {
  library = await loadDedupeLibrary();
});

describe("normaliseCode", () => {
  it.each([
    [
      'const a = "x"; // note\nlet b = 1.5e3 + a / 2;',
      ["const", "I", "=", "S", ";", "let", "I", "=", "N", "+", "I", "/", "N", ";"],
    ],
    [
      "return /ab+c/gi.test(s) ? x : y",
      ["return", "R", ".", "I", "(", "I", ")", "?", "I", ":", "I"],
    ],
    ["`a${ {k: `in${1}`}.k }b` + this.y", ["S", "+", "this", ".", "I"]],
    [
      "/* block\ncomment */ x >>>= 2; y?.z ?? w",
      ["I", ">>>=", "N", ";", "I", "?.", "I", "??", "I"],
    ],
    // After `(`, `=` or a keyword a slash starts a regular expression; after a name, `)` or `]` it divides.
    [
      "if (a) x = /re/.test(b); c = (d) / e[0] / f;",
      [
        "if",
        "(",
        "I",
        ")",
        "I",
        "=",
        "R",
        ".",
        "I",
        "(",
        "I",
        ")",
        ";",
        "I",
        "=",
        "(",
        "I",
        ")",
        "/",
        "I",
        "[",
        "N",
        "]",
        "/",
        "I",
        ";",
      ],
    ],
    [
      "class Environment { static meta = {}; #s = 0x1f; }",
      ["class", "I", "{", "static", "I", "=", "{", "}", ";", "I", "=", "N", ";", "}"],
    ],
  ])("%j", (source, tokens) => {
    expect(normaliseCode(source)).toEqual(tokens);
  });

  it("never throws on broken input", () => {
    for (const junk of [
      '"unterminated',
      "`open ${ template",
      "/* open comment",
      "a = /[unclosed",
      "\u0000\uffff@@ \\",
      "",
    ]) {
      expect(Array.isArray(normaliseCode(junk))).toBe(true);
    }
    expect(normaliseCode("")).toEqual([]);
  });
});

describe("similarity measures", () => {
  it("jaccard: |A∩B| / |A∪B|, 0 for two empty sets", () => {
    expect(jaccard(new Set([1, 2, 3]), new Set([2, 3, 4]))).toBe(0.5);
    expect(jaccard(new Set(), new Set())).toBe(0);
    expect(jaccard(new Set(["a"]), new Set())).toBe(0);
  });

  it("sortedJaccard: the same index over ascending arrays, as fingerprints hold their shingles", () => {
    const sorted = (...xs: number[]) => Uint32Array.from(xs);
    expect(sortedJaccard(sorted(1, 2, 3), sorted(2, 3, 4))).toBe(0.5);
    expect(sortedJaccard(sorted(1, 5, 9, 4_000_000_000), sorted(5, 4_000_000_000))).toBe(0.5);
    expect(sortedJaccard(sorted(7), sorted(1, 2, 3))).toBe(0);
    expect(sortedJaccard(sorted(), sorted())).toBe(0);
    expect(sortedJaccard(sorted(1), sorted())).toBe(0);
  });

  it("description words drop stopwords, case and punctuation", () => {
    expect([...descriptionWords("Find THE secret code, then open the vault!")]).toEqual([
      "find",
      "secret",
      "code",
      "open",
      "vault",
    ]);
  });

  it("a fingerprint's shingles are the FNV-1a hashes of its token windows joined by spaces", () => {
    for (const p of library) {
      const tokens = normaliseCode(p.source);
      const expected = new Set<number>();
      for (let i = 0; i + SHINGLE_TOKENS <= tokens.length; i++)
        expected.add(fnv1a32(tokens.slice(i, i + SHINGLE_TOKENS).join(" ")));
      expect(fingerprint(p.source, "").shingles, p.name).toEqual(Uint32Array.from(expected).sort());
    }
    expect(fingerprint("a + b;", "").shingles).toEqual(Uint32Array.of(fnv1a32("I + I ;")));
    expect(fingerprint("", "").shingles).toEqual(new Uint32Array());
  });

  it("the score is 0.8 code + 0.2 description", () => {
    const a = fingerprint("class Environment { step(a) { return a + 1; } }", "guess a number");
    const b = fingerprint("class Environment { step(b) { return b + 2; } }", "guess a word");
    expect(similarity(a, b)).toEqual({ code: 1, description: 1 / 3, score: 0.8 + 0.2 / 3 });
  });
});

describe("near-duplicates of the library", () => {
  it("no two different library programs are flagged (every pair)", () => {
    const flagged: string[] = [];
    let highest = 0;
    const prints = library.map((p) => fingerprint(p.source, p.description));
    for (let i = 0; i < library.length; i++) {
      for (let j = i + 1; j < library.length; j++) {
        const a = library[i] as LibraryProgram;
        const b = library[j] as LibraryProgram;
        const sim = similarity(
          prints[i] as ReturnType<typeof fingerprint>,
          prints[j] as ReturnType<typeof fingerprint>,
        );
        highest = Math.max(highest, sim.score);
        if (sim.score >= DEFAULT_DUPLICATE_THRESHOLD)
          flagged.push(`${a.name} ~ ${b.name}: ${sim.score.toFixed(3)}`);
      }
    }
    expect(library.length).toBeGreaterThanOrEqual(24);
    expect(flagged).toEqual([]);
    // Measured 0.21 with the library of 25; a wide margin under the threshold.
    expect(highest).toBeLessThan(0.3);
  });

  it("every library program, disguised (renamed identifiers, shifted numbers, new description), is a duplicate of itself only", () => {
    const archive = library.map((p) =>
      archivedProgram(`library:${p.name}`, p.name, p.source, p.description),
    );
    for (const p of library) {
      const copy = fingerprint(
        disguise(p.source),
        "A brand new puzzle about something else entirely.",
      );
      const match = findDuplicate(copy, archive);
      expect(match?.name, p.name).toBe(p.name);
      expect(match?.code, p.name).toBe(1);
      expect(match?.score, p.name).toBeGreaterThanOrEqual(0.8);
    }
  });

  it("a copy with a helper method and a new rule added is still a duplicate", () => {
    const vault = library.find((p) => p.name === "vault-cracker") as LibraryProgram;
    const edited = disguise(vault.source)
      .replace(
        "  hintQ() {",
        "  remainingQ() {\n    return EnvironmentQ.metaQ.maxTurnsQ - this.guessesQ.lengthQ;\n  }\n\n  hintQ() {",
      )
      .replace(
        "this.guessesQ.pushQ(guessQ);",
        "this.guessesQ.pushQ(guessQ);\n    if (this.guessesQ.lengthQ > 20) return { observationQ: 'too many', rewardQ: -1, terminatedQ: true, truncatedQ: false, infoQ: {} };",
      );
    expect(edited).not.toBe(disguise(vault.source));
    const sim = similarity(
      fingerprint(vault.source, vault.description),
      fingerprint(edited, "Pick a lock by guessing its combination."),
    );
    expect(sim.code).toBeCloseTo(0.8846, 4);
    expect(sim.score).toBeGreaterThanOrEqual(DEFAULT_DUPLICATE_THRESHOLD);
  });

  it("findDuplicate returns null below the threshold and the earliest of equal best matches", () => {
    const src =
      "class Environment { reset(s) { this.n = s * 2; return { observation: 'x', info: {} }; } }";
    const twin = archivedProgram("a", "first", src, "double it");
    const again = archivedProgram("b", "second", src, "double it");
    expect(findDuplicate(fingerprint(src, "double it"), [twin, again])).toMatchObject({
      id: "a",
      name: "first",
      code: 1,
      description: 1,
      score: 1,
    });
    expect(findDuplicate(fingerprint(src, "double it"), [twin], 1.01)).toBeNull();
    expect(findDuplicate(fingerprint(src, "double it"), [])).toBeNull();
  });
});
