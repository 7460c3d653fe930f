/**
 * @module cli/run-engine
 * What `spade run` samples from and trains with, from its configuration: chat-level sampling on
 * an OpenAI-compatible server (inference-only self-play), or token-level sampling from a
 * Tinker-compatible engine that also trains (`TinkerTrainer`), one session shared by both.
 */
import type { RunConfig } from "../config/index.js";
import { SpadeError } from "../errors.js";
import { chatLoopPolicy, tinkerLoopPolicy, type LoopPolicy } from "../loop/index.js";
import { ChatRenderer, TinkerHttp } from "../policy/index.js";
import { tinkerBaseLogprobs, TinkerTrainer, TinkerTrainingClient, type TinkerTrainerOptions, type Trainer } from "../trainer/index.js";
import { stderrNotices } from "./notices.js";
import { openAIBackendFrom, retryOptions } from "./policy.js";

/** The model a run samples from and the engine that trains it. */
export interface RunBackends {
  policy: LoopPolicy;
  /** Null for inference-only self-play (--no-train). */
  trainer: Trainer | null;
  /** Ends the engine session's heartbeat. */
  close(): void;
}

function need(value: string | null, flag: string, example: string, why: string): string {
  if (value) return value;
  throw new SpadeError("E_CONFIG", `${why}: ${flag} is not set`, { nextStep: `add ${flag} ${example} (or set it in --config)` });
}

/**
 * The loss settings of a run: `loss`, the PPO ratio bounds [1 - ppoClipLow, 1 + ppoClipHigh], and
 * the KL penalty (`klCoef` > 0) against the base model's logprobs from the engine.
 */
export function trainerSettings(
  config: Pick<RunConfig, "loss" | "ppoClipLow" | "ppoClipHigh" | "klCoef" | "learningRate">,
  http: TinkerHttp,
  baseModel: string,
): Pick<TinkerTrainerOptions, "loss" | "ppoClip" | "kl" | "adam"> {
  return {
    loss: config.loss,
    ppoClip: { low: 1 - config.ppoClipLow, high: 1 + config.ppoClipHigh },
    ...(config.klCoef > 0 ? { kl: { coef: config.klCoef, baseLogprobs: tinkerBaseLogprobs(http, baseModel) } } : {}),
    adam: { learningRate: config.learningRate },
  };
}

/**
 * Builds the backends of a run. E_CONFIG when training is asked for without an engine, when a
 * chat-level policy would have to be trained, or when a needed setting is missing; E_IO /
 * E_CONFIG for unusable tokenizer files. `signal` cancels the trainer's requests (Ctrl-C).
 */
export function runBackends(config: RunConfig, environment: Readonly<Record<string, string | undefined>>, signal?: AbortSignal): RunBackends {
  if (config.train && config.engine === null) {
    throw new SpadeError("E_CONFIG", "training needs a training engine, and none is configured", {
      nextStep: "add --engine URL --base-model NAME --model-path DIR (a Tinker-compatible server: Tinker, SkyRL tx, verl's gateway), or pass --no-train for inference-only self-play",
    });
  }
  if (config.policy === "openai") {
    if (config.train) {
      throw new SpadeError("E_CONFIG", "--policy openai samples chat messages, which cannot be trained on (training needs the sampled tokens and their logprobs)", {
        nextStep: "leave --policy unset (with --engine it samples token by token from the engine), or pass --no-train",
      });
    }
    const backend = openAIBackendFrom({
      baseURL: need(config.baseUrl, "--base-url", "http://127.0.0.1:8000/v1", "self-play needs a model"),
      model: need(config.model, "--model", "NAME", "self-play needs a model"),
      apiKeyEnv: config.apiKeyEnv ?? undefined,
      request: config,
    });
    return { policy: chatLoopPolicy(backend), trainer: null, close: () => {} };
  }
  if (config.engine === null && config.baseUrl !== null) {
    throw new SpadeError("E_CONFIG", "--policy tinker samples from a Tinker-compatible engine, named --engine URL (its model --base-model NAME), not --base-url / --model", {
      nextStep: "write --engine URL --base-model NAME --model-path DIR, or --policy openai for an OpenAI-compatible server",
    });
  }
  const engine = need(config.engine, "--engine", "http://127.0.0.1:8000", "--policy tinker samples from a Tinker-compatible engine");
  const baseModel = need(config.baseModel, "--base-model", "NAME", "the engine serves models by name");
  const renderer = ChatRenderer.fromDir(need(config.modelPath, "--model-path", "DIR", "token-level sampling renders with the model's chat template"));
  // Training answers are larger than chat answers: the engine keeps TinkerHttp's own cap.
  const http = new TinkerHttp({ baseURL: engine, apiKeyEnv: config.apiKeyEnv ?? undefined, environment, retry: retryOptions(config), ...stderrNotices() });
  const policy = tinkerLoopPolicy({ http, baseModel, renderer });
  const trainer = config.train ? new TinkerTrainer({ client: new TinkerTrainingClient(http, { baseModel, loraRank: config.loraRank, loraSeed: config.seed, forwardBackwardEncoding: config.fwdbwdEncoding }), ...trainerSettings(config, http, baseModel), signal }) : null;
  return { policy, trainer, close: () => http.close() };
}
