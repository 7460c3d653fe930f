import { createHash } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../../../test/cleanup.js";
import { ENTROPY_BYTES, ensureEntropyFile } from "./jail.js";

const dir = fileTempDir("spade-jail-entropy-");

describe("ensureEntropyFile", () => {
  it("writes the same fixed bytes on every host: SHA-256 of each block's counter", () => {
    const path = ensureEntropyFile(join(dir, "entropy"));
    const bytes = readFileSync(path);
    expect(bytes.length).toBe(ENTROPY_BYTES);
    const block = (n: number) =>
      createHash("sha256").update(`spade sandbox entropy ${n}`).digest().toString("hex");
    expect(bytes.subarray(0, 32).toString("hex")).toBe(block(0));
    expect(bytes.subarray(32 * 1000, 32 * 1001).toString("hex")).toBe(block(1000));
    expect(bytes.subarray(ENTROPY_BYTES - 32).toString("hex")).toBe(block(ENTROPY_BYTES / 32 - 1));
  });

  it("keeps a file of the right size and rewrites one cut short", () => {
    const path = join(dir, "short");
    writeFileSync(path, "cut short");
    expect(ensureEntropyFile(path)).toBe(path);
    expect(statSync(path).size).toBe(ENTROPY_BYTES);
    const written = statSync(path).mtimeMs;
    ensureEntropyFile(path);
    expect(statSync(path).mtimeMs).toBe(written);
  });
});
