import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { closedAfterEach, fileTempDir } from "../../test/cleanup.js";
import { startFakeTinkerServer, type FakeSampleRequest } from "../../test/fakes/tinker-server.js";
import { asciiIds, TINY, writeTinyModel } from "../../test/fakes/tiny-model.js";
import { loadProgram } from "../sandbox/index.js";
import { ChatRenderer, TinkerHttp } from "../policy/index.js";
import { runEpisode } from "../rollout/index.js";
import { TinkerTrainingClient } from "../trainer/index.js";
import { tinkerLoopPolicy } from "./tinker-policy.js";

const BASE = "Org/Tiny-1B";
const renderer = ChatRenderer.fromDir(writeTinyModel(fileTempDir("spade-tiny-policy-")));
const requests: FakeSampleRequest[] = [];
const startServer = closedAfterEach(startFakeTinkerServer);
afterEach(() => {
  requests.length = 0;
});

async function setup(answer: number[]) {
  const server = await startServer({
    baseModel: BASE,
    training: true,
    sample: (request) => {
      requests.push(request);
      return {
        sequences: [
          { tokens: answer, logprobs: answer.map((_, i) => -0.1 * (i + 1)), stop_reason: "stop" },
        ],
      };
    },
  });
  const http = new TinkerHttp({ baseURL: server.baseURL, heartbeatMs: 0, pollIntervalMs: 1 });
  return { server, http };
}

describe("tinkerLoopPolicy", () => {
  it("renders a designer conversation with the chat template, samples it and keeps prompt ids, sampled ids and logprobs", async () => {
    const answer = [...asciiIds("class E {}"), TINY.imEnd];
    const { http } = await setup(answer);
    const policy = tinkerLoopPolicy({ http, baseModel: BASE, renderer, sampling: { topP: 0.95 } });
    const messages = [
      { role: "system" as const, content: "Write code." },
      { role: "user" as const, content: "Go" },
    ];
    const out = await policy.complete(messages, { temperature: 0.6, maxTokens: 64, seed: 11 });
    const promptTokenIds = renderer.renderTokens(messages, { addGenerationPrompt: true });
    expect(out).toEqual({
      text: "class E {}",
      tokens: { promptTokenIds, tokenIds: answer, logprobs: answer.map((_, i) => -0.1 * (i + 1)) },
    });
    expect(requests[0]!.promptTokens).toEqual(promptTokenIds);
    expect(requests[0]!.body.sampling_params).toEqual({
      max_tokens: 64,
      stop: [TINY.imEnd],
      temperature: 0.6,
      top_p: 0.95,
      top_k: -1,
      seed: 11,
    });
    expect(requests[0]!.model).toBe(BASE);
    expect(policy.samplerPath).toBeNull();
  });

  it("plays an episode with a token agent, and samples from new weights after useWeights", async () => {
    const answer = [...asciiIds("\\boxed{0123}"), TINY.imEnd];
    const { server, http } = await setup(answer);
    const client = new TinkerTrainingClient(http, { baseModel: BASE });
    const path = await client.saveWeightsForSampler("w1");
    const policy = tinkerLoopPolicy({ http, baseModel: BASE, renderer });
    const env = await loadProgram(
      readFileSync(new URL("../envs/library/vault-cracker.js", import.meta.url), "utf8"),
    );
    const first = await runEpisode(env, policy.agent({ temperature: 1, maxTokens: 32, seed: 5 }), {
      seed: 1,
    });
    expect(first.failure).toBeNull();
    expect(
      (first.trace as unknown as { stream: { lossMask: number[] } }).stream.lossMask.filter(
        (m) => m === 1,
      ),
    ).toHaveLength(answer.length * first.turns);
    policy.useWeights(path);
    expect(policy.samplerPath).toBe("tinker://model_0/sampler_weights/w1");
    await runEpisode(env, policy.agent({ temperature: 1, maxTokens: 32, seed: 6 }), { seed: 1 });
    await env.close();
    const models = requests.map((r) => r.model);
    expect(models.slice(0, first.turns).every((m) => m === BASE)).toBe(true);
    expect(models.slice(first.turns).every((m) => m === path)).toBe(true);
    expect(
      server
        .requestsTo("/api/v1/create_sampling_session")
        .map((r) => r.body.model_path ?? r.body.base_model),
    ).toEqual([BASE, path]);
    expect(requests[0]!.body.sampling_params).toMatchObject({
      temperature: 1,
      seed: 5,
      max_tokens: 32,
    });
  });

  // Reference: spade/core/orchestrator.py play_game_async, min_generation_tokens = 64.
  it("gives its agents the reference's context reserve: 64 tokens of --spade-max-context-length stay free", async () => {
    const answer = [...asciiIds("\\boxed{0123}"), TINY.imEnd];
    const { http } = await setup(answer);
    const env = await loadProgram(
      readFileSync(new URL("../envs/library/vault-cracker.js", import.meta.url), "utf8"),
    );
    const sampling = { temperature: 1, maxTokens: 32, seed: 5 };
    await runEpisode(env, tinkerLoopPolicy({ http, baseModel: BASE, renderer }).agent(sampling), {
      seed: 1,
    });
    const prompt = requests[0]!.promptTokens.length;
    requests.length = 0;
    const budget = (maxContextTokens: number) =>
      tinkerLoopPolicy({ http, baseModel: BASE, renderer, maxContextTokens }).agent(sampling);
    const squeezed = await runEpisode(env, budget(prompt + 74), { seed: 1 });
    expect(requests[0]!.body.sampling_params.max_tokens).toBe(10);
    requests.length = 0;
    const full = await runEpisode(env, budget(prompt + 64), { seed: 1 });
    await env.close();
    expect(requests).toHaveLength(0);
    expect(full).toMatchObject({ turns: 0, failureCode: "E_POLICY_CONTEXT" });
    expect(squeezed.turns).toBeGreaterThan(0);
  });
});
