import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { codeAndMessageOf, codeAndMessageOfAsync } from "../../test/assert.js";
import { fileTempDir } from "../../test/cleanup.js";
import {
  dataRoot,
  datasetDir,
  field,
  readJson,
  readJsonl,
  readJsonlSync,
  readJsonSync,
  takeLimit,
} from "./data.js";

const dir = fileTempDir("spade-data-");
const write = (name: string, text: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("dataRoot", () => {
  it("takes the flag, then SPADE_DATA_DIR, then $XDG_CACHE_HOME/spade/data, then ~/.cache/spade/data", () => {
    const env = { SPADE_DATA_DIR: "/env/data", XDG_CACHE_HOME: "/xdg" };
    expect(dataRoot({ flag: "d", env, cwd: "/repo", home: "/home/u" })).toBe("/repo/d");
    expect(dataRoot({ env, cwd: "/repo", home: "/home/u" })).toBe("/env/data");
    expect(dataRoot({ env: { SPADE_DATA_DIR: "rel" }, cwd: "/repo" })).toBe("/repo/rel");
    expect(dataRoot({ env: { XDG_CACHE_HOME: "/xdg" }, cwd: "/repo", home: "/home/u" })).toBe(
      "/xdg/spade/data",
    );
    expect(dataRoot({ env: {}, cwd: "/repo", home: "/home/u" })).toBe("/home/u/.cache/spade/data");
  });

  it("is ../shared/benchmarks in tests (vitest.config.ts sets SPADE_DATA_DIR)", () => {
    expect(dataRoot({ env: process.env })).toBe(
      fileURLToPath(new URL("../../../shared/benchmarks", import.meta.url)),
    );
  });

  it("datasetDir accepts the data folder or the dataset's own folder", () => {
    mkdirSync(join(dir, "root", "acebench", "data_all"), { recursive: true });
    expect(datasetDir(join(dir, "root"), "acebench", "data_all", existsSync)).toBe(
      join(dir, "root", "acebench"),
    );
    expect(datasetDir(join(dir, "root", "acebench"), "acebench", "data_all", existsSync)).toBe(
      join(dir, "root", "acebench"),
    );
  });
});

describe("the one reader", () => {
  it("reads JSON Lines (plain and gzipped, blank lines skipped) and JSON, async and sync alike", async () => {
    const plain = write("a.jsonl", '{"x":1}\n\n{"x":2}\n');
    const gz = write("a.jsonl.gz", gzipSync('{"x":1}\n{"x":2}'));
    expect(await readJsonl(plain)).toEqual([{ x: 1 }, { x: 2 }]);
    expect(readJsonlSync(gz)).toEqual([{ x: 1 }, { x: 2 }]);
    expect(await readJson(write("b.json", "[1,2]"))).toEqual([1, 2]);
    expect(readJsonSync(write("c.json", '{"a":"b"}'))).toEqual({ a: "b" });
  });

  it("every failure is E_IO naming the file (and line), with the next step", async () => {
    const missing = join(dir, "nope.jsonl");
    expect(await codeAndMessageOfAsync(readJsonl(missing))).toEqual({
      code: "E_IO",
      message: expect.stringContaining(
        `cannot read benchmark file ${missing} (run \`spade data list\``,
      ),
    });
    expect(codeAndMessageOf(() => readJsonlSync(missing))).toEqual({
      code: "E_IO",
      message: expect.stringContaining(`cannot read benchmark file ${missing}`),
    });
    const broken = write("broken.jsonl", '{"x":1}\n{"x":\n');
    expect(await codeAndMessageOfAsync(readJsonl(broken))).toEqual({
      code: "E_IO",
      message: expect.stringContaining(`benchmark file ${broken} line 2 is not valid JSON`),
    });
    const badGz = write("bad.jsonl.gz", "not gzip");
    expect(codeAndMessageOf(() => readJsonlSync(badGz))).toEqual({
      code: "E_IO",
      message: expect.stringContaining("is not valid gzip"),
    });
    expect(codeAndMessageOf(() => field({ a: 1 }, "a", "f.jsonl"))).toEqual({
      code: "E_IO",
      message: expect.stringContaining('f.jsonl: a record lacks the string field "a"'),
    });
    expect(takeLimit([1, 2, 3], 2)).toEqual([1, 2]);
    expect(takeLimit([1, 2, 3], undefined)).toEqual([1, 2, 3]);
  });
});
