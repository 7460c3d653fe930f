import { cp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/cleanup.js";
import { type CommandOutput, runCaptured } from "../../test/run-command.js";
import { acebenchDir, benchmarksDir } from "../eval/acebench/testing/bench-dir.js";
import { acebenchReplayCommand } from "./eval-acebench.js";

/** Runs `spade eval acebench-replay ...args`; returns stdout, stderr and the exit code it set. */
function replay(...args: string[]): Promise<CommandOutput> {
  return runCaptured(acebenchReplayCommand, args);
}

describe("spade eval acebench-replay", () => {
  it("prints {entries, matched, mismatches} and exits 0 when every entry agrees", async () => {
    const { stdout, exitCode } = await replay("--json", "--data", benchmarksDir());
    expect(JSON.parse(stdout)).toEqual({ entries: 100, matched: 100, mismatches: [] });
    expect(exitCode).toBe(0);
  });

  it("takes one language and the acebench folder itself, and prints a line without --json", async () => {
    const { stdout, exitCode } = await replay("--lang", "zh", "--data", acebenchDir());
    expect(stdout).toBe("acebench-replay zh: 50/50 entries agree with the reference summary\n");
    expect(exitCode).toBe(0);
  });

  it("exits 1 and names each entry that disagrees", async () => {
    await withTempDir("spade-acebench-", async (dir) => {
      await cp(acebenchDir(), dir, { recursive: true });
      const summary = {
        results: {
          "en/agent_multi_turn": {
            entries: 30,
            replay_state_match: 21,
            failing_ids: [
              "agent_multi_turn_6",
              "agent_multi_turn_7",
              "agent_multi_turn_8",
              "agent_multi_turn_9",
              "agent_multi_turn_10",
              "agent_multi_turn_11",
              "agent_multi_turn_12",
              "agent_multi_turn_13",
              "agent_multi_turn_15",
            ],
          },
          "en/agent_multi_step": {
            entries: 20,
            replay_state_match: 10,
            failing_ids: [
              "agent_multi_step_0",
              "agent_multi_step_1",
              "agent_multi_step_2",
              "agent_multi_step_4",
              "agent_multi_step_5",
              "agent_multi_step_12",
              "agent_multi_step_13",
              "agent_multi_step_14",
              "agent_multi_step_15",
              "agent_multi_step_16",
              "agent_multi_step_17",
            ],
          },
        },
      };
      await writeFile(
        join(dir, "derived", "acebench_milestone_replay_summary.json"),
        JSON.stringify(summary),
      );
      const { stdout, exitCode } = await replay("--json", "--lang", "en", "--data", dir);
      expect(JSON.parse(stdout)).toEqual({
        entries: 50,
        matched: 48,
        mismatches: [
          {
            id: "en/agent_multi_turn_14",
            what: "the replay misses the ground truth (class(FoodPlatform) attributes(users.Grace) wrong; class(FoodPlatform) attributes(orders) wrong); the summary says it reaches it",
          },
          {
            id: "en/agent_multi_step_2",
            what: "the replay reaches the ground truth; the summary says it does not",
          },
        ],
      });
      expect(exitCode).toBe(1);
    });
  });

  it("exits 2 on a bad flag or a missing data folder", async () => {
    expect((await replay("--lang", "fr")).exitCode).toBe(2);
    const missing = await replay("--data", join(tmpdir(), "no-such-spade-benchmarks"));
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(
      /^spade: E_IO: cannot read benchmark file \S*acebench_milestone_replay_summary\.json \(run `spade data list`/,
    );
  });
});
