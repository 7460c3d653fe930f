/**
 * @module cli/tinker-policy
 * `--policy tinker`: a token agent that samples from a Tinker-compatible server (Tinker, SkyRL
 * tx, verl's gateway, TuFT) and renders with the model's own tokenizer files from `--model-path`.
 * The renderer and the sampler (one server session) are made once and shared by every episode.
 */
import {
  ChatRenderer,
  tinkerSampler,
  tokenAgent,
  type TokenSampleRequest,
} from "../policy/index.js";
import type { Agent } from "../rollout/index.js";
import { stderrNotices } from "./notices.js";
import { retryOptions, type RequestSettings } from "./policy.js";

/** What `--policy tinker` is made from. */
export interface TinkerPolicyOptions {
  /** Engine root (`--engine`). */
  baseURL: string;
  /** Base model exactly as the engine names it (`--base-model`). */
  model: string;
  /** Folder with `tokenizer.json` and `tokenizer_config.json` (`--model-path`). */
  modelPath: string;
  /** Variable holding the API key (`--api-key-env`). */
  apiKeyEnv?: string;
  /** `--temperature`; unset: the server's default. */
  temperature?: number;
  /** `--max-tokens` per turn; unset: the token agent's default. */
  maxTokens?: number;
  /** Timeout, retries and budget of each request. Default: the sampler's. */
  request?: RequestSettings;
}

/**
 * The model name and an agent maker for `--policy tinker`. Reads the tokenizer files at once:
 * E_IO / E_CONFIG for a bad `--model-path`, E_CONFIG for an unset key variable.
 */
export function tinkerPolicy(options: TinkerPolicyOptions): {
  model: string;
  /** `temperature` / `maxTokens` of a request replace the options' (a suite's own settings). */
  makeAgent(request: {
    signal?: AbortSignal;
    systemPrompt?: string | null;
    temperature?: number;
    maxTokens?: number;
  }): Agent;
} {
  const renderer = ChatRenderer.fromDir(options.modelPath);
  const sampler = tinkerSampler({
    baseURL: options.baseURL,
    baseModel: options.model,
    apiKeyEnv: options.apiKeyEnv || undefined,
    environment: process.env,
    ...stderrNotices(),
    ...(options.request ? { retry: retryOptions(options.request) } : {}),
  });
  return {
    model: sampler.model,
    makeAgent: ({
      signal,
      systemPrompt,
      temperature = options.temperature,
      maxTokens = options.maxTokens,
    }) => {
      const sampling: Pick<TokenSampleRequest, "temperature"> =
        temperature !== undefined ? { temperature } : {};
      return tokenAgent({
        sampler,
        renderer,
        signal,
        sampling,
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        ...(systemPrompt !== undefined ? { systemPrompt } : {}),
      });
    },
  };
}
