import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../../../test/cleanup.js";
import { ENTROPY_BYTES, ensureEntropyFile, jailCommand, type JailTools } from "./jail.js";

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

describe("jailCommand", () => {
  it("starts with the highest out-of-memory score and the limits, then execs the jail", () => {
    const tools: JailTools = {
      bwrap: "/usr/bin/bwrap",
      python: "/usr/bin/python3",
      prefix: "/usr",
      version: "3.11",
      site: null,
      setarch: null,
      entropy: "/nonexistent",
    };
    const { command, args } = jailCommand(tools, 64 * 1024 * 1024);
    expect([command, args[2], args[3]]).toEqual(["/bin/sh", "sh", "/usr/bin/bwrap"]);
    // The shell line alone, execing a reader of what it set instead of bwrap.
    const read = "cat /proc/self/oom_score_adj; ulimit -v; ulimit -c; ulimit -f; ulimit -n";
    const ran = spawnSync(command, [args[0] ?? "", args[1] ?? "", "sh", "/bin/sh", "-c", read]);
    expect(ran.stdout.toString()).toBe("1000\n131072\n0\n0\n64\n");
  });
});
