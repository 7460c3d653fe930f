/**
 * The policy backend contract suites (test/policy-contract.ts) over the backends that need no
 * model engine: the OpenAI-compatible backend against the fake server and the Tinker sampler
 * against the fake Tinker server (the local GGUF backend's run, on a tiny random llama, is in
 * gguf-contract.test.ts, in the engine project). Both are test doubles: the suites check
 * behaviour and shapes, never answer quality.
 */
import { describe } from "vitest";
import { fileTempDir } from "../../test/cleanup.js";
import { describeChatBackendContract, type ChatScenario } from "../../test/policy-contract.js";
import { describeTokenSamplerContract } from "../../test/token-sampler-contract.js";
import {
  startFakeOpenAIServer,
  type FakeReply,
  type RecordedRequest,
} from "../../test/fakes/openai-server.js";
import type { FakeSampleRequest, FakeSampleResult } from "../../test/fakes/tinker-server.js";
import { TINY, writeTinyModel } from "../../test/fakes/tiny-model.js";
import { Limiter } from "./limiter.js";
import { openAIChatBackend } from "./openai.js";
import { ChatRenderer } from "./render/index.js";
import { INSTANT_CLOCK } from "./testing/clock.js";
import { fakeTinkerSampler } from "./testing/fake-tinker.js";

/** TEST DOUBLE: a text reply cut at the request's max_tokens as a server cuts it (the fake counts one token per character). */
function fakeText(request: RecordedRequest, content: string): FakeReply {
  const max = request.body.max_tokens;
  return typeof max === "number" && content.length > max
    ? { kind: "text", content: content.slice(0, max), finishReason: "length" }
    : { kind: "text", content };
}

/** TEST DOUBLE: how the fake OpenAI-compatible server plays each scenario. */
function fakeOpenAIReply(scenario: ChatScenario, request: RecordedRequest): FakeReply {
  switch (scenario.kind) {
    case "text":
      return fakeText(request, "The answer is \\boxed{7}.");
    case "long":
      return fakeText(request, "Let me think about this for a long while first.");
    case "tool-call": {
      // It calls only when offered exactly the scenario's tools, and answers the tool result in text.
      if (request.body.messages.some((m: { role: string }) => m.role === "tool"))
        return fakeText(request, "Done.");
      if (JSON.stringify(request.body.tools) !== JSON.stringify(scenario.tools))
        return fakeText(request, "No tools were offered.");
      return {
        kind: "tool_calls",
        calls: [
          {
            id: "call_scene",
            name: scenario.call.name,
            arguments: JSON.stringify(scenario.call.arguments),
          },
        ],
      };
    }
    case "hang":
      return { kind: "hang" };
    case "episode":
      return fakeText(request, "\\boxed{0123}");
  }
}

describe("OpenAI-compatible backend against the fake server", () => {
  describeChatBackendContract({
    toolCalls: "scripted",
    async open(scenario) {
      const server = await startFakeOpenAIServer((request) => fakeOpenAIReply(scenario, request));
      const backend = openAIChatBackend({
        baseURL: server.baseURL,
        model: "fake-model",
        clock: INSTANT_CLOCK,
        limiter: new Limiter(4),
      });
      return { backend, close: () => server.close() };
    },
  });
});

describe("Tinker sampler against the fake Tinker server", () => {
  const modelDir = fileTempDir("spade-tiny-contract-");
  let renderer: ChatRenderer | undefined;
  const tinyRenderer = () => (renderer ??= ChatRenderer.fromDir(writeTinyModel(modelDir)));

  /** TEST DOUBLE: an engine that always writes `\boxed{0123}` then end-of-turn, stopping at the request's stop ids or max tokens. */
  const engine = (request: FakeSampleRequest): FakeSampleResult => {
    const answer = [...tinyRenderer().encode("\\boxed{0123}"), TINY.imEnd];
    const stopAt = answer.findIndex((id) => request.stop.includes(id));
    const full = stopAt === -1 ? answer : answer.slice(0, stopAt + 1);
    const tokens = full.slice(0, request.maxTokens);
    const stopReason = tokens.length < full.length || stopAt === -1 ? "length" : "stop";
    return {
      sequences: Array.from({ length: request.numSamples }, () => ({
        tokens,
        logprobs: tokens.map(() => -0.5),
        stop_reason: stopReason,
      })),
    };
  };

  describeTokenSamplerContract({
    renderer: tinyRenderer,
    async open() {
      const { server, sampler } = await fakeTinkerSampler({ sample: engine });
      return {
        sampler,
        close: async () => {
          sampler.close();
          await server.close();
        },
      };
    },
  });
});
