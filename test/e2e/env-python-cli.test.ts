/**
 * `spade env check` and `spade env run` on Python program files (`.py`), through the built command:
 * a library game rewritten in Python passes the strict validator and its oracle wins.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VAULT_CRACKER_PY } from "../../src/envs/testing/python-library.js";
import { spade } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-env-py-");

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("spade env on .py files", () => {
  it("checks a Python program with the same codes as a JavaScript one", async () => {
    const r = await spade(["env", "check", file("vault.py", VAULT_CRACKER_PY), "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.failures).toEqual([]);
    expect(report.meta).toEqual(
      expect.objectContaining({
        name: "vault-cracker",
        skill: "Logical Deduction",
        maxTurns: 10,
        tools: [],
      }),
    );
  }, 120_000);

  it("reports a Python program that imports os as E_COMPILE", async () => {
    const r = await spade([
      "env",
      "check",
      file("os.py", "import os\nclass XEnv:\n    pass\n"),
      "--json",
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.failures).toEqual(["E_COMPILE"]);
    expect(report.checks[0].message).toMatch(/import of 'os' is not allowed in the sandbox/);
  }, 60_000);
});
