import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it, vi } from "vitest";
import { withTempDir } from "../../test/cleanup.js";
import { type CommandOutput, runCaptured } from "../../test/run-command.js";
import { bfclReplayCommand } from "./eval-bfcl.js";
import { BFCL_DATA_DIR, describeWithBfclData } from "../eval/bfcl/testing/paths.js";

/** Runs `spade eval bfcl-replay ...args`; returns stdout, stderr and the exit code it set. */
function replay(...args: string[]): Promise<CommandOutput> {
  return runCaptured(bfclReplayCommand, args);
}

describeWithBfclData("spade eval bfcl-replay", () => {
  it("prints {entries, matched, mismatches} and exits 0 when every entry matches", async () => {
    const { stdout, exitCode } = await replay(
      "--category",
      "base",
      "--json",
      "--data",
      "../shared/benchmarks",
    );
    expect(JSON.parse(stdout)).toEqual({ entries: 200, matched: 200, mismatches: [] });
    expect(exitCode).toBe(0);
  });

  it("prints a summary without --json and finds the data through SPADE_DATA_DIR", async () => {
    vi.stubEnv("SPADE_DATA_DIR", join(BFCL_DATA_DIR, ".."));
    const { stdout, exitCode } = await replay("--category", "miss_func");
    expect(stdout).toBe("miss_func: 200/200 entries match the golden file\n");
    expect(exitCode).toBe(0);
  });

  it("exits 1 and lists what differs when a golden file disagrees", async () => {
    await withTempDir("bfcl-golden-", async (dir) => {
      const lines = (
        await readFile(
          join(BFCL_DATA_DIR, "golden", "BFCL_v4_multi_turn_base.replay.jsonl"),
          "utf8",
        )
      ).split("\n");
      const first = JSON.parse(lines[0]!) as { turns: Array<{ results: string[] }> };
      first.turns[2]!.results[0] = "tampered";
      const golden = join(dir, "golden.jsonl");
      await writeFile(golden, `${JSON.stringify(first)}\n${lines[1]}\n`);
      const { stdout, exitCode } = await replay(
        "--category",
        "base",
        "--json",
        "--data",
        BFCL_DATA_DIR,
        "--golden",
        golden,
      );
      const report = JSON.parse(stdout) as {
        entries: number;
        matched: number;
        mismatches: Array<{ id: string; turn: number; what: string }>;
      };
      expect(report.entries).toBe(200);
      expect(report.matched).toBe(1);
      expect(report.mismatches[0]).toEqual({
        id: "multi_turn_base_0",
        turn: 2,
        what: `result of sort('final_report.pdf'): port {"sorted_content": "Year2024 This is the final report content including budget analysis and other sections."} vs golden tampered`,
      });
      expect(
        report.mismatches.slice(1).every((m) => m.what === "no golden line" && m.turn === -1),
      ).toBe(true);
      expect(report.mismatches).toHaveLength(199);
      expect(exitCode).toBe(1);
    });
  });

  it("exits 2 on an unknown category or a missing data folder", async () => {
    const unknown = await replay("--category", "composite");
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("E_CONFIG");
    const missing = await replay("--category", "base", "--data", "/nonexistent/benchmarks");
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("E_IO");
  });
});
