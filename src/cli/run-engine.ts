/**
 * @module cli/run-engine
 * What `spade run` samples from and trains with, from its configuration: chat-level sampling on
 * an OpenAI-compatible server or a local GGUF model (inference-only self-play), or token-level
 * sampling from a Tinker-compatible engine that also trains (`TinkerTrainer`), one session shared
 * by both; with `--engine local` that engine is started here as a child process.
 */
import { existsSync, statSync } from "node:fs";
import { homedir, totalmem } from "node:os";
import { basename, join } from "node:path";
import type { RunConfig } from "../config/index.js";
import { startLocalEngine, type LocalEngine } from "../engine/index.js";
import { SpadeError } from "../errors.js";
import { chatLoopPolicy, tinkerLoopPolicy, type LoopPolicy } from "../loop/index.js";
import { ChatRenderer, ggufChatBackend, isRemoteModel, TinkerHttp } from "../policy/index.js";
import {
  tinkerBaseLogprobs,
  TinkerTrainer,
  TinkerTrainingClient,
  type TinkerTrainerOptions,
  type Trainer,
} from "../trainer/index.js";
import { stderrNotices } from "./notices.js";
import { openAIBackendFrom, retryOptions } from "./policy.js";
import { formatBytes, progressLine, type ProgressStream } from "./progress.js";

/** The model a run samples from and the engine that trains it. */
export interface RunBackends {
  policy: LoopPolicy;
  /** Null for inference-only self-play (--no-train, --policy gguf). */
  trainer: Trainer | null;
  /** The engine this run started (`--engine local`), or null. */
  engine: LocalEngine | null;
  /** Ends the engine session's heartbeat, frees a local model, stops a local engine. */
  close(): Promise<void>;
}

/** Where `spade run` finds what it starts or downloads, from the environment (the CLI passes process.env). */
export interface RunPlaces {
  /** The engine venv's Python: `$SPADE_ENGINE_DIR/bin/python`, default `~/.cache/spade/engine/bin/python` (scripts/setup-engine.sh). */
  enginePython: string;
  /** Where GGUF models are downloaded and looked for: `$SPADE_MODELS_DIR`, default `~/.cache/spade/models`. */
  modelsDir: string;
  /** Hugging Face endpoint: `$HF_ENDPOINT`, default huggingface.co. */
  hfEndpoint?: string;
}

/** The places of `environment`. */
export function runPlaces(environment: Readonly<Record<string, string | undefined>>): RunPlaces {
  const home = environment.HOME || homedir();
  return {
    enginePython: join(
      environment.SPADE_ENGINE_DIR || join(home, ".cache", "spade", "engine"),
      "bin",
      "python",
    ),
    modelsDir: environment.SPADE_MODELS_DIR || join(home, ".cache", "spade", "models"),
    hfEndpoint: environment.HF_ENDPOINT || undefined,
  };
}

/** What building the backends needs besides the configuration. */
export interface RunBackendsOptions {
  /** The run's folder (a local engine keeps its database and checkpoints in `DIR/engine`). */
  dir: string;
  /** Cancels the trainer's requests and a starting engine (Ctrl-C). */
  signal?: AbortSignal;
  /** Progress of downloads and the engine start (default stderr). */
  progress?: ProgressStream;
}

function need(value: string | null, flag: string, example: string, why: string): string {
  if (value) return value;
  throw new SpadeError("E_CONFIG", `${why}: ${flag} is not set`, {
    nextStep: `add ${flag} ${example} (or set it in --config)`,
  });
}

/**
 * The loss settings of a run: `loss`, the PPO ratio bounds [1 - ppoClipLow, 1 + ppoClipHigh], the
 * KL penalty (`klCoef` > 0) against the base model's logprobs from the engine, the loss
 * aggregation and the gradient clip. A run stored before `lossAggregation` and `gradClipNorm`
 * existed has neither: it keeps what it trained with, token sum and no clipping.
 */
export function trainerSettings(
  config: Pick<RunConfig, "loss" | "ppoClipLow" | "ppoClipHigh" | "klCoef" | "learningRate"> &
    Partial<Pick<RunConfig, "lossAggregation" | "gradClipNorm">>,
  http: TinkerHttp,
  baseModel: string,
): Pick<TinkerTrainerOptions, "loss" | "ppoClip" | "kl" | "lossAggregation" | "adam"> {
  return {
    loss: config.loss,
    ppoClip: { low: 1 - config.ppoClipLow, high: 1 + config.ppoClipHigh },
    ...(config.klCoef > 0
      ? { kl: { coef: config.klCoef, baseLogprobs: tinkerBaseLogprobs(http, baseModel) } }
      : {}),
    lossAggregation: config.lossAggregation === "sample-mean" ? "sample-mean" : "token-sum",
    adam: { learningRate: config.learningRate, gradClipNorm: config.gradClipNorm ?? 0 },
  };
}

/**
 * Builds the backends of a run. E_CONFIG when training is asked for without an engine, when a
 * chat-level policy would have to be trained, or when a needed setting is missing; E_IO /
 * E_CONFIG for unusable tokenizer files; `--engine local`: the errors of `startLocalEngine`.
 */
export async function runBackends(
  config: RunConfig,
  environment: Readonly<Record<string, string | undefined>>,
  options: RunBackendsOptions,
): Promise<RunBackends> {
  const { signal } = options;
  const places = runPlaces(environment);
  const stream = options.progress ?? process.stderr;
  if (config.train && config.engine === null && config.policy !== "gguf") {
    throw new SpadeError("E_CONFIG", "training needs a training engine, and none is configured", {
      nextStep:
        "add --engine URL --base-model NAME --model-path DIR (a Tinker-compatible server: Tinker, SkyRL tx, verl's gateway), --engine local --base-model NAME (SkyRL's server started for you), or pass --no-train for inference-only self-play",
    });
  }
  if (config.policy === "openai" || config.policy === "gguf") {
    if (config.train) {
      throw new SpadeError(
        "E_CONFIG",
        `--policy ${config.policy} samples chat messages, which cannot be trained on (training needs the sampled tokens and their logprobs)`,
        {
          nextStep:
            "leave --policy unset (with --engine it samples token by token from the engine), or pass --no-train",
        },
      );
    }
    if (config.policy === "gguf") return await ggufBackends(config, places, stream);
    const backend = openAIBackendFrom({
      baseURL: need(
        config.baseUrl,
        "--base-url",
        "http://127.0.0.1:8000/v1",
        "self-play needs a model",
      ),
      model: need(config.model, "--model", "NAME", "self-play needs a model"),
      apiKeyEnv: config.apiKeyEnv ?? undefined,
      request: config,
    });
    return { policy: chatLoopPolicy(backend), trainer: null, engine: null, close: async () => {} };
  }
  if (config.engine === null && config.baseUrl !== null) {
    throw new SpadeError(
      "E_CONFIG",
      "--policy tinker samples from a Tinker-compatible engine, named --engine URL (its model --base-model NAME), not --base-url / --model",
      {
        nextStep:
          "write --engine URL --base-model NAME --model-path DIR, or --policy openai for an OpenAI-compatible server",
      },
    );
  }
  const engineRef = need(
    config.engine,
    "--engine",
    "http://127.0.0.1:8000",
    "--policy tinker samples from a Tinker-compatible engine",
  );
  const baseModelRef = need(
    config.baseModel,
    "--base-model",
    "NAME",
    "the engine serves models by name",
  );
  const engine =
    engineRef === "local"
      ? await startEngine(config, baseModelRef, places, options.dir, stream, signal)
      : null;
  try {
    const baseModel = engine?.baseModel ?? baseModelRef;
    const modelPath =
      config.modelPath ??
      engine?.modelDir ??
      (existsSync(baseModelRef) && statSync(baseModelRef).isDirectory() ? baseModelRef : null);
    const renderer = ChatRenderer.fromDir(
      need(
        modelPath,
        "--model-path",
        "DIR",
        "token-level sampling renders with the model's chat template",
      ),
    );
    // Training answers are larger than chat answers: the engine keeps TinkerHttp's own cap.
    const http = new TinkerHttp({
      baseURL: engine?.url ?? engineRef,
      apiKeyEnv: config.apiKeyEnv ?? undefined,
      environment,
      retry: retryOptions(config),
      ...stderrNotices(),
    });
    const policy = tinkerLoopPolicy({ http, baseModel, renderer });
    const trainer = config.train
      ? new TinkerTrainer({
          client: new TinkerTrainingClient(http, {
            baseModel,
            loraRank: config.loraRank,
            loraSeed: config.seed,
            forwardBackwardEncoding: config.fwdbwdEncoding,
          }),
          ...trainerSettings(config, http, baseModel),
          signal,
        })
      : null;
    return {
      policy,
      trainer,
      engine,
      close: async () => {
        http.close();
        await engine?.stop();
      },
    };
  } catch (err) {
    await engine?.stop();
    throw err;
  }
}

/**
 * `--policy gguf`: the local model, downloaded once with progress when it is an `hf:` reference and
 * loaded before the run begins, so a bad file stops the command instead of failing every request.
 */
async function ggufBackends(
  config: RunConfig,
  places: RunPlaces,
  stream: ProgressStream,
): Promise<RunBackends> {
  const model = need(
    config.modelPath,
    "--model-path",
    "PATH/model.gguf (or hf:user/repo/file.gguf)",
    "--policy gguf runs a local GGUF model",
  );
  if (!isRemoteModel(model) && !existsSync(model))
    throw new SpadeError("E_NOT_FOUND", `no model file at ${model}`, {
      nextStep: "pass the path of a .gguf file to --model-path",
    });
  const download = progressLine(stream);
  const backend = ggufChatBackend({
    model,
    name: config.model ?? undefined,
    memoryBytes: totalmem(),
    modelsDir: places.modelsDir,
    hfEndpoint: places.hfEndpoint,
    fileName: isRemoteModel(model) ? basename(model) : undefined,
    onDownloadProgress: ({ downloadedBytes, totalBytes }) => {
      const text = `spade run: downloading ${basename(model)}: ${formatBytes(downloadedBytes)} of ${formatBytes(totalBytes)} (${totalBytes > 0 ? Math.floor((100 * downloadedBytes) / totalBytes) : 0}%)`;
      if (downloadedBytes >= totalBytes && totalBytes > 0)
        download.done(`${text}, saved in ${places.modelsDir}`);
      else download.update(text);
    },
  });
  await backend.load();
  return {
    policy: chatLoopPolicy(backend),
    trainer: null,
    engine: null,
    close: () => backend.close(),
  };
}

/** `--engine local`: SkyRL's server over `baseModel`, its database and checkpoints in `DIR/engine`, with start-up progress. */
async function startEngine(
  config: RunConfig,
  baseModel: string,
  places: RunPlaces,
  dir: string,
  stream: ProgressStream,
  signal?: AbortSignal,
): Promise<LocalEngine> {
  const line = progressLine(stream);
  line.update(
    `spade run: starting the local engine (SkyRL, ${config.engineBackend}) over ${baseModel}`,
  );
  const engine = await startLocalEngine({
    python: places.enginePython,
    baseModel,
    workDir: join(dir, "engine"),
    logFile: join(dir, "engine", "engine.log"),
    port: config.enginePort,
    backend: config.engineBackend,
    backendConfig: JSON.parse(config.engineBackendConfig) as Record<string, unknown>,
    readyTimeoutMs: Math.round(config.engineStartTimeout * 1000),
    signal,
    onProgress: (seconds, last) =>
      line.update(
        `spade run: starting the local engine: ${seconds} s${last ? ` (${last.slice(0, 100)})` : ""}`,
      ),
  });
  line.done(
    `spade run: local engine ready at ${engine.url} in ${engine.readySeconds.toFixed(1)} s (pid ${engine.pid}; log: ${join(dir, "engine", "engine.log")})`,
  );
  return engine;
}
