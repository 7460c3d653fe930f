import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { thrown } from "../../test/assert.js";
import { fileTempDir } from "../../test/cleanup.js";
import { isSpadeError } from "../errors.js";
import { openCorpus } from "./open.js";
import { indexAt, mix64, uniformAt } from "../random/index.js";
import { createSampler, MAX_ATTEMPTS_PER_DRAW, Sampler, type SamplerState } from "./sampler.js";
import type { Corpus, CorpusDocument } from "./types.js";

/** Test double: an in-memory corpus whose documents at `emptyIndices` read as null. */
function memoryCorpus(
  size: number,
  emptyIndices: (i: number) => boolean = () => false,
): Corpus & { reads: number[] } {
  const reads: number[] = [];
  return {
    path: "memory",
    format: "jsonl",
    size,
    skipped: 0,
    reads,
    async read(index: number): Promise<CorpusDocument | null> {
      reads.push(index);
      return emptyIndices(index)
        ? null
        : { docId: `m${index}`, text: `memory document ${index}`, index };
    },
  };
}

const dir = fileTempDir("spade-grounding-sampler-");
let corpus: Corpus;
beforeAll(async () => {
  const lines = Array.from({ length: 100 }, (_, i) =>
    JSON.stringify({ id: `d${i}`, text: `Document number ${i}.` }),
  );
  await writeFile(join(dir, "hundred.jsonl"), lines.join("\n") + "\n");
  corpus = await openCorpus(join(dir, "hundred.jsonl"));
});

describe("counter-based PRNG", () => {
  it("mixes with SplitMix64 (its published first outputs for seed 0)", () => {
    const gamma = 0x9e3779b97f4a7c15n;
    expect(mix64(gamma)).toBe(0xe220a8397b1dcdafn);
    expect(mix64((2n * gamma) & ((1n << 64n) - 1n))).toBe(0x6e789e6aa1b965f4n);
  });

  it("is a fixed function of (seed, draw, attempt)", () => {
    expect(uniformAt(42, 0)).toBe(0.42033322250773864);
    expect(uniformAt(42, 1)).toBe(0.828481111347401);
    expect(uniformAt(-1, 0)).toBe(0.0922700131368247);
    expect(Array.from({ length: 12 }, (_, d) => indexAt(100, 42, d))).toEqual([
      42, 82, 24, 47, 39, 94, 93, 46, 63, 80, 48, 1,
    ]);
  });

  it("spreads draws evenly (10,000 draws over 10 buckets)", () => {
    const counts = new Array<number>(10).fill(0);
    for (let d = 0; d < 10_000; d++) counts[indexAt(10, 7, d)]! += 1;
    expect(counts).toEqual([1012, 995, 1015, 954, 1021, 1070, 998, 950, 1008, 977]);
  });
});

describe("Sampler", () => {
  it("draws the seed's sequence, uniformly with replacement", async () => {
    const sampler = createSampler(corpus, { seed: 42 });
    expect(sampler.state()).toEqual({ version: 1, seed: 42, draws: 0, corpusSize: 100 });
    const first = await sampler.next();
    expect(first).toEqual({
      docId: "d42",
      text: "Document number 42.",
      index: 42,
      draw: 0,
      truncated: false,
    });
    const rest = [];
    for (let i = 0; i < 11; i++) rest.push((await sampler.next()).docId);
    expect(rest).toEqual([
      "d82",
      "d24",
      "d47",
      "d39",
      "d94",
      "d93",
      "d46",
      "d63",
      "d80",
      "d48",
      "d1",
    ]);
    expect(sampler.state()).toEqual({ version: 1, seed: 42, draws: 12, corpusSize: 100 });
  });

  it("resumed from a saved state, continues the uninterrupted sequence", async () => {
    const uninterrupted = createSampler(corpus, { seed: 1234 });
    const expected = [];
    for (let i = 0; i < 12; i++) expected.push(await uninterrupted.next());

    const before = createSampler(corpus, { seed: 1234 });
    const got = [];
    for (let i = 0; i < 5; i++) got.push(await before.next());
    const saved = JSON.parse(JSON.stringify(before.state())) as SamplerState;
    const resumed = createSampler(corpus, { state: saved });
    for (let i = 0; i < 7; i++) got.push(await resumed.next());
    expect(got).toEqual(expected);

    const viaStatic = Sampler.fromState(corpus, saved);
    expect(await viaStatic.next()).toEqual(expected[5]);
  });

  it("claims draw numbers at call time, so concurrent calls keep call order", async () => {
    const sampler = createSampler(corpus, { seed: 42 });
    const docs = await Promise.all([sampler.next(), sampler.next(), sampler.next()]);
    expect(docs.map((doc) => [doc.draw, doc.docId])).toEqual([
      [0, "d42"],
      [1, "d82"],
      [2, "d24"],
    ]);
  });

  it("truncates to maxWords (default 6,000; null keeps the whole text)", async () => {
    const cut = await createSampler(corpus, { seed: 42, maxWords: 2 }).next();
    expect(cut.text).toBe("Document number\n[Document truncated at ~2 words]");
    expect(cut.truncated).toBe(true);
    const whole = await createSampler(corpus, { seed: 42, maxWords: null }).next();
    expect(whole.text).toBe("Document number 42.");
    expect(() => createSampler(corpus, { seed: 42, maxWords: 0 })).toThrow(/maxWords/);
  });

  it("draws again (next attempt of the same draw) when a document reads as null", async () => {
    const double = memoryCorpus(100, (i) => i % 2 === 0);
    const sampler = createSampler(double, { seed: 42 });
    const doc = await sampler.next();
    // Draw 0: attempt 0 is index 42 (empty), attempt 1 is index 77.
    expect(double.reads).toEqual([42, 77]);
    expect(doc).toEqual({
      docId: "m77",
      text: "memory document 77",
      index: 77,
      draw: 0,
      truncated: false,
    });
    expect(sampler.state().draws).toBe(1);
  });

  it("fails with E_PARSE after MAX_ATTEMPTS_PER_DRAW empty reads", async () => {
    const double = memoryCorpus(10, () => true);
    await expect(createSampler(double, { seed: 1 }).next()).rejects.toMatchObject({
      code: "E_PARSE",
    });
    expect(double.reads.length).toBe(MAX_ATTEMPTS_PER_DRAW);
  });

  it("refuses inconsistent options and states with E_CONFIG", () => {
    const saved: SamplerState = { version: 1, seed: 42, draws: 3, corpusSize: 100 };
    expect(
      isSpadeError(
        thrown(() => createSampler(corpus, {})),
        "E_CONFIG",
      ),
    ).toBe(true);
    expect(
      isSpadeError(
        thrown(() => createSampler(corpus, { seed: 1.5 })),
        "E_CONFIG",
      ),
    ).toBe(true);
    expect(
      isSpadeError(
        thrown(() => createSampler(corpus, { seed: 7, state: saved })),
        "E_CONFIG",
      ),
    ).toBe(true);
    expect(createSampler(corpus, { seed: 42, state: saved }).state()).toEqual(saved);
    const otherCorpus = memoryCorpus(99);
    expect(thrown(() => createSampler(otherCorpus, { state: saved }))).toMatchObject({
      code: "E_CONFIG",
      message: expect.stringContaining("the saved sampler drew from 100 documents, memory has 99"),
    });
    for (const bad of [
      { ...saved, version: 2 },
      { ...saved, draws: -1 },
      { ...saved, seed: "42" },
      { ...saved, corpusSize: 0 },
    ]) {
      expect(
        isSpadeError(
          thrown(() => createSampler(corpus, { state: bad as SamplerState })),
          "E_CONFIG",
        ),
      ).toBe(true);
    }
  });
});
