/**
 * @module eval/tau2/request
 * The request the tau2 harness runs: each role's litellm model and sampling, and the reference's
 * protocol settings (trials, steps, evaluation type, where results and ground truth go).
 */
import { join } from "node:path";
import type { JsonObject } from "../../env/index.js";
import type { Tau2DriverRequest, Tau2Model } from "./driver.js";
import type { Tau2Endpoint, Tau2Settings } from "./settings.js";

/** A model for litellm: the endpoint as an OpenAI-compatible one, then `sampling`. */
function tau2Model(endpoint: Tau2Endpoint, sampling: JsonObject): Tau2Model {
  // num_retries 0: tau2's no-retry evaluation protocol (the reference sets the same).
  const base = {
    api_base: endpoint.baseURL,
    api_key: endpoint.apiKey ?? "spade-no-key",
    num_retries: 0,
    timeout: 600,
  };
  return { model: `openai/${endpoint.model}`, args: { ...base, ...sampling } };
}

/** The request for the harness: models, sampling and the reference's protocol settings. */
export function driverRequest(options: {
  domains: readonly string[];
  settings: Tau2Settings;
  agent: Tau2Endpoint;
  user: Tau2Endpoint;
  judge: Tau2Endpoint | null;
  scripted: boolean;
  limit: number | null;
  skip: Record<string, string[]>;
  outDir: string;
}): Tau2DriverRequest {
  const { settings: s } = options;
  // top_k is not an OpenAI parameter (litellm drops it): it goes in the body, as vLLM/SGLang read it.
  const agent = tau2Model(options.agent, {
    temperature: s.temperature,
    top_p: s.topP,
    max_tokens: s.maxTokens,
    extra_body: { top_k: s.topK },
  });
  const user = tau2Model(options.user, {
    temperature: s.userTemperature,
    max_tokens: s.userMaxTokens,
  });
  const judge = tau2Model(options.judge ?? options.agent, { temperature: s.judgeTemperature });
  return {
    domains: [...options.domains],
    split: s.split,
    limit: options.limit,
    skip: options.skip,
    trials: s.trials,
    max_steps: s.maxSteps,
    max_errors: s.maxErrors,
    max_concurrency: s.concurrency,
    seed: s.seed,
    agent,
    user,
    judge,
    agent_impl: options.scripted ? "tagged" : "llm_agent",
    // Scripted players have no judge: "all" scores DB, env assertions, actions and communication,
    // and tau2 itself raises if a task's reward needed NL assertions (the base splits' do not).
    evaluation_type: options.scripted ? "all" : "all_with_nl_assertions",
    save_dir: join(options.outDir, "tau2"),
    ground_truth_file: options.scripted
      ? join(options.outDir, "tau2", "{domain}.ground-truth.json")
      : null,
    log_level: "ERROR",
  };
}
