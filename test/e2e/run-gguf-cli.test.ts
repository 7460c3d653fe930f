/**
 * `spade run --policy gguf` through the real, built command: both roles on a local GGUF model run
 * in-process, on the tiny random-weight llama the test writes (a test double: its designs are
 * noise and invalid). Checks that the loop runs end to end, stores every attempt and episode, and
 * that a run killed (SIGKILL inside a store write, and while playing) and resumed ends with exactly
 * the store of an uninterrupted run. Also `--preset local` on the tiny model, and the bad inputs.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeTinyLlamaGguf } from "../../src/policy/testing/gguf-writer.js";
import { RunStore, STORE_FILE } from "../../src/store/index.js";
import { spade, spadeAsync } from "./cli.js";
import { storeDump } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-run-gguf-");
const modelPath = join(dir, "tiny.gguf");
let baseline: Record<string, unknown>;

/** A short run: one design slot (two attempts) at step 0, two unhinted plays of each pool environment per step, three turns. */
const flags = (out: string) => [
  "run",
  "--policy",
  "gguf",
  "--model-path",
  modelPath,
  "--out",
  out,
  "--seed",
  "1",
  "--steps",
  "2",
  "--designs-per-step",
  "1",
  "--regenerate-every",
  "2",
  "--reward-delay",
  "1",
  "--plays",
  "2",
  "--hinted-plays",
  "1",
  "--max-attempts",
  "2",
  "--max-words",
  "40",
  "--max-tokens",
  "8",
  "--designer-max-tokens",
  "16",
  "--hints",
  "program",
  "--max-turns-cap",
  "3",
  "--batch-fit",
  "off",
  "--concurrency",
  "2",
];

function storedConfig(out: string): Record<string, unknown> {
  const store = RunStore.open(out, "read");
  try {
    return JSON.parse(store.getMeta("config") ?? "{}") as Record<string, unknown>;
  } finally {
    store.close();
  }
}

function episodes(out: string): number {
  if (!existsSync(join(out, STORE_FILE))) return 0;
  try {
    const store = RunStore.open(out, "read");
    try {
      return store.episodes().length;
    } finally {
      store.close();
    }
  } catch {
    return 0; // the schema is being created
  }
}

async function resumeToEnd(out: string) {
  const resumed = await spade(["run", "--resume", out]);
  expect(resumed.stderr).toContain("step 2/2");
  expect(resumed.code).toBe(0);
}

beforeAll(async () => {
  await writeTinyLlamaGguf(modelPath, { seed: 1 });
});

describe("spade run --policy gguf", () => {
  it("runs both roles on the local model (--no-train implied) and stores every attempt and episode", async () => {
    const out = join(dir, "baseline");
    const run = await spade(flags(out));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`spade run: writing ${out} (2 steps, 1 designs every 2 steps)\n`);
    expect(run.stderr).toContain("step 2/2");
    expect(run.stderr).toContain(
      `spade run: done. Results are in ${out} (run.sqlite, metrics.jsonl). Inspect with: spade runs show ${out}\n`,
    );
    baseline = storeDump(out);
    const store = RunStore.open(out, "read");
    try {
      // The tiny model's context (4,096 tokens) cannot hold the designer prompt: both attempts fail, and both are stored.
      expect(store.designs().map((d) => [d.step, d.slot, d.attempt, d.outcome])).toEqual([
        [0, 0, 0, "completion-failed"],
        [0, 0, 1, "completion-failed"],
      ]);
      // No valid design: the library's first environment is played twice per step, three turns each, never failing.
      const played = store.episodes();
      expect(played).toHaveLength(4);
      expect(played.every((e) => e.failure === null && e.envId.startsWith("lib-"))).toBe(true);
      expect(store.steps().map((s) => s.status)).toEqual(["done", "done"]);
      expect(storedConfig(out)).toMatchObject({ policy: "gguf", train: false, modelPath });
    } finally {
      store.close();
    }
  }, 240_000);

  it.each([3])(
    "killed inside store transaction %i and resumed: the store equals the uninterrupted run's",
    async (n) => {
      const out = join(dir, `write-${n}`);
      const killed = await spade(flags(out), { SPADE_TEST_KILL_IN_TRANSACTION: String(n) });
      expect(killed.signal).toBe("SIGKILL");
      await resumeToEnd(out);
      expect(storeDump(out)).toEqual(baseline);
    },
    240_000,
  );

  it("killed while playing and resumed: finished groups are kept, the store equals the uninterrupted run's", async () => {
    const out = join(dir, "playing");
    const { child, done } = spadeAsync(flags(out));
    const deadline = Date.now() + 120_000;
    while (episodes(out) === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGKILL");
    expect((await done).signal).toBe("SIGKILL");
    expect(episodes(out)).toBeGreaterThan(0);
    await resumeToEnd(out);
    expect(storeDump(out)).toEqual(baseline);
  }, 240_000);

  it("--preset local with --model-path runs the laptop-sized run on the given model (answers cut short here)", async () => {
    const out = join(dir, "preset-local");
    const run = await spade([
      "run",
      "--preset",
      "local",
      "--model-path",
      modelPath,
      "--out",
      out,
      "--max-tokens",
      "8",
      "--designer-max-tokens",
      "16",
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("step 2/2");
    expect(storedConfig(out)).toMatchObject({
      policy: "gguf",
      train: false,
      steps: 2,
      designsPerStep: 2,
      plays: 2,
      hintedPlays: 2,
      maxTurnsCap: 6,
      maxTokens: 8,
    });
  }, 300_000);

  it("bad input: training asked for, a file that is not GGUF, no model, an unreachable default model", async () => {
    const train = await spade([
      "run",
      "--policy",
      "gguf",
      "--model-path",
      modelPath,
      "--train",
      "--out",
      join(dir, "train"),
    ]);
    expect(train.code).toBe(2);
    expect(train.stderr).toBe(
      "spade: E_CONFIG: --policy gguf samples chat messages, which cannot be trained on (training needs the sampled tokens and their logprobs) (leave --policy unset (with --engine it samples token by token from the engine), or pass --no-train)\n",
    );
    const junk = join(dir, "junk.gguf");
    writeFileSync(junk, "not a model");
    const notGguf = await spade([
      "run",
      "--policy",
      "gguf",
      "--model-path",
      junk,
      "--out",
      join(dir, "junk"),
    ]);
    expect(notGguf.code).toBe(1);
    expect(notGguf.stderr).toContain(
      `spade: E_MODEL_LOAD: ${junk} is not a GGUF model file (it does not start with "GGUF")`,
    );
    expect(existsSync(join(dir, "junk"))).toBe(false);
    const none = await spade(["run", "--policy", "gguf", "--out", join(dir, "none")]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      "spade: E_CONFIG: --policy gguf runs a local GGUF model: --model-path is not set (add --model-path PATH/model.gguf (or hf:user/repo/file.gguf) (or set it in --config))\n",
    );
    // Offline (a closed local port stands for the hub) with an empty model cache.
    const models = join(dir, "models");
    const offline = await spade(["run", "--preset", "local", "--out", join(dir, "offline")], {
      SPADE_MODELS_DIR: models,
      HF_ENDPOINT: "http://127.0.0.1:9/",
    });
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain(
      'spade: E_MODEL_DOWNLOAD: "hf:Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" is not cached and http://127.0.0.1:9/api/models/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF cannot be reached',
    );
    expect(offline.stderr).toContain(
      `(download http://127.0.0.1:9/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf where the network allows and put it at ${join(models, "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")} (or pass its path to --model-path))\n`,
    );
  }, 120_000);
});
