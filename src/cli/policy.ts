/**
 * @module cli/policy
 * The `--policy` flags shared by `spade env run` and `spade eval ...`: who plays (baselines that
 * need no model, or a model on an OpenAI-compatible server) and how its agents are made. Names
 * match `spade run`'s: an OpenAI-compatible server is `--base-url` + `--model`, a
 * Tinker-compatible engine `--engine` + `--base-model` (+ `--model-path`); sampling flags are
 * described and checked by the run configuration's schema.
 */
import { existsSync } from "node:fs";
import { buildConfig, CONFIG_SCHEMA, configFlagHelp, type RunConfig } from "../config/index.js";
import { SpadeError } from "../errors.js";
import {
  chatAgent,
  ggufChatBackend,
  isRemoteModel,
  openAIChatBackend,
  OutageBreaker,
  type ChatBackend,
  type RetryOptions,
  type SamplingParams,
} from "../policy/index.js";
import { stderrNotices, type ServerNotices } from "./notices.js";
import { oracleAgent, randomAgent, type Agent } from "../rollout/index.js";
import { tinkerPolicy } from "./tinker-policy.js";

/** The policies a command accepts. */
export const POLICY_NAMES = ["oracle", "random", "openai", "tinker", "gguf"] as const;

/** The flags of `--policy` and of the model behind it. */
export const policyArgs = {
  policy: {
    type: "string",
    description: `who plays: ${POLICY_NAMES.join(" | ")}`,
    default: "oracle",
  },
  "base-url": {
    type: "string",
    description: "OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1 (--policy openai)",
  },
  model: { type: "string", description: "model name as the server knows it (--policy openai)" },
  engine: {
    type: "string",
    description: `${CONFIG_SCHEMA.shape.engine.description} (--policy tinker)`,
  },
  "base-model": {
    type: "string",
    description: `${CONFIG_SCHEMA.shape.baseModel.description} (--policy tinker)`,
  },
  "api-key-env": {
    type: "string",
    description:
      "environment variable holding the API key (--policy openai); omit for local servers",
  },
  temperature: {
    type: "string",
    description: `${CONFIG_SCHEMA.shape.temperature.description} (--policy openai, tinker, gguf; unset: the server's, greedy for gguf)`,
  },
  "max-tokens": {
    type: "string",
    description: `${CONFIG_SCHEMA.shape.maxTokens.description} (--policy openai, tinker, gguf; unset: the server's, 1024 for gguf)`,
  },
  "model-path": {
    type: "string",
    description:
      "folder with the model's tokenizer.json and tokenizer_config.json (--policy tinker); a .gguf file or hf:user/repo/file.gguf (--policy gguf)",
  },
  "request-timeout": { type: "string", description: configFlagHelp("requestTimeout") },
  "retry-budget": { type: "string", description: configFlagHelp("retryBudget") },
  "max-retries": { type: "string", description: configFlagHelp("maxRetries") },
  "max-answer-bytes": { type: "string", description: configFlagHelp("maxAnswerBytes") },
  "outage-after": { type: "string", description: configFlagHelp("outageAfter") },
} as const;

/** The model-server request settings (schema keys), shared by `spade run`, `env run` and `eval`. */
export type RequestSettings = Pick<
  RunConfig,
  "requestTimeout" | "retryBudget" | "maxRetries" | "maxAnswerBytes" | "outageAfter"
>;

/** The request settings of `--request-timeout`, `--retry-budget`, `--max-retries`, `--max-answer-bytes`, `--outage-after`, checked by the schema. */
export function requestFlags(
  flags: Pick<
    PolicyFlags,
    "request-timeout" | "retry-budget" | "max-retries" | "max-answer-bytes" | "outage-after"
  >,
): RequestSettings {
  const config = buildConfig([
    {
      requestTimeout: flags["request-timeout"],
      retryBudget: flags["retry-budget"],
      maxRetries: flags["max-retries"],
      maxAnswerBytes: flags["max-answer-bytes"],
      outageAfter: flags["outage-after"],
    },
  ]);
  return {
    requestTimeout: config.requestTimeout,
    retryBudget: config.retryBudget,
    maxRetries: config.maxRetries,
    maxAnswerBytes: config.maxAnswerBytes,
    outageAfter: config.outageAfter,
  };
}

/** The next step of an evaluation stopped by its outage breaker. */
export const EVAL_OUTAGE_NEXT_STEP =
  "finished items are kept: once the model server answers again (spade doctor checks it), rerun with --resume and the same --out; items a sample of which the server failed are played again";

/**
 * The breaker of a model-backed command (`--outage-after`; null for 0): once it trips, the work
 * stops with E_POLICY_UNAVAILABLE saying `nextStep` (an evaluation's, by default: finished items
 * kept, `withEvalInterrupt`).
 */
export function evalOutageBreaker(
  settings: RequestSettings,
  nextStep: string | (() => string) = EVAL_OUTAGE_NEXT_STEP,
): OutageBreaker | null {
  if (settings.outageAfter === 0) return null;
  return new OutageBreaker({ after: settings.outageAfter, nextStep });
}

/** The retry options of request settings. */
export function retryOptions(settings: RequestSettings): RetryOptions {
  return {
    timeoutMs: Math.round(settings.requestTimeout * 1000),
    budgetMs: Math.round(settings.retryBudget * 1000),
    maxRetries: settings.maxRetries,
  };
}

/** Parsed values of `policyArgs`. */
export interface PolicyFlags {
  policy?: string;
  "base-url"?: string;
  model?: string;
  engine?: string;
  "base-model"?: string;
  "api-key-env"?: string;
  temperature?: string;
  "max-tokens"?: string;
  "model-path"?: string;
  "request-timeout"?: string;
  "retry-budget"?: string;
  "max-retries"?: string;
  "max-answer-bytes"?: string;
  "outage-after"?: string;
}

/** What an agent is made for. */
export interface AgentRequest {
  /** Seed of the episode (the random baseline's stream). */
  seed: number;
  /** Cancels the agent's requests. */
  signal?: AbortSignal;
  /** Chat agents: the system message (null: none). Default the chat agent's. */
  systemPrompt?: string | null;
  /** Sampling of this agent's requests (a suite's settings); `--temperature` / `--max-tokens` given by the user win. */
  sampling?: SamplingParams;
}

/** A resolved `--policy`: its name for records, and a maker of one agent per episode. */
export interface Policy {
  name: (typeof POLICY_NAMES)[number];
  /** The model name (`--model`), or the policy's name for baselines. */
  model: string;
  /** The chat backend, for model-backed policies. */
  backend: ChatBackend | null;
  /** Model-server policies: stops the evaluation when the server fails `--outage-after` requests in a row (its agents are watched by it); null otherwise. */
  outage: OutageBreaker | null;
  makeAgent(request: AgentRequest): Agent;
}

/** A flag a policy cannot do without, or E_CONFIG naming it. */
export function requiredFlag(
  policy: string,
  name: string,
  value: string | undefined,
  example: string,
): string {
  if (!value)
    throw new SpadeError("E_CONFIG", `--policy ${policy} needs --${name}`, {
      nextStep: `add --${name} ${example}`,
    });
  return value;
}

/** Sampling parameters from `--temperature` and `--max-tokens`, checked by the run schema; only those given. */
export function samplingFlags(
  flags: Pick<PolicyFlags, "temperature" | "max-tokens">,
): SamplingParams | undefined {
  const config = buildConfig([{ temperature: flags.temperature, maxTokens: flags["max-tokens"] }]);
  const sampling: SamplingParams = {};
  if (flags.temperature !== undefined) sampling.temperature = config.temperature;
  if (flags["max-tokens"] !== undefined) sampling.max_tokens = config.maxTokens;
  return Object.keys(sampling).length > 0 ? sampling : undefined;
}

/**
 * `--policy tinker` before the names were shared took the engine as `--base-url` and the model as
 * `--model`: E_CONFIG naming `--engine` / `--base-model` (what `spade run` calls them).
 */
function refuseOldTinkerFlags(flags: PolicyFlags): void {
  const old = [
    flags["base-url"] !== undefined ? "--base-url" : null,
    flags.model !== undefined ? "--model" : null,
  ].filter((f) => f !== null);
  if (old.length === 0) return;
  throw new SpadeError(
    "E_CONFIG",
    `--policy tinker takes the engine as --engine URL and its model as --base-model NAME, not ${old.join(" / ")}`,
    {
      nextStep: "write --engine URL --base-model NAME (the names spade run uses)",
    },
  );
}

/**
 * An OpenAI-compatible backend; E_CONFIG at once for an unset key variable. Request settings
 * default to the schema's; retries and slow answers are reported on stderr unless `notices` says otherwise.
 */
export function openAIBackendFrom(options: {
  baseURL: string;
  model: string;
  apiKeyEnv?: string;
  sampling?: SamplingParams;
  request?: RequestSettings;
  notices?: ServerNotices;
}): ChatBackend {
  const request = options.request ?? requestFlags({});
  return openAIChatBackend({
    baseURL: options.baseURL,
    model: options.model,
    apiKeyEnv: options.apiKeyEnv || undefined,
    environment: process.env,
    sampling: options.sampling,
    retry: retryOptions(request),
    maxAnswerBytes: request.maxAnswerBytes,
    ...(options.notices ?? stderrNotices()),
  });
}

/**
 * The backend of a second model an evaluation talks to (ACEBench's simulated user): the command's
 * request settings (`--request-timeout`, `--max-retries`, ...), and its requests watched by the
 * policy's outage breaker, so a user server that is down stops the evaluation too. On the agent's
 * own server they share its count; on another server they are counted apart (its failures
 * between the agent's answers would never add up).
 */
export function secondModelBackend(
  policy: Pick<Policy, "outage">,
  flags: PolicyFlags,
  model: { baseURL: string; model: string; apiKeyEnv?: string },
): ChatBackend {
  const backend = openAIBackendFrom({ ...model, request: requestFlags(flags) });
  const outage = policy.outage;
  if (!outage) return backend;
  const root = (url: string | undefined) => url?.replace(/\/+$/, "");
  const server = root(model.baseURL) === root(flags["base-url"]) ? "" : model.baseURL;
  return { model: backend.model, complete: outage.wrap(backend.complete.bind(backend), server) };
}

/** A policy of chat agents on `backend`; the user's `--temperature` / `--max-tokens` win over a suite's sampling. */
function chatPolicy(
  name: "openai" | "gguf",
  backend: ChatBackend,
  userSampling: SamplingParams | undefined,
  outage: OutageBreaker | null,
): Policy {
  return watched({
    name,
    model: backend.model,
    backend,
    outage,
    makeAgent: ({ signal, systemPrompt, sampling }) =>
      chatAgent({
        backend,
        signal,
        ...(systemPrompt !== undefined ? { systemPrompt } : {}),
        ...(sampling ? { sampling: { ...sampling, ...userSampling } } : {}),
      }),
  });
}

/** `policy` whose agents are watched by its outage breaker, if it has one. */
function watched(policy: Policy): Policy {
  const { outage, makeAgent } = policy;
  return outage ? { ...policy, makeAgent: (request) => outage.wrap(makeAgent(request)) } : policy;
}

/** How a command that is not an evaluation stops on an outage. */
export interface PolicyOptions {
  /** The next step of its E_POLICY_UNAVAILABLE (default an evaluation's); a function is called when the breaker trips. */
  outageNextStep?: string | (() => string);
}

/**
 * Resolves `--policy` and its flags. Throws E_CONFIG for an unknown policy or a missing flag.
 * A model-server policy's `outage` breaker watches its agents; the command stops when it trips.
 */
export function policyFromFlags(flags: PolicyFlags, options: PolicyOptions = {}): Policy {
  const name = flags.policy ?? "oracle";
  switch (name) {
    case "oracle":
      return { name, model: "oracle", backend: null, outage: null, makeAgent: () => oracleAgent };
    case "random":
      return {
        name,
        model: "random",
        backend: null,
        outage: null,
        makeAgent: ({ seed }) => randomAgent(seed),
      };
    case "openai": {
      const userSampling = samplingFlags(flags);
      const request = requestFlags(flags);
      const backend = openAIBackendFrom({
        baseURL: requiredFlag("openai", "base-url", flags["base-url"], "http://127.0.0.1:8000/v1"),
        model: requiredFlag("openai", "model", flags.model, "NAME"),
        apiKeyEnv: flags["api-key-env"],
        sampling: userSampling,
        request,
      });
      return chatPolicy(
        name,
        backend,
        userSampling,
        evalOutageBreaker(request, options.outageNextStep),
      );
    }
    case "tinker": {
      refuseOldTinkerFlags(flags);
      const sampling = samplingFlags(flags);
      const request = requestFlags(flags);
      const tinker = tinkerPolicy({
        baseURL: requiredFlag("tinker", "engine", flags.engine, "http://127.0.0.1:8000"),
        model: requiredFlag("tinker", "base-model", flags["base-model"], "BASE_MODEL"),
        modelPath: requiredFlag(
          "tinker",
          "model-path",
          flags["model-path"],
          "PATH_TO_TOKENIZER_FOLDER",
        ),
        apiKeyEnv: flags["api-key-env"],
        temperature: sampling?.temperature,
        maxTokens: sampling?.max_tokens,
        request,
      });
      return watched({
        name,
        model: tinker.model,
        backend: null,
        outage: evalOutageBreaker(request, options.outageNextStep),
        makeAgent: ({ sampling: suite, ...agentRequest }) =>
          tinker.makeAgent({
            ...agentRequest,
            temperature: sampling?.temperature ?? suite?.temperature,
            maxTokens: sampling?.max_tokens ?? suite?.max_tokens,
          }),
      });
    }
    case "gguf": {
      const model = requiredFlag("gguf", "model-path", flags["model-path"], "PATH/model.gguf");
      // A missing file is a usage error now, not a failure of every episode later.
      if (!isRemoteModel(model) && !existsSync(model))
        throw new SpadeError("E_NOT_FOUND", `no model file at ${model}`, {
          nextStep: "pass the path of a .gguf file to --model-path",
        });
      const userSampling = samplingFlags(flags);
      const backend = ggufChatBackend({ model, sampling: userSampling });
      // In-process: no server to lose.
      return chatPolicy(name, backend, userSampling, null);
    }
    default:
      throw new SpadeError(
        "E_CONFIG",
        `--policy must be one of ${POLICY_NAMES.join(", ")} (got "${name}")`,
      );
  }
}
