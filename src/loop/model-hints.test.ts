/** `--hints model` when the hint writer never answers with a hint: 3 calls, then no hint and no hinted plays (the reference's hint phase returns None). */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileTempDir } from "../../test/cleanup.js";
import {
  DESIGNS,
  RUN_SEED,
  scenarioConfig,
  scenarioPolicy,
} from "../../test/e2e/selfplay-scenario.js";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../test/fakes/openai-server.js";
import { agentAnswer } from "../../test/fakes/selfplay-server.js";
import { GAME_SYSTEM_PROMPT } from "../designer/prompt-text.js";
import { RunStore } from "../store/index.js";
import { seedOf } from "./keys.js";
import { runSelfPlay } from "./run.js";

const dir = fileTempDir("spade-model-hints-");
let server: FakeOpenAIServer | undefined;
afterAll(async () => {
  await server?.close();
});

describe("--hints model with a hint writer that answers nothing", () => {
  it("calls it 3 times per valid design, stores no hint, plays no hinted episode and measures no regret", async () => {
    const bySeed = new Map(
      DESIGNS.map((d) => [seedOf(RUN_SEED, "design", d.step, d.slot, d.attempt), d.completion]),
    );
    // TEST DOUBLE: the scenario's designer and agent; every hint request (temperature 0.3) gets a blank answer.
    server = await startFakeOpenAIServer((request) => {
      const messages = request.body.messages as Array<{ role: string; content: string }>;
      if (request.body.temperature === 0.3) return { kind: "text", content: "   " };
      if (messages[0]?.content === GAME_SYSTEM_PROMPT)
        return { kind: "text", content: bySeed.get(request.body.seed) ?? "no script" };
      return { kind: "text", content: agentAnswer(messages) };
    });
    const config = scenarioConfig({ steps: 1, hints: "model", train: false });
    expect(config.hints).toBe("model");
    const out = join(dir, "run");
    const policy = scenarioPolicy(server.baseURL);
    await runSelfPlay(
      out,
      config,
      { policy, trainer: null, progress: () => {}, now: () => 0 },
      { resume: false },
    );

    const hintSeeds = server.requests
      .filter((r) => r.body.temperature === 0.3)
      .map((r) => r.body.seed);
    // Valid designs d0-0 and d0-1, attempts 0, 1, 2 of each.
    expect(hintSeeds.sort()).toEqual(
      [0, 1].flatMap((slot) => [0, 1, 2].map((a) => seedOf(RUN_SEED, "hint", 0, slot, a))).sort(),
    );
    const store = RunStore.open(out, "read");
    const envs = store
      .environments()
      .filter((e) => e.source === "designer")
      .map((e) => [e.id, e.hint, e.stats.regret, e.stats.winRate]);
    const episodes = store.episodes();
    store.close();
    expect(envs).toEqual([
      ["d0-0", null, null, 0],
      ["d0-1", null, null, 1],
    ]);
    expect(episodes.filter((e) => e.hinted)).toEqual([]);
    expect(episodes.filter((e) => !e.hinted)).toHaveLength(4);
  }, 60_000);
});
