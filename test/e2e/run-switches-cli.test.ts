/**
 * `spade run` with the reference's defaults and the ablation switches, end to end through the built
 * command against the scripted self-play double: `--print-config` and the presets, model-written
 * hints (a separate, untrained call at temperature 0.3), `--corpus none` and `--memory off`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GAME_SYSTEM_PROMPT } from "../../src/designer/prompt-text.js";
import { seedOf } from "../../src/loop/keys.js";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { agentAnswer, startSelfPlayServer } from "../fakes/selfplay-server.js";
import { DESIGNS, RUN_SEED, runFlags, spade } from "./selfplay-scenario.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-switches-");

describe("spade run --print-config", () => {
  it("prints the reference's defaults, and the presets' settings, without starting a run", async () => {
    const out = join(dir, "never");
    const plain = await spade(["run", "--print-config", "--out", out]);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({
      temperature: 0.6,
      topP: 0.95,
      topK: 20,
      hints: "model",
      hintTemperature: 0.3,
      hintMaxTokens: 4096,
      loss: "ppo",
      ppoClipLow: 0.2,
      ppoClipHigh: 0.28,
      klCoef: 0,
      validation: "strict",
      lossAggregation: "token-sum",
      gradClipNorm: 0,
    });
    expect(existsSync(out)).toBe(false);
    const games = JSON.parse(
      (await spade(["run", "--preset", "reference", "--print-config"])).stdout,
    );
    expect(games).toMatchObject({
      mode: "games",
      regenerateEvery: 4,
      rewardDelay: 4,
      invalidDesign: "drop",
      validation: "reference",
      klCoef: 0,
      maxWords: 6000,
      lossAggregation: "sample-mean",
      gradClipNorm: 1,
    });
    const tools = JSON.parse(
      (await spade(["run", "--preset", "reference-tool-use", "--print-config", "--steps", "12"]))
        .stdout,
    );
    expect(tools).toMatchObject({
      mode: "tool-use",
      steps: 12,
      regenerateEvery: 8,
      rewardDelay: 8,
      hintMaxTokens: 2048,
      klCoef: 0.005,
      maxWords: 4000,
      lossAggregation: "sample-mean",
      gradClipNorm: 1,
    });
  });
});

describe("spade run --hints model --corpus none --memory off", () => {
  let server: FakeOpenAIServer;
  const out = join(dir, "run");
  beforeAll(async () => {
    server = await startSelfPlayServer({ runSeed: RUN_SEED, designs: DESIGNS });
    const flags = runFlags(server.baseURL, out).map((f) => (f === "program" ? "model" : f));
    const steps = flags.indexOf("--steps");
    flags[steps + 1] = "2";
    const run = await spade([...flags, "--corpus", "none", "--memory", "off"]);
    expect(run.code).toBe(0);
  });
  afterAll(async () => server.close());

  it("asks a separate call of the model for each valid design's hint at 0.3 / 0.9, no top-k, and 4,096 tokens, and never stores it as a design", () => {
    const hintCalls = server.requests.filter((r) => r.body.temperature === 0.3);
    // Step 0's valid designs are slots 0 (colour-vault) and 1 (number-echo); each hint comes at the first call.
    expect(hintCalls.map((r) => r.body.seed).sort()).toEqual(
      [seedOf(RUN_SEED, "hint", 0, 0, 0), seedOf(RUN_SEED, "hint", 0, 1, 0)].sort(),
    );
    for (const r of hintCalls) {
      expect(r.body).toMatchObject({ top_p: 0.9, max_tokens: 4096 });
      // The reference's hint call gets Slime's --rollout-top-k, -1 (off): no top_k is sent.
      expect(r.body).not.toHaveProperty("top_k");
      expect((r.body.messages as Array<{ content: string }>)[1]?.content).toContain(
        "class Environment",
      );
    }
    for (const r of server.requests.filter((x) => x.body.temperature !== 0.3))
      expect(r.body).toMatchObject({ temperature: 0.6, top_p: 0.95, top_k: 20 });
    const store = RunStore.open(out, "read");
    const designs = store.designs();
    const environments = store.environments().filter((e) => e.source === "designer");
    const samples = store.samples();
    store.close();
    // The double answers a hint request as it answers an agent whose messages name no answer.
    const written = agentAnswer(
      hintCalls[0]!.body.messages as Array<{ role: string; content: string }>,
    );
    expect(written).toBe("No idea. \\boxed{nothing}");
    expect(environments.map((e) => [e.id, e.hint])).toEqual([
      ["d0-0", written],
      ["d0-1", written],
    ]);
    // Five design completions, as with program hints: the hint calls are not among them, so never trained.
    expect(designs).toHaveLength(5);
    expect(designs.some((d) => d.completion === written)).toBe(false);
    expect(
      samples
        .filter((s) => s.role === "designer")
        .map((s) => s.ref)
        .sort(),
    ).toEqual(["0/0/1", "0/1/0", "0/2/1"]);
  });

  it("plays with the model's hint: the colour word is no longer revealed, so its regret is 0 instead of 1", () => {
    const store = RunStore.open(out, "read");
    const stats = Object.fromEntries(
      store
        .environments()
        .filter((e) => e.source === "designer")
        .map((e) => [e.id, [e.stats.winRate, e.stats.regret]]),
    );
    const hinted = store.episodes().filter((e) => e.hinted);
    store.close();
    expect(stats).toEqual({ "d0-0": [0, 0], "d0-1": [1, 0] });
    expect(hinted).toHaveLength(4);
    expect(hinted.every((e) => JSON.stringify(e.transcript).includes("HINT: No idea."))).toBe(true);
  });

  it("grounds no design in a document and shows no memory", () => {
    const store = RunStore.open(out, "read");
    const designs = store.designs();
    store.close();
    expect(designs.every((d) => d.docId === null)).toBe(true);
    expect(designs.every((d) => JSON.stringify(d.prompt).includes("No document this time"))).toBe(
      true,
    );
    expect(
      designs.every(
        (d) => JSON.stringify(d.memoryRefs) === JSON.stringify({ references: [], avoid: null }),
      ),
    ).toBe(true);
    expect(
      server.requests.filter(
        (r) => (r.body.messages as Array<{ content: unknown }>)[0]?.content === GAME_SYSTEM_PROMPT,
      ),
    ).toHaveLength(5);
  });
});
