// The shared policy flags: one vocabulary with spade run, schema-checked sampling, old names refused.
import { describe, expect, it } from "vitest";
import { codeAndMessageOf, codeAndMessageOfAsync } from "../../test/assert.js";
import { startFakeOpenAIServer } from "../../test/fakes/openai-server.js";
import type { AgentTurn } from "../rollout/index.js";
import { policyArgs, policyFromFlags, samplingFlags, secondModelBackend } from "./policy.js";

describe("policy flags", () => {
  it("name the engine and its model as spade run does", () => {
    expect(Object.keys(policyArgs)).toEqual(
      expect.arrayContaining([
        "base-url",
        "model",
        "engine",
        "base-model",
        "model-path",
        "temperature",
        "max-tokens",
      ]),
    );
    expect(policyArgs.temperature.description).toMatch(/^sampling temperature of both roles/);
  });

  it("sampling: only the flags given, checked by the schema", () => {
    expect(samplingFlags({})).toBeUndefined();
    expect(samplingFlags({ temperature: "0.2" })).toEqual({ temperature: 0.2 });
    expect(samplingFlags({ "max-tokens": "64" })).toEqual({ max_tokens: 64 });
    expect(codeAndMessageOf(() => samplingFlags({ temperature: "-1" }))).toEqual({
      code: "E_CONFIG",
      message:
        'setting temperature (--temperature): Too small: expected number to be >=0 (got "-1")',
    });
    expect(codeAndMessageOf(() => samplingFlags({ "max-tokens": "1.5" }))).toEqual({
      code: "E_CONFIG",
      message:
        'setting maxTokens (--max-tokens): Invalid input: expected int, received number (got "1.5")',
    });
  });

  it("--policy tinker refuses the old --base-url / --model with the new names", () => {
    expect(
      codeAndMessageOf(() =>
        policyFromFlags({
          policy: "tinker",
          "base-url": "http://127.0.0.1:1",
          model: "m",
          "model-path": "/x",
        }),
      ),
    ).toEqual({
      code: "E_CONFIG",
      message:
        "--policy tinker takes the engine as --engine URL and its model as --base-model NAME, not --base-url / --model (write --engine URL --base-model NAME (the names spade run uses))",
    });
    expect(
      codeAndMessageOf(() =>
        policyFromFlags({ policy: "tinker", "base-model": "m", "model-path": "/x" }),
      ),
    ).toEqual({
      code: "E_CONFIG",
      message: "--policy tinker needs --engine (add --engine http://127.0.0.1:8000)",
    });
    expect(
      codeAndMessageOf(() =>
        policyFromFlags({ policy: "tinker", engine: "http://127.0.0.1:1", "model-path": "/x" }),
      ),
    ).toEqual({
      code: "E_CONFIG",
      message: "--policy tinker needs --base-model (add --base-model BASE_MODEL)",
    });
  });
});

describe("spade run's backends", () => {
  it("refuse --policy tinker with --base-url, naming --engine", async () => {
    const { buildConfig } = await import("../config/index.js");
    const { runBackends } = await import("./run-engine.js");
    const config = buildConfig([
      { policy: "tinker", baseUrl: "http://127.0.0.1:1/v1", model: "m", train: false },
    ]);
    expect(await codeAndMessageOfAsync(runBackends(config, {}, { dir: "." }))).toEqual({
      code: "E_CONFIG",
      message:
        "--policy tinker samples from a Tinker-compatible engine, named --engine URL (its model --base-model NAME), not --base-url / --model (write --engine URL --base-model NAME --model-path DIR, or --policy openai for an OpenAI-compatible server)",
    });
  });
});

describe("secondModelBackend (ACEBench's simulated user)", () => {
  /** TEST DOUBLES: an agent's server that answers and a user's that is refused (nothing on port 9). */
  const REFUSED = "http://127.0.0.1:9/v1";
  /** The first turn of an environment without tools. */
  const TURN = {
    env: { meta: { tools: [] } },
    observation: "hi",
    toolResults: [],
    turn: 0,
  } as unknown as AgentTurn;

  it("takes the command's request settings and, on another server, trips the breaker apart from the agent's answers", async () => {
    const agentServer = await startFakeOpenAIServer(() => ({ kind: "text", content: "ok" }));
    try {
      const flags = {
        policy: "openai",
        "base-url": agentServer.baseURL,
        model: "m",
        "max-retries": "0",
        "outage-after": "2",
      };
      const policy = policyFromFlags(flags);
      const user = secondModelBackend(policy, flags, { baseURL: REFUSED, model: "u" });
      const agent = policy.makeAgent({ seed: 0 });
      const ask = () => user.complete({ messages: [{ role: "user", content: "hi" }] });
      await agent(TURN);
      const first = await codeAndMessageOfAsync(ask());
      expect(first.code).toBe("E_POLICY_HTTP");
      expect(first.message).toMatch(/could not reach http:\/\/127\.0\.0\.1:9\/v1: .*\(1 attempt\)/);
      await agent(TURN); // the agent's server answers: the user's count goes on
      expect(policy.outage?.error).toBeNull();
      await ask().catch(() => {});
      expect(policy.outage?.error?.code).toBe("E_POLICY_UNAVAILABLE");
      expect(agentServer.requests).toHaveLength(2);
    } finally {
      await agentServer.close();
    }
  });

  it("on the agent's own server shares its count", async () => {
    const flags = {
      policy: "openai",
      "base-url": `${REFUSED}/`,
      model: "m",
      "max-retries": "0",
      "outage-after": "2",
    };
    const policy = policyFromFlags(flags);
    const user = secondModelBackend(policy, flags, { baseURL: REFUSED, model: "u" });
    const agent = policy.makeAgent({ seed: 0 });
    await agent(TURN).catch(() => {});
    expect(policy.outage?.error).toBeNull();
    await user.complete({ messages: [{ role: "user", content: "hi" }] }).catch(() => {});
    expect(policy.outage?.error?.code).toBe("E_POLICY_UNAVAILABLE");
  });
});
