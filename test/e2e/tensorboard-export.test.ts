/**
 * TensorBoard itself (PyPI `tensorboard`, its own cached virtual environment made by
 * scripts/setup-tensorboard.sh) reads what `spade run --log tensorboard:DIR` and
 * `spade runs export DIR --to tensorboard OUT` wrote: the scalars equal the store's metrics (as
 * float32, TensorBoard's scalar type) and the sample transcripts are there as text.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stepScalars } from "../../src/dashboard/index.js";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { startSelfPlayServer } from "../fakes/selfplay-server.js";
import { DESIGNS, RUN_SEED, runFlags, spade } from "./selfplay-scenario.js";
import { fileTempDir } from "../cleanup.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const dir = fileTempDir("spade-tb-");
const out = join(dir, "run");
let python: string;
let server: FakeOpenAIServer;

/** Every scalar and text TensorBoard's EventAccumulator reads from `logdir`, as {tag: [[step, value], ...]}. */
function readBack(logdir: string): {
  scalars: Record<string, Array<[number, number]>>;
  texts: Record<string, Array<[number, string]>>;
} {
  const script = `
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0, "tensors": 0})
acc.Reload()
tags = acc.Tags()
scalars = {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in tags["scalars"]}
texts = {t: [[e.step, e.tensor_proto.string_val[0].decode()] for e in acc.Tensors(t)] for t in tags["tensors"]}
print(json.dumps({"scalars": scalars, "texts": texts}))
`;
  return JSON.parse(execFileSync(python, ["-c", script, logdir], { encoding: "utf8" }));
}

/** What the store holds, as TensorBoard should show it: float32 values by tag and step. */
function expectedScalars(): Record<string, Array<[number, number]>> {
  const store = RunStore.open(out, "read");
  const byTag: Record<string, Array<[number, number]>> = {};
  for (const s of store.steps()) {
    for (const { tag, scalar } of stepScalars(s.metrics as Record<string, unknown>))
      (byTag[tag] ??= []).push([s.step, Math.fround(scalar)]);
  }
  store.close();
  return byTag;
}

beforeAll(async () => {
  python = execFileSync("bash", [join(REPO, "scripts/setup-tensorboard.sh")], {
    encoding: "utf8",
  }).trim();
  server = await startSelfPlayServer({ runSeed: RUN_SEED, designs: DESIGNS });
  const run = await spade([
    ...runFlags(server.baseURL, out),
    "--log",
    `tensorboard:${join(dir, "live")}`,
  ]);
  expect(run.code, run.stderr).toBe(0);
}, 300_000);
afterAll(async () => {
  await server?.close();
});

describe("TensorBoard reads SPADE's event files", () => {
  it("spade runs export: every scalar equals the store's, and each step's first unhinted and hinted plays as text", async () => {
    const exported = await spade([
      "runs",
      "export",
      out,
      "--to",
      "tensorboard",
      join(dir, "export"),
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const expected = expectedScalars();
    expect(exported.stdout).toMatch(
      new RegExp(
        `^exported 4 steps \\(${Object.values(expected).flat().length} scalars, 6 transcripts\\) to .*events\\.out\\.tfevents\\.`,
      ),
    );
    const back = readBack(join(dir, "export"));
    expect(back.scalars).toEqual(expected);
    expect(back.scalars.poolSize).toEqual([
      [0, 2],
      [1, 2],
      [2, 3],
      [3, 3],
    ]);
    expect(back.scalars.agentSuccess).toEqual([
      [0, 0.5],
      [1, 0.5],
      [2, 0.5],
      [3, 0.5],
    ]);
    // Hinted plays happen on the steps that measure regret (0 and 2 here); unhinted ones on every step.
    expect(back.texts["transcripts/hinted"]?.map(([step]) => step)).toEqual([0, 2]);
    expect(back.texts["transcripts/unhinted"]?.map(([step]) => step)).toEqual([0, 1, 2, 3]);
    expect(back.texts["transcripts/hinted"]?.[0]?.[1]).toMatch(
      /^hinted play of d0-0 at step 0: return 1\n[\s\S]*HINT: The answer is/,
    );
    expect(back.texts["transcripts/unhinted"]?.[0]?.[1]).not.toContain("HINT:");
  });

  it("spade run --log tensorboard:DIR: the same scalars as the run went, plus each step's seconds", () => {
    const back = readBack(join(dir, "live"));
    const { seconds, ...rest } = back.scalars;
    expect(rest).toEqual(expectedScalars());
    expect(seconds?.map(([step]) => step)).toEqual([0, 1, 2, 3]);
  });

  it("refuses other trackers and other --log forms with E_CONFIG", async () => {
    const other = await spade(["runs", "export", out, "--to", "mlflow", join(dir, "x")]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("spade: E_CONFIG: --to must be tensorboard");
    const badLog = await spade([
      ...runFlags(server.baseURL, join(dir, "run2")),
      "--log",
      "wandb:somewhere",
    ]);
    expect(badLog.code).toBe(2);
    expect(badLog.stderr).toContain("spade: E_CONFIG: --log must be tensorboard:DIR");
  });
});
