import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../../test/cleanup.js";
import { SpadeError } from "../../errors.js";
import { makeAction } from "../../env/index.js";
import { makeTestEnv } from "../../env/testing/test-env.js";
import type { Agent } from "../../rollout/index.js";
import { runEval, type EvalTask } from "./index.js";
import { summarize } from "./summary.js";

const tempDir = tempDirsAfterEach("spade-eval-");

/** TEST DOUBLE: a one-question task; the answer `right` scores 1. */
function task(id: string, group: string, opens: { failWith?: Error } = {}): EvalTask {
  return {
    id,
    group,
    open: () => {
      if (opens.failWith) throw opens.failWith;
      return makeTestEnv({
        meta: { maxTurns: 1 },
        reset: () => ({ observation: `question ${id}`, info: {} }),
        step: (action) => ({
          observation: "",
          reward: action.answer === "right" ? 1 : 0,
          terminated: true,
          truncated: false,
          info: { answer: action.answer },
        }),
      });
    },
  };
}

/** TEST DOUBLE: answers per (task, sample) from a table; `throw` fails the episode with E_POLICY_HTTP. */
function scripted(table: Record<string, Array<"right" | "wrong" | "throw">>, calls: string[] = []) {
  return ({ task: t, sample }: { task: EvalTask; sample: number }): Agent =>
    async () => {
      calls.push(`${t.id}#${sample}`);
      const what = table[t.id]?.[sample] ?? "wrong";
      if (what === "throw") throw new SpadeError("E_POLICY_HTTP", "server said 500");
      return makeAction(`\\boxed{${what}}`);
    };
}

const INFO = { benchmark: "unit", model: "m", samples: 2 };

describe("runEval", () => {
  it("scores pass@1 averaged over K samples per item, per group and overall; a failed sample counts as wrong and is reported", async () => {
    const dir = tempDir();
    const tasks = [task("a/1", "g1"), task("b", "g1"), task("c", "g2")];
    const run = await runEval({
      tasks,
      info: INFO,
      concurrency: 3,
      outDir: dir,
      makeAgent: scripted({
        "a/1": ["right", "right"],
        b: ["right", "wrong"],
        c: ["throw", "wrong"],
      }),
    });
    expect(run).toMatchObject({ resumed: 0, total: 3, interrupted: false });
    expect(run.items.map((i) => [i.id, i.accuracy])).toEqual([
      ["a/1", 1],
      ["b", 0.5],
      ["c", 0],
    ]);
    const { groups, overall } = summarize(run.items);
    expect(groups).toEqual([
      { group: "g1", items: 2, samples: 4, correctSamples: 3, failedSamples: 0, accuracy: 0.75 },
      { group: "g2", items: 1, samples: 2, correctSamples: 0, failedSamples: 1, accuracy: 0 },
    ]);
    expect(overall).toEqual({
      group: "overall",
      items: 3,
      samples: 6,
      correctSamples: 3,
      failedSamples: 1,
      accuracy: 0.5,
    });
    expect((await readdir(join(dir, "items"))).sort()).toEqual(["a%2F1.json", "b.json", "c.json"]);
    const c = JSON.parse(await readFile(join(dir, "items", "c.json"), "utf8"));
    expect(c.samples.map((s: any) => [s.sample, s.success, s.failureCode, s.failureStage])).toEqual(
      [
        [0, false, "E_POLICY_HTTP", "agent"],
        [1, false, null, null],
      ],
    );
    expect(c.samples[1].transcript.firstObservation).toBe("question c");
    expect(c.samples[1].transcript.steps[0].info).toEqual({ answer: "wrong" });
    expect(JSON.parse(await readFile(join(dir, "run.json"), "utf8"))).toEqual({
      benchmark: "unit",
      model: "m",
      samples: 2,
    });
  });

  it("--resume skips items whose results file exists; a fresh run refuses a folder with results; settings must match", async () => {
    const dir = tempDir();
    const first: string[] = [];
    await runEval({
      tasks: [task("a", "g"), task("b", "g")],
      info: INFO,
      concurrency: 1,
      outDir: dir,
      makeAgent: scripted({ a: ["right", "right"] }, first),
    });
    expect(first).toEqual(["a#0", "a#1", "b#0", "b#1"]);
    const second: string[] = [];
    const run = await runEval({
      tasks: [task("a", "g"), task("b", "g"), task("c", "g")],
      info: INFO,
      concurrency: 2,
      outDir: dir,
      resume: true,
      makeAgent: scripted({ c: ["right", "wrong"] }, second),
    });
    expect(second.sort()).toEqual(["c#0", "c#1"]);
    expect(run).toMatchObject({ resumed: 2, total: 3, interrupted: false });
    expect(run.items.map((i) => [i.id, i.accuracy])).toEqual([
      ["a", 1],
      ["b", 0],
      ["c", 0.5],
    ]);

    const fresh = runEval({
      tasks: [task("a", "g")],
      info: INFO,
      concurrency: 1,
      outDir: dir,
      makeAgent: scripted({}),
    });
    await expect(fresh).rejects.toMatchObject({ code: "E_CONFIG" });
    const otherK = runEval({
      tasks: [task("a", "g")],
      info: { ...INFO, samples: 1 },
      concurrency: 1,
      outDir: dir,
      resume: true,
      makeAgent: scripted({}),
    });
    await expect(otherK).rejects.toMatchObject({
      code: "E_CONFIG",
      message: expect.stringContaining("samples 2, not 1"),
    });
  });

  it("stops on cancellation: finished items are written, the cut-short and unstarted ones are not", async () => {
    const dir = tempDir();
    const controller = new AbortController();
    const makeAgent =
      ({ task: t }: { task: EvalTask }): Agent =>
      async () => {
        if (t.id === "b") {
          controller.abort();
          throw new SpadeError("E_CANCELLED", "the request was cancelled");
        }
        return makeAction("\\boxed{right}");
      };
    const run = await runEval({
      tasks: [task("a", "g"), task("b", "g"), task("c", "g")],
      info: { ...INFO, samples: 1 },
      concurrency: 1,
      outDir: dir,
      makeAgent,
      signal: controller.signal,
    });
    expect(run).toMatchObject({ interrupted: true, total: 3 });
    expect(run.items.map((i) => i.id)).toEqual(["a"]);
    expect(await readdir(join(dir, "items"))).toEqual(["a.json"]);
  });

  it("records an environment that cannot be opened as a failed sample (stage open)", async () => {
    const dir = tempDir();
    const broken = task("x", "g", {
      failWith: new SpadeError("E_SANDBOX_UNAVAILABLE", "no namespace"),
    });
    const run = await runEval({
      tasks: [broken],
      info: { ...INFO, samples: 1 },
      concurrency: 1,
      outDir: dir,
      makeAgent: scripted({}),
    });
    expect(run.items[0]!.samples[0]).toMatchObject({
      success: false,
      failureStage: "open",
      failureCode: "E_SANDBOX_UNAVAILABLE",
      failure: "open: E_SANDBOX_UNAVAILABLE: no namespace",
    });
    expect(existsSync(join(dir, "items", "x.json"))).toBe(true);
  });

  it("rejects duplicate ids and bad K / concurrency with E_CONFIG", async () => {
    const dir = tempDir();
    const base = { info: INFO, concurrency: 1, outDir: dir, makeAgent: scripted({}) };
    await expect(
      runEval({ ...base, tasks: [task("a", "g"), task("a", "h")] }),
    ).rejects.toMatchObject({ code: "E_CONFIG", message: "two tasks share the id a" });
    await expect(
      runEval({ ...base, tasks: [task("a", "g")], info: { ...INFO, samples: 0 } }),
    ).rejects.toMatchObject({ code: "E_CONFIG" });
    await expect(
      runEval({ ...base, tasks: [task("a", "g")], concurrency: 0 }),
    ).rejects.toMatchObject({ code: "E_CONFIG" });
  });
});
