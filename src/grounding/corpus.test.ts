import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/cleanup.js";
import { skipWithout } from "../../test/missing.js";
import { createSampler, DEFAULT_CORPUS_PATH, openCorpus } from "./index.js";
import { countWords } from "./truncate.js";

interface DefaultRecord {
  id: string;
  title: string;
  domain: string;
  text: string;
}

describe("the default corpus", () => {
  const records = readFileSync(DEFAULT_CORPUS_PATH, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as DefaultRecord);

  it('lives in src/grounding/corpus and opens as "default"', async () => {
    expect(
      DEFAULT_CORPUS_PATH.replaceAll("\\", "/").endsWith("/src/grounding/corpus/default.jsonl"),
    ).toBe(true);
    const corpus = await openCorpus("default");
    expect(corpus.path).toBe(DEFAULT_CORPUS_PATH);
    expect(corpus.size).toBe(records.length);
    expect(corpus.skipped).toBe(0);
    expect(await corpus.read(0)).toEqual({
      docId: records[0]!.id,
      text: records[0]!.text,
      index: 0,
      title: records[0]!.title,
    });
  });

  it("has at least 100 documents with unique ids and all four fields", () => {
    expect(records.length).toBeGreaterThanOrEqual(100);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    for (const r of records) {
      expect(Object.keys(r).sort()).toEqual(["domain", "id", "text", "title"]);
      expect(r.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(r.title.length).toBeGreaterThan(0);
    }
  });

  it("keeps every document between 80 and 250 words", () => {
    const outside = records
      .filter((r) => countWords(r.text) < 80 || countWords(r.text) > 250)
      .map((r) => r.id);
    expect(outside).toEqual([]);
  });

  it("spans many domains, including the ones the issue names", () => {
    const domains = new Set(records.map((r) => r.domain));
    expect(domains.size).toBeGreaterThanOrEqual(20);
    for (const d of [
      "chemistry",
      "physics",
      "history",
      "cooking",
      "law",
      "sport",
      "finance",
      "music",
      "geography",
      "medicine",
      "engineering",
      "games",
      "logistics",
      "software",
      "linguistics",
    ]) {
      expect(domains.has(d)).toBe(true);
    }
  });

  it("samples with titles and no truncation (documents are short)", async () => {
    const sampler = createSampler(await openCorpus("default"), { seed: 3 });
    const doc = await sampler.next();
    const record = records[doc.index]!;
    expect(doc).toEqual({
      docId: record.id,
      text: record.text,
      index: doc.index,
      draw: 0,
      truncated: false,
      title: record.title,
    });
  });
});

// The team's shared sample (OpenStax sections, CC BY 4.0), read in place and never committed.
const OPENSTAX = fileURLToPath(
  new URL("../../../shared/corpus/openstax/derived/", import.meta.url),
);

describe.skipIf(
  skipWithout(
    existsSync(OPENSTAX)
      ? null
      : `the OpenStax sample is not at ${OPENSTAX} (../shared/corpus/openstax)`,
  ),
)("the shared OpenStax sample", () => {
  it("opens as a data folder of .jsonl.gz files and samples reproducibly", async () => {
    await withTempDir("spade-openstax-cache-", async (cacheDir) => {
      const corpus = await openCorpus(OPENSTAX, { cacheDir });
      expect(corpus).toMatchObject({ format: "folder", size: 2725, skipped: 0 });
      const first = await corpus.read(0);
      expect(first?.docId.startsWith("openstax/american-government/")).toBe(true);
      const sampler = createSampler(corpus, { seed: 4 });
      const drawn = [];
      for (let i = 0; i < 4; i++) drawn.push(await sampler.next());
      expect(drawn.map((d) => [d.index, d.docId, d.truncated])).toEqual(PINNED_OPENSTAX_DRAWS);
      // The third draw is a long section, cut at 6,000 words plus the marker's 5 words.
      expect(countWords(drawn[2]!.text)).toBe(6000 + 5);
      expect(drawn[2]!.text.endsWith("\n[Document truncated at ~6000 words]")).toBe(true);
    });
  });
});

/** First four draws for seed 4 (files in sorted path order, documents in file order). */
const PINNED_OPENSTAX_DRAWS: [number, string, boolean][] = [
  [1528, "openstax/life-liberty-and-pursuit-happiness/m84546", false],
  [431, "openstax/astronomy-2e/m59928", false],
  [1663, "openstax/microbiology/m58828", true],
  [2271, "openstax/us-history/m50078", false],
];
