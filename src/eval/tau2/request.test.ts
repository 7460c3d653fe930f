// The harness request runTau2 sends: each role's litellm model and sampling, the protocol settings.
import { describe, expect, it } from "vitest";
import { driverRequest } from "./request.js";
import { TAU2_DEFAULTS, type Tau2Settings } from "./settings.js";

const settings: Tau2Settings = {
  ...TAU2_DEFAULTS,
  temperature: 0.6,
  topP: 0.95,
  topK: 20,
  maxTokens: 4096,
  userTemperature: 0.3,
  userMaxTokens: 512,
  judgeTemperature: 0,
};
const agent = { baseURL: "http://agent/v1", model: "policy" };
const user = { baseURL: "http://user/v1", model: "sim", apiKey: "k-user" };
const base = (apiBase: string, apiKey: string) => ({
  api_base: apiBase,
  api_key: apiKey,
  num_retries: 0,
  timeout: 600,
});

describe("driverRequest", () => {
  it("gives each role its endpoint and sampling; the judge defaults to the agent's endpoint", () => {
    const request = driverRequest({
      domains: ["retail"],
      settings,
      agent,
      user,
      judge: null,
      scripted: false,
      limit: 3,
      skip: {},
      outDir: "/out",
    });
    expect(request.agent).toEqual({
      model: "openai/policy",
      args: {
        ...base("http://agent/v1", "spade-no-key"),
        temperature: 0.6,
        top_p: 0.95,
        max_tokens: 4096,
        extra_body: { top_k: 20 },
      },
    });
    expect(request.user).toEqual({
      model: "openai/sim",
      args: { ...base("http://user/v1", "k-user"), temperature: 0.3, max_tokens: 512 },
    });
    expect(request.judge).toEqual({
      model: "openai/policy",
      args: { ...base("http://agent/v1", "spade-no-key"), temperature: 0 },
    });
    expect(request).toMatchObject({
      domains: ["retail"],
      limit: 3,
      agent_impl: "llm_agent",
      evaluation_type: "all_with_nl_assertions",
      save_dir: "/out/tau2",
      ground_truth_file: null,
      log_level: "ERROR",
    });
  });
});
