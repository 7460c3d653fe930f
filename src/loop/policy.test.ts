import { describe, expect, it } from "vitest";
import { closedAfterEach, fileTempDir } from "../../test/cleanup.js";
import { startFakeOpenAIServer } from "../../test/fakes/openai-server.js";
import { startFakeTinkerServer, type FakeSampleRequest } from "../../test/fakes/tinker-server.js";
import { asciiIds, TINY, writeTinyModel } from "../../test/fakes/tiny-model.js";
import { buildConfig } from "../config/index.js";
import { makeTestEnv } from "../env/testing/test-env.js";
import { ChatRenderer, openAIChatBackend, TinkerHttp } from "../policy/index.js";
import { runEpisode } from "../rollout/index.js";
import { chatLoopPolicy, chatSampling, hintSampling, runSampling } from "./policy.js";
import { tinkerLoopPolicy } from "./tinker-policy.js";

const startOpenAI = closedAfterEach(startFakeOpenAIServer);
const startTinker = closedAfterEach(startFakeTinkerServer);
const dir = fileTempDir("spade-loop-sampling-");

describe("the run's sampling settings (reference: spade/core/types.py env_/actor_ top_p 0.95, top_k 20)", () => {
  it("are 0.6 / 0.95 / 20 for both roles by default; topK 0 is not sent", () => {
    expect(runSampling(buildConfig([]))).toEqual({ temperature: 0.6, topP: 0.95, topK: 20 });
    expect(runSampling(buildConfig([{ topK: "0", topP: "1" }]))).toEqual({
      temperature: 0.6,
      topP: 1,
    });
    expect(chatSampling({ temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 9, seed: 4 })).toEqual(
      { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 9, seed: 4 },
    );
    expect(chatSampling({ temperature: 0, maxTokens: 9, seed: 4 })).toEqual({
      temperature: 0,
      max_tokens: 9,
      seed: 4,
    });
  });

  // Reference: hint_generator.py SelfHintGenerator.generate_async passes temperature and max
  // tokens only; model_adapter.py generate_async defaults top_p to 0.9, and top_k comes from
  // default_sampling_params = args.rollout_top_k, Slime's --rollout-top-k default -1 (slime
  // bf14dc2 slime/utils/arguments.py:316), which cmd/games/train_spade_30b.sh does not set.
  it("the hint writer samples at 0.3 with top-p 0.9 (the adapter's default), no top-k (Slime's -1) and the mode's token budget", () => {
    expect(hintSampling(buildConfig([]))).toEqual({
      temperature: 0.3,
      topP: 0.9,
      maxTokens: 4096,
    });
    expect(hintSampling(buildConfig([{ mode: "tool-use" }]))).toEqual({
      temperature: 0.3,
      topP: 0.9,
      maxTokens: 2048,
    });
    // --top-k is the agent's and the designer's, never the hint writer's.
    expect(hintSampling(buildConfig([{ topK: "40" }]))).toEqual({
      temperature: 0.3,
      topP: 0.9,
      maxTokens: 4096,
    });
    expect(chatSampling({ ...hintSampling(buildConfig([])), seed: 3 })).toEqual({
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 4096,
      seed: 3,
    });
  });

  it("reach an OpenAI-compatible server as temperature, top_p and the body field top_k (vLLM, SGLang), for designer and agent", async () => {
    const openai = await startOpenAI(() => ({ kind: "text", content: "\\boxed{42}" }));
    const policy = chatLoopPolicy(openAIChatBackend({ baseURL: openai.baseURL, model: "m" }));
    const sampling = { ...runSampling(buildConfig([])), maxTokens: 64, seed: 5 };
    await policy.complete([{ role: "user", content: "design" }], sampling);
    await runEpisode(makeTestEnv(), policy.agent(sampling), { seed: 1 });
    expect(openai.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of openai.requests) {
      expect(request.body).toMatchObject({
        temperature: 0.6,
        top_p: 0.95,
        top_k: 20,
        max_tokens: 64,
        seed: 5,
      });
    }
  });

  it("reach a Tinker-compatible sampler in its sampling parameters, for designer and agent", async () => {
    const requests: FakeSampleRequest[] = [];
    const answer = [...asciiIds("\\boxed{42}"), TINY.imEnd];
    const tinker = await startTinker({
      baseModel: "Org/Tiny-1B",
      sample: (request) => (
        requests.push(request),
        { sequences: [{ tokens: answer, logprobs: answer.map(() => -0.1), stop_reason: "stop" }] }
      ),
    });
    const http = new TinkerHttp({ baseURL: tinker.baseURL, heartbeatMs: 0, pollIntervalMs: 1 });
    const policy = tinkerLoopPolicy({
      http,
      baseModel: "Org/Tiny-1B",
      renderer: ChatRenderer.fromDir(writeTinyModel(dir)),
    });
    const sampling = { ...runSampling(buildConfig([])), maxTokens: 64, seed: 5 };
    await policy.complete([{ role: "user", content: "design" }], sampling);
    await runEpisode(makeTestEnv(), policy.agent(sampling), { seed: 1 });
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const request of requests)
      expect(request.body.sampling_params).toMatchObject({
        temperature: 0.6,
        top_p: 0.95,
        top_k: 20,
        max_tokens: 64,
        seed: 5,
      });
    http.close();
  });
});
