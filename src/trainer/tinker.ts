/**
 * @module trainer/tinker
 * The Tinker-compatible TRAINING client (Tinker, SkyRL tx, verl's gateway) on the shared HTTP
 * layer: `create_model` (LoRA), `forward_backward`, `optim_step`, `save_weights_for_sampler`,
 * `save_weights` / `load_weights` (resume). Wire format as the official SDK's types define it
 * (`CreateModelRequest`, `ForwardBackwardRequest {forward_backward_input: {data, loss_fn,
 * loss_fn_config}, model_id, seq_id}`, `OptimStepRequest {adam_params}`, `SaveWeights*Request`,
 * `LoadWeightsRequest`); every model-scoped request carries the next `seq_id` of its model (1, 2...).
 * Bodies are what the official SDK 0.38.0 sends (test/tinker-sdk/ compares them request by
 * request); `forward_backward` goes as protobuf where the server takes it (fwdbwd-wire.ts).
 */
import { SpadeError } from "../errors.js";
import {
  decodeForwardBackwardOutput,
  JSON_BODY,
  type TinkerClientConfig,
  type TinkerHttp,
} from "../policy/index.js";
import type { Datum, TensorData } from "./datums.js";
import {
  chunkDatums,
  combineOutputs,
  FORWARD_BACKWARD_ENCODINGS,
  ForwardBackwardWire,
  type ForwardBackwardEncoding,
} from "./fwdbwd-wire.js";

/** The policy-gradient losses SPADE trains with (Tinker's `LossFnType` names). */
export type TinkerLoss = "importance_sampling" | "ppo";

/** Adam settings of one optimiser step (`AdamParams`; weight decay is decoupled). */
export interface AdamParams {
  learningRate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** The global gradient norm is clipped to this before the update (`grad_clip_norm`); 0: no clipping. */
  gradClipNorm: number;
}

/** What `forward_backward` gives back (`ForwardBackwardOutput`). */
export interface ForwardBackwardOutput {
  /** Per datum, the engine's output tensors (`logprobs` of the targets, often `elementwise_loss`). */
  lossFnOutputs: Array<Record<string, TensorData>>;
  /** Engine metrics, keys `name:reduction` (e.g. `loss:sum`). */
  metrics: Record<string, number>;
}

/** A submitted request: submission order is the engine's execution order; `result()` waits for it. */
export interface Submitted<T> {
  requestId: string;
  result(): Promise<T>;
}

/** Settings of a training client. */
export interface TinkerTrainingOptions {
  /** The base model exactly as the engine names it. */
  baseModel: string;
  /** LoRA rank. Default 32. */
  loraRank?: number;
  /** Seed of the LoRA initialisation; unset: the engine's choice. */
  loraSeed?: number;
  /**
   * How `forward_backward` bodies go on the wire: `auto` (default) sends protobuf, as the official
   * SDK does, and falls back to JSON for the rest of the session when the server refuses it (HTTP
   * 415 / 422, e.g. SkyRL tx); `protobuf` or `json` force one.
   */
  forwardBackwardEncoding?: ForwardBackwardEncoding;
}

/** Only the finite numbers of a metrics object. */
function numbers(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value))
      if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

function text(value: unknown, what: string, body: unknown): string {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number") return String(value);
  throw new SpadeError(
    "E_POLICY_OUTPUT",
    `${what} is missing from the engine's answer: ${JSON.stringify(body).slice(0, 200)}`,
    { nextStep: "check that the engine speaks the Tinker training API" },
  );
}

/** A training client of one LoRA model on a Tinker-compatible engine. */
export class TinkerTrainingClient {
  #modelId: Promise<string> | null = null;
  /** The last seq id the engine accepted for this model (ids count from 1). */
  #lastSeqId = 0;
  /** The previous submission: the next one is posted after it. */
  #turn: Promise<void> = Promise.resolve();
  readonly #wire: ForwardBackwardWire;

  constructor(
    readonly http: TinkerHttp,
    readonly options: TinkerTrainingOptions,
  ) {
    const rank = options.loraRank ?? 32;
    if (!Number.isInteger(rank) || rank < 1)
      throw new SpadeError("E_CONFIG", `loraRank must be an integer >= 1 (got ${rank})`);
    const encoding = options.forwardBackwardEncoding ?? "auto";
    if (!FORWARD_BACKWARD_ENCODINGS.includes(encoding))
      throw new SpadeError(
        "E_CONFIG",
        `forwardBackwardEncoding must be one of ${FORWARD_BACKWARD_ENCODINGS.join(", ")} (got ${String(encoding)})`,
      );
    this.#wire = new ForwardBackwardWire(encoding);
  }

  /** The encoding `forward_backward` bodies go in now: null until the first one was accepted in `auto`. */
  get forwardBackwardWire(): "protobuf" | "json" | null {
    return this.#wire.chosen;
  }

  /**
   * The model id, created on first use: `create_model` in the session with a LoRA config, then its
   * future (the engine loads the model before answering it).
   */
  modelId(signal?: AbortSignal): Promise<string> {
    this.#modelId ??= (async () => {
      const sessionId = await this.http.session(signal);
      const lora = {
        rank: this.options.loraRank ?? 32,
        ...(this.options.loraSeed === undefined ? {} : { seed: this.options.loraSeed }),
        train_unembed: true,
        train_mlp: true,
        train_attn: true,
      };
      const body = {
        session_id: sessionId,
        model_seq_id: this.http.nextSeqId("model"),
        base_model: this.options.baseModel,
        lora_config: lora,
        optimizer_config: { type: "adamw" },
        type: "create_model",
      };
      const answer = (await this.http.post("/api/v1/create_model", body, { signal })) as Record<
        string,
        unknown
      > | null;
      // Tinker answers a future whose result names the model; SkyRL names it at once and also gives the future.
      const result =
        answer?.request_id !== undefined
          ? await this.http.awaitFuture(String(answer.request_id), signal)
          : {};
      return text(result.model_id ?? answer?.model_id, "create_model's model_id", answer);
    })();
    this.#modelId.catch(() => (this.#modelId = null));
    return this.#modelId;
  }

  /**
   * Submits `forward_backward` over `datums`: gradients accumulate until the next `optim_step`.
   * Split into the requests the server's limits allow (`fwdbwd_max_chunk_len` datums, estimated
   * `fwdbwd_max_chunk_bytes_count` bytes), each with its own seq id; the result joins them.
   */
  async submitForwardBackward(
    datums: readonly Datum[],
    loss: TinkerLoss,
    lossConfig?: Record<string, number>,
    signal?: AbortSignal,
  ): Promise<Submitted<ForwardBackwardOutput>> {
    const config = await this.http.handshake(signal);
    const parts: Array<Submitted<ForwardBackwardOutput>> = [];
    for (const chunk of chunkDatums(datums, config)) {
      const input = {
        data: chunk,
        loss_fn: loss,
        ...(lossConfig ? { loss_fn_config: lossConfig } : {}),
      };
      parts.push(
        await this.submit(
          "/api/v1/forward_backward",
          (model) => ({ forward_backward_input: input, model_id: model.id, seq_id: model.seq }),
          signal,
          { wire: this.#wire, config },
          (r) => {
            const outputs = Array.isArray(r.loss_fn_outputs)
              ? (r.loss_fn_outputs as Array<Record<string, TensorData>>)
              : [];
            return { lossFnOutputs: outputs, metrics: numbers(r.metrics) };
          },
          decodeForwardBackwardOutput,
        ),
      );
    }
    if (parts.length === 1) return parts[0] as Submitted<ForwardBackwardOutput>;
    return {
      requestId: parts.map((p) => p.requestId).join(","),
      result: async () => combineOutputs(await Promise.all(parts.map((p) => p.result()))),
    };
  }

  /** Submits `optim_step`: one Adam update with the accumulated gradients. Resolves to the engine's metrics. */
  submitOptimStep(
    adam: AdamParams,
    signal?: AbortSignal,
  ): Promise<Submitted<Record<string, number>>> {
    // grad_clip_norm 0 = no clipping (the SDK's default); the SDK always sends the field.
    const adamParams = {
      learning_rate: adam.learningRate,
      beta1: adam.beta1,
      beta2: adam.beta2,
      eps: adam.eps,
      weight_decay: adam.weightDecay,
      grad_clip_norm: adam.gradClipNorm,
    };
    return this.submit(
      "/api/v1/optim_step",
      (model) => ({
        adam_params: adamParams,
        model_id: model.id,
        seq_id: model.seq,
        type: "optim_step",
      }),
      signal,
      undefined,
      (r) => numbers(r.metrics),
    );
  }

  /** Submits `save_weights_for_sampler` under `name` (letters, digits, `_`, `-`). Resolves to the sampler path. */
  submitSaveWeightsForSampler(name: string, signal?: AbortSignal): Promise<Submitted<string>> {
    return this.submitSave("save_weights_for_sampler", name, { kind: "snapshot" }, signal);
  }

  /** Submits `save_weights` (weights and optimiser state, for resuming) under `name`. Resolves to the state path. */
  submitSaveState(name: string, signal?: AbortSignal): Promise<Submitted<string>> {
    return this.submitSave("save_weights", name, { overwrite: false }, signal);
  }

  /** Submits the save `type` of this model under `name`, with the request's own `fields`; resolves to the saved path. */
  private submitSave(
    type: "save_weights" | "save_weights_for_sampler",
    name: string,
    fields: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<Submitted<string>> {
    return this.submit(
      `/api/v1/${type}`,
      (model) => ({ model_id: model.id, path: name, seq_id: model.seq, ...fields, type }),
      signal,
      undefined,
      // "save_weights' path", "save_weights_for_sampler's path"
      (r) => text(r.path, `${type}${type.endsWith("s") ? "'" : "'s"} path`, r),
    );
  }

  /** Loads saved weights (and with `optimizer`, the optimiser state) into this model. */
  async loadState(
    path: string,
    options: { optimizer: boolean },
    signal?: AbortSignal,
  ): Promise<void> {
    const submitted = await this.submit(
      "/api/v1/load_weights",
      (model) => ({
        model_id: model.id,
        path,
        seq_id: model.seq,
        optimizer: options.optimizer,
        type: "load_weights",
      }),
      signal,
      undefined,
      () => undefined,
    );
    await submitted.result();
  }

  /** `forward_backward`, waited for. */
  async forwardBackward(
    datums: readonly Datum[],
    loss: TinkerLoss,
    lossConfig?: Record<string, number>,
    signal?: AbortSignal,
  ): Promise<ForwardBackwardOutput> {
    return (await this.submitForwardBackward(datums, loss, lossConfig, signal)).result();
  }

  /** `optim_step`, waited for. */
  async optimStep(adam: AdamParams, signal?: AbortSignal): Promise<Record<string, number>> {
    return (await this.submitOptimStep(adam, signal)).result();
  }

  /** `save_weights_for_sampler`, waited for: the path to sample from. */
  async saveWeightsForSampler(name: string, signal?: AbortSignal): Promise<string> {
    return (await this.submitSaveWeightsForSampler(name, signal)).result();
  }

  /** `save_weights`, waited for: the path to resume from. */
  async saveState(name: string, signal?: AbortSignal): Promise<string> {
    return (await this.submitSaveState(name, signal)).result();
  }

  /**
   * POSTs one model-scoped request and returns its future. Submissions are serialised in call
   * order and take the model's next seq id only once accepted, so ids have no gaps (an engine
   * that runs requests in seq-id order would wait for a missing one). A retried POST keeps its seq
   * id and idempotency key, so the engine runs it once.
   */
  private async submit<T>(
    path: string,
    build: (model: { id: string; seq: number }) => Record<string, unknown>,
    signal: AbortSignal | undefined,
    binary: { wire: ForwardBackwardWire; config: TinkerClientConfig } | undefined,
    parse: (result: Record<string, unknown>) => T,
    decodeProtobuf?: (bytes: Uint8Array) => Record<string, unknown>,
  ): Promise<Submitted<T>> {
    const id = await this.modelId(signal);
    const posted = this.#turn.then(async () => {
      const seq = this.#lastSeqId + 1;
      const body = build({ id, seq });
      const answer = binary
        ? await binary.wire.post(this.http, path, body, binary.config, signal)
        : await this.http.post(path, body, { signal, encoding: JSON_BODY });
      this.#lastSeqId = seq;
      return text(
        (answer as { request_id?: unknown } | null)?.request_id,
        `${path.replace("/api/v1/", "")}'s request_id`,
        answer,
      );
    });
    this.#turn = posted.then(
      () => undefined,
      () => undefined,
    );
    const requestId = await posted;
    return {
      requestId,
      result: async () => parse(await this.http.awaitFuture(requestId, signal, decodeProtobuf)),
    };
  }
}
