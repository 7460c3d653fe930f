import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { fileTempDir } from "../../test/cleanup.js";
import { openCorpus } from "./open.js";

const dir = fileTempDir("spade-grounding-folder-");
beforeAll(async () => {
  // A text folder: sorted relative paths, empty and hidden files left out, other files ignored.
  const text = join(dir, "text");
  await mkdir(join(text, "sub"), { recursive: true });
  await writeFile(join(text, "b.md"), "# Bee\n\nSecond.");
  await writeFile(join(text, "a.txt"), "First.");
  await writeFile(join(text, "sub", "c.TXT"), "Third.");
  await writeFile(join(text, "blank.txt"), " \n");
  await writeFile(join(text, "empty.txt"), "");
  await writeFile(join(text, ".hidden.txt"), "Hidden.");
  await writeFile(join(text, "notes.csv"), "x,y");
  await symlink(join(text, "a.txt"), join(text, "z-link.txt"));
  // A data folder: data files concatenated in path order; README and manifest are not documents.
  const data = join(dir, "data");
  await mkdir(join(data, "x"), { recursive: true });
  await writeFile(join(data, "README.md"), "About this corpus.");
  await writeFile(join(data, "manifest.tsv"), "id\tpath\n");
  await writeFile(join(data, "part-0.jsonl.gz"), gzipSync('{"text":"zero"}\n{"text":"one"}\n'));
  await writeFile(
    join(data, "x", "part-1.jsonl"),
    '{"id":"two","text":"two"}\n{"nope":1}\n{"text":"three"}\n',
  );
  await mkdir(join(dir, "nothing"));
  await writeFile(join(dir, "nothing", "data.csv"), "text\n");
});

describe("folder corpus", () => {
  it("makes each .txt/.md file a document, in sorted path order", async () => {
    const corpus = await openCorpus(join(dir, "text"));
    expect(corpus).toMatchObject({ format: "folder", size: 5, skipped: 1 });
    const docs = await Promise.all([0, 1, 2, 3, 4].map((i) => corpus.read(i)));
    expect(docs).toEqual([
      { docId: "a.txt", text: "First.", index: 0 },
      { docId: "b.md", text: "# Bee\n\nSecond.", index: 1 },
      null, // blank.txt: whitespace only, known when read
      { docId: "sub/c.TXT", text: "Third.", index: 3 },
      { docId: "z-link.txt", text: "First.", index: 4 },
    ]);
  });

  it("concatenates the data files of a data folder and ignores its README", async () => {
    const cacheDir = join(dir, "cache");
    const corpus = await openCorpus(join(dir, "data"), { cacheDir });
    expect(corpus.size).toBe(4);
    expect(corpus.skipped).toBe(1);
    expect(await corpus.read(0)).toEqual({ docId: "part-0.jsonl.gz:1", text: "zero", index: 0 });
    expect(await corpus.read(1)).toEqual({ docId: "part-0.jsonl.gz:2", text: "one", index: 1 });
    expect(await corpus.read(2)).toEqual({ docId: "two", text: "two", index: 2 });
    expect(await corpus.read(3)).toEqual({ docId: "x/part-1.jsonl:3", text: "three", index: 3 });
    await expect(corpus.read(4)).rejects.toMatchObject({ code: "E_CONFIG" });
  });

  it("E_CONFIG for a folder without supported files", async () => {
    await expect(openCorpus(join(dir, "nothing"))).rejects.toMatchObject({
      code: "E_CONFIG",
      message: expect.stringContaining("holds no .jsonl, .jsonl.gz, .parquet, .txt or .md files"),
    });
  });
});
