import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { withTempDir } from "../../test/cleanup.js";
import { runCaptured } from "../../test/run-command.js";
import { isSpadeError } from "../errors.js";
import { goldCommand } from "./eval-suites.js";

/** Runs `spade eval gold ...args`; returns stdout and the exit code it set. */
async function gold(...args: string[]): Promise<{ stdout: string; exitCode: number | undefined }> {
  const { stdout, exitCode } = await runCaptured(goldCommand, args);
  return { stdout, exitCode };
}

describe("spade eval gold", () => {
  it("prints {suite, items, correct} as JSON and exits 0 when all are correct", async () => {
    const { stdout, exitCode } = await gold(
      "gsm8k",
      "--json",
      "--limit",
      "5",
      "--data",
      "../shared/benchmarks",
    );
    expect(JSON.parse(stdout)).toEqual({ suite: "gsm8k", items: 5, correct: 5 });
    expect(exitCode).toBe(0);
  });

  it("prints a summary line without --json, with the perturbation check on request", async () => {
    const { stdout, exitCode } = await gold("math500", "--limit", "3", "--perturb");
    const lines = stdout.split("\n");
    expect(lines[0]).toMatch(/^math500: 3\/3 correct \(\d+\.\d s\)$/);
    expect(lines.slice(1)).toEqual([
      "  perturbation increment: 2/2 scored 0",
      "  perturbation negate: 3/3 scored 0",
      "  perturbation drop: 2/2 scored 0",
      "  perturbation letter: 1/1 scored 0",
      "",
    ]);
    expect(exitCode).toBe(0);
  });

  it("exits 1 when a reference does not score 1", async () => {
    await withTempDir("spade-gold-", async (dir) => {
      await mkdir(join(dir, "gsm8k"));
      // A reference with unbalanced braces cannot survive \boxed{...}: the grader must say so.
      const rows = [
        { question: "q1", answer: "#### 4" },
        { question: "q2", answer: "#### }{" },
      ];
      await writeFile(
        join(dir, "gsm8k", "test.jsonl"),
        rows.map((r) => JSON.stringify(r)).join("\n"),
      );
      const { stdout, exitCode } = await gold("gsm8k", "--json", "--data", dir);
      expect(JSON.parse(stdout)).toEqual({ suite: "gsm8k", items: 2, correct: 1 });
      expect(exitCode).toBe(1);
    });
  });

  it("rejects an unknown suite and a bad --limit with E_CONFIG", async () => {
    expect(isSpadeError(await gold("mmlu").catch((e: unknown) => e), "E_CONFIG")).toBe(true);
    expect(
      isSpadeError(await gold("gsm8k", "--limit", "0").catch((e: unknown) => e), "E_CONFIG"),
    ).toBe(true);
    expect(
      isSpadeError(await gold("humaneval", "--perturb").catch((e: unknown) => e), "E_CONFIG"),
    ).toBe(true);
  });

  it("reads the data folder from --data, else SPADE_DATA_DIR (E_IO when missing)", async () => {
    expect(
      isSpadeError(await gold("gsm8k", "--data", "/nonexistent").catch((e: unknown) => e), "E_IO"),
    ).toBe(true);
    vi.stubEnv("SPADE_DATA_DIR", "/nonexistent/benchmarks");
    const err = await gold("gsm8k").catch((e: unknown) => e);
    expect(isSpadeError(err, "E_IO")).toBe(true);
    expect((err as Error).message).toContain("/nonexistent/benchmarks/gsm8k/test.jsonl");
  });
});
