import { readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { fileTempDir } from "../../test/cleanup.js";
import { openCorpus } from "./open.js";

// Line 2 is blank (ignored), 4 is not JSON, 5 has no "text", 7 has blank text (3 skipped);
// line 6 ends in CRLF and line 8 has no final newline.
const FIXTURE = [
  '{"id":"a","text":"Alpha doc","title":"A"}',
  "",
  '{"text":"Beta doc"}',
  "not json",
  '{"id":7,"body":"no text here"}',
  '{"doc_id":"os/1","text":"Gamma – ünïcode ✓"}\r',
  '{"id":"d","text":"   "}',
  '{"id":"e","text":"Last line\\nhas no newline"}',
].join("\n");

const dir = fileTempDir("spade-grounding-jsonl-");
beforeAll(async () => {
  await writeFile(join(dir, "corpus.jsonl"), FIXTURE);
  await writeFile(join(dir, "corpus.jsonl.gz"), gzipSync(Buffer.from(FIXTURE)));
});

describe("JSONL corpus", () => {
  it("indexes usable lines, skips and counts the rest, reads each by offset", async () => {
    const corpus = await openCorpus(join(dir, "corpus.jsonl"));
    expect(corpus).toMatchObject({ format: "jsonl", size: 4, skipped: 3 });
    expect(await corpus.read(0)).toEqual({ docId: "a", text: "Alpha doc", index: 0, title: "A" });
    expect(await corpus.read(1)).toEqual({ docId: "corpus.jsonl:3", text: "Beta doc", index: 1 });
    expect(await corpus.read(2)).toEqual({ docId: "os/1", text: "Gamma – ünïcode ✓", index: 2 });
    expect(await corpus.read(3)).toEqual({
      docId: "e",
      text: "Last line\nhas no newline",
      index: 3,
    });
    await expect(corpus.read(4)).rejects.toMatchObject({ code: "E_CONFIG" });
    await expect(corpus.read(-1)).rejects.toMatchObject({ code: "E_CONFIG" });
  });

  it("takes the text and id fields from options", async () => {
    const byBody = await openCorpus(join(dir, "corpus.jsonl"), { textField: "body" });
    expect(byBody.size).toBe(1);
    expect(byBody.skipped).toBe(6);
    expect(await byBody.read(0)).toEqual({ docId: "7", text: "no text here", index: 0 });
    const byTitle = await openCorpus(join(dir, "corpus.jsonl"), { idField: "title" });
    expect((await byTitle.read(0))?.docId).toBe("A");
    expect((await byTitle.read(2))?.docId).toBe("corpus.jsonl:6");
  });

  it('fails on the first bad line with E_PARSE when onInvalid is "fail"', async () => {
    await expect(
      openCorpus(join(dir, "corpus.jsonl"), { onInvalid: "fail" }),
    ).rejects.toMatchObject({
      code: "E_PARSE",
      message: expect.stringContaining("corpus.jsonl line 4 is not a JSON object"),
    });
    await writeFile(join(dir, "notext.jsonl"), '{"text":"ok"}\n{"body":"x"}\n');
    await expect(
      openCorpus(join(dir, "notext.jsonl"), { onInvalid: "fail" }),
    ).rejects.toMatchObject({
      code: "E_PARSE",
      message: expect.stringContaining('notext.jsonl line 2 has no text in field "text"'),
    });
  });

  it("finds lines that cross the 1 MiB read chunks", async () => {
    const texts = Array.from({ length: 5 }, (_, i) => `doc${i} ` + "word ".repeat(120_000 + i * 7));
    await writeFile(
      join(dir, "big.jsonl"),
      texts.map((text, i) => JSON.stringify({ id: `big${i}`, text })).join("\n") + "\n",
    );
    const corpus = await openCorpus(join(dir, "big.jsonl"));
    expect(corpus.size).toBe(5);
    for (let i = 4; i >= 0; i--)
      expect(await corpus.read(i)).toEqual({ docId: `big${i}`, text: texts[i], index: i });
  });

  it("reads .jsonl.gz through one inflated copy in the cache folder", async () => {
    const cacheDir = join(dir, "cache");
    const corpus = await openCorpus(join(dir, "corpus.jsonl.gz"), { cacheDir });
    expect(corpus).toMatchObject({ format: "jsonl.gz", size: 4, skipped: 3 });
    expect(await corpus.read(1)).toEqual({
      docId: "corpus.jsonl.gz:3",
      text: "Beta doc",
      index: 1,
    });
    expect(await corpus.read(2)).toEqual({ docId: "os/1", text: "Gamma – ünïcode ✓", index: 2 });
    const cached = await readdir(cacheDir);
    expect(cached.length).toBe(1);
    expect(cached[0]).toMatch(/^[0-9a-f]{32}\.jsonl$/);
    const firstWrite = (await stat(join(cacheDir, cached[0]!))).mtimeMs;
    const again = await openCorpus(join(dir, "corpus.jsonl.gz"), { cacheDir });
    expect(again.size).toBe(4);
    expect(await readdir(cacheDir)).toEqual(cached);
    expect((await stat(join(cacheDir, cached[0]!))).mtimeMs).toBe(firstWrite);
  });

  it("rejects broken gzip with E_PARSE and leaves no partial copy", async () => {
    const cacheDir = join(dir, "cache-broken");
    await writeFile(join(dir, "broken.jsonl.gz"), "this is not gzip");
    await expect(openCorpus(join(dir, "broken.jsonl.gz"), { cacheDir })).rejects.toMatchObject({
      code: "E_PARSE",
    });
    expect(await readdir(cacheDir)).toEqual([]);
  });
});

describe("openCorpus errors", () => {
  it("E_IO for a missing path, with a next step", async () => {
    await expect(openCorpus(join(dir, "nope.jsonl"))).rejects.toMatchObject({
      code: "E_IO",
      nextStep:
        'give a .jsonl, .jsonl.gz or .parquet file, a folder of them or of .txt/.md files, or "default"',
    });
  });

  it("E_CONFIG for an unsupported extension", async () => {
    await writeFile(join(dir, "data.csv"), "text\nhello\n");
    await expect(openCorpus(join(dir, "data.csv"))).rejects.toMatchObject({
      code: "E_CONFIG",
      message: expect.stringContaining("unsupported corpus format"),
    });
  });

  it("E_CONFIG for a corpus without usable documents", async () => {
    await writeFile(join(dir, "empty.jsonl"), '{"body":"x"}\n\n[1,2]\n');
    await expect(openCorpus(join(dir, "empty.jsonl"))).rejects.toMatchObject({
      code: "E_CONFIG",
      message: expect.stringContaining("has no usable documents (2 records skipped)"),
    });
  });

  it("E_CONFIG for bad options", async () => {
    await expect(openCorpus(join(dir, "corpus.jsonl"), { textField: "" })).rejects.toMatchObject({
      code: "E_CONFIG",
    });
    await expect(
      openCorpus(join(dir, "corpus.jsonl"), { onInvalid: "ignore" as "skip" }),
    ).rejects.toMatchObject({
      code: "E_CONFIG",
    });
  });
});
