/**
 * @module test/fakes/tinker-training
 * TEST DOUBLE. The training half of the fake Tinker server (test/fakes/tinker-server.ts), with
 * the request shapes of the official SDK's types and SkyRL tx's checks: `create_model`,
 * `forward_backward`, `optim_step`, `save_weights`, `save_weights_for_sampler`, `load_weights`.
 * Seq ids must count 1, 2... per model (a retry with the same seq id and body gets the same
 * future); checkpoint names must match `[A-Za-z0-9_-]+` and be new per model. Its "model" is a
 * counter of optimiser steps; the loss it reports is exact: every ratio is 1 (the train logprobs
 * are the sampler logprobs sent), so each target's loss is -advantage.
 */

/** What a handler answers: an HTTP status and body; `future` marks a value to answer later through `retrieve_future`. */
export type FakeAnswer = { status: number; value: unknown };

/** One model of the fake engine. */
export interface FakeModel {
  id: string;
  baseModel: string;
  loraRank: number;
  /** Optimiser steps applied (restored by `load_weights`). */
  optimSteps: number;
  lastSeqId: number;
  /** `forward_backward` inputs accumulated since the last `optim_step`. */
  pendingDatums: number;
}

/** A saved checkpoint: which model, how many optimiser steps it holds. */
export interface FakeCheckpoint {
  modelId: string;
  optimSteps: number;
}

const ID_PATTERN = /^[A-Za-z0-9_-]+$/;
const LOSSES: Record<string, string[]> = {
  importance_sampling: [],
  ppo: ["clip_low_threshold", "clip_high_threshold"],
  cross_entropy: [],
};

const isInts = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((x) => Number.isInteger(x));
const isNums = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isFinite(x));

/** Why a datum is malformed, or null. */
function datumProblem(d: any, loss: string): string | null {
  const tokens = (d?.model_input?.chunks ?? []).flatMap((c: any) =>
    c?.type === "encoded_text" && isInts(c.tokens) ? c.tokens : [NaN],
  );
  if (tokens.length === 0 || tokens.some((t: number) => Number.isNaN(t)))
    return "model_input.chunks must be encoded_text token ids";
  const inputs = d.loss_fn_inputs ?? {};
  const needed =
    loss === "cross_entropy"
      ? ["target_tokens", "weights"]
      : ["target_tokens", "logprobs", "advantages"];
  for (const key of Object.keys(inputs))
    if (!needed.includes(key)) return `loss_fn_inputs.${key} is not an input of ${loss}`;
  for (const key of needed) {
    const t = inputs[key];
    const dtype = key === "target_tokens" ? "int64" : "float32";
    if (
      !t ||
      !(key === "target_tokens" ? isInts(t.data) : isNums(t.data)) ||
      t.dtype !== dtype ||
      JSON.stringify(t.shape) !== JSON.stringify([tokens.length])
    ) {
      return `loss_fn_inputs.${key} must be ${dtype} TensorData of shape [${tokens.length}]`;
    }
  }
  return null;
}

/** The training endpoints' state and handlers. */
export class FakeTrainingEngine {
  readonly models = new Map<string, FakeModel>();
  /** Training checkpoints (`tinker://<model>/weights/<name>`) and sampler ones (`.../sampler_weights/<name>`). */
  readonly checkpoints = new Map<string, FakeCheckpoint>();
  private readonly bySeq = new Map<string, { body: string; requestId: string }>();
  private nextModel = 0;

  constructor(
    private readonly baseModel: string,
    private readonly hasSession: (id: string) => boolean,
    private readonly future: (result: unknown) => string,
  ) {}

  /** True for a sampler path this engine saved. */
  isSamplerPath(path: string): boolean {
    return /^tinker:\/\/[^/]+\/sampler_weights\/[^/]+$/.test(path) && this.checkpoints.has(path);
  }

  /** Answers a training endpoint, or null for other paths. */
  handle(path: string, body: any): FakeAnswer | null {
    const name = path.replace("/api/v1/", "");
    if (name === "create_model") return this.createModel(body);
    if (
      ![
        "forward_backward",
        "optim_step",
        "save_weights",
        "save_weights_for_sampler",
        "load_weights",
      ].includes(name)
    )
      return null;
    const model = this.models.get(body.model_id);
    if (!model) return { status: 404, value: { detail: "Model not found" } };
    if (!Number.isInteger(body.seq_id))
      return { status: 422, value: { detail: "seq_id is required" } };
    const key = `${model.id}:${body.seq_id}`;
    const seen = this.bySeq.get(key);
    if (seen)
      return seen.body === JSON.stringify(body)
        ? this.pending(seen.requestId)
        : { status: 409, value: { detail: "Training request sequence number was reused" } };
    if (body.seq_id !== model.lastSeqId + 1)
      return {
        status: 400,
        value: { detail: `seq_id ${body.seq_id} out of order (expected ${model.lastSeqId + 1})` },
      };
    const answer = this.run(name, model, body);
    if (answer.status !== 200) return answer;
    model.lastSeqId = body.seq_id;
    const requestId = this.future(answer.value);
    this.bySeq.set(key, { body: JSON.stringify(body), requestId });
    return this.pending(requestId);
  }

  private pending(requestId: string): FakeAnswer {
    return {
      status: 200,
      value: { future_id: requestId, status: "pending", request_id: requestId },
    };
  }

  private createModel(body: any): FakeAnswer {
    if (!this.hasSession(body.session_id))
      return { status: 404, value: { detail: "Session not found" } };
    if (body.base_model !== this.baseModel)
      return {
        status: 400,
        value: { detail: `base model ${JSON.stringify(body.base_model)} is not served` },
      };
    if (!Number.isInteger(body.lora_config?.rank) || body.lora_config.rank < 1)
      return { status: 422, value: { detail: "lora_config.rank is required" } };
    const id = `model_${this.nextModel++}`;
    this.models.set(id, {
      id,
      baseModel: body.base_model,
      loraRank: body.lora_config.rank,
      optimSteps: 0,
      lastSeqId: 0,
      pendingDatums: 0,
    });
    const result = { model_id: id, base_model: body.base_model, lora_config: body.lora_config };
    return {
      status: 200,
      value: { ...result, status: "created", request_id: this.future(result) },
    };
  }

  /** Runs one model-scoped request; a 200 value is the future's result. */
  private run(name: string, model: FakeModel, body: any): FakeAnswer {
    switch (name) {
      case "forward_backward": {
        const input = body.forward_backward_input ?? {};
        const allowed = LOSSES[input.loss_fn];
        if (!allowed)
          return {
            status: 422,
            value: { detail: `unknown loss_fn ${JSON.stringify(input.loss_fn)}` },
          };
        const bad = Object.keys(input.loss_fn_config ?? {}).filter((k) => !allowed.includes(k));
        if (bad.length > 0)
          return {
            status: 422,
            value: {
              detail: `invalid loss_fn_config keys for ${input.loss_fn}: ${bad.join(", ")}`,
            },
          };
        const datums: any[] = Array.isArray(input.data) ? input.data : [];
        for (const d of datums) {
          const problem = datumProblem(d, input.loss_fn);
          if (problem) return { status: 422, value: { detail: problem } };
        }
        model.pendingDatums += datums.length;
        const outputs = datums.map((d) => {
          const { logprobs, advantages } = d.loss_fn_inputs;
          const loss = advantages.data.map((a: number) => (a === 0 ? 0 : -a));
          return {
            logprobs: { data: logprobs.data, dtype: "float32", shape: logprobs.shape },
            elementwise_loss: { data: loss, dtype: "float32", shape: logprobs.shape },
          };
        });
        const total = outputs.reduce(
          (sum, o) => sum + o.elementwise_loss.data.reduce((a: number, b: number) => a + b, 0),
          0,
        );
        return {
          status: 200,
          value: {
            loss_fn_output_type: "scalar",
            loss_fn_outputs: outputs,
            metrics: { "loss:sum": total },
          },
        };
      }
      case "optim_step": {
        const a = body.adam_params ?? {};
        // The SDK's AdamParams always carries grad_clip_norm (0: no clipping).
        if (
          !["learning_rate", "beta1", "beta2", "eps", "weight_decay", "grad_clip_norm"].every(
            (k) => typeof a[k] === "number",
          ) ||
          a.grad_clip_norm < 0
        )
          return {
            status: 422,
            value: {
              detail:
                "adam_params needs learning_rate, beta1, beta2, eps, weight_decay, grad_clip_norm >= 0",
            },
          };
        model.optimSteps++;
        const datums = model.pendingDatums;
        model.pendingDatums = 0;
        return { status: 200, value: { metrics: { "datums:sum": datums } } };
      }
      case "save_weights":
      case "save_weights_for_sampler": {
        if (typeof body.path !== "string" || !ID_PATTERN.test(body.path))
          return { status: 422, value: { detail: "path must match ^[a-zA-Z0-9_-]+$" } };
        const kind = name === "save_weights" ? "weights" : "sampler_weights";
        const path = `tinker://${model.id}/${kind}/${body.path}`;
        if (this.checkpoints.has(path))
          return {
            status: 409,
            value: { detail: `Checkpoint '${body.path}' already exists for model '${model.id}'` },
          };
        this.checkpoints.set(path, { modelId: model.id, optimSteps: model.optimSteps });
        return { status: 200, value: { path, type: name } };
      }
      default: {
        const saved = /^tinker:\/\/[^/]+\/weights\/[^/]+$/.test(body.path ?? "")
          ? this.checkpoints.get(body.path)
          : undefined;
        if (!saved) return { status: 404, value: { detail: `Checkpoint not found: ${body.path}` } };
        model.optimSteps = saved.optimSteps;
        return { status: 200, value: { type: "load_weights" } };
      }
    }
  }
}
