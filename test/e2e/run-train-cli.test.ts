/**
 * `spade run` training both roles through the built command against the fake Tinker-compatible
 * engine (a test double) with a tokenizer the test writes itself: datums of both roles in one
 * forward_backward per step, sampling from each step's new weights, the sampler path stored per
 * step, a resume after SIGKILL that restores the last committed weights, and the fixed-environment
 * baseline (`--designer off`) training too. `npm test` builds first.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunStore } from "../../src/store/index.js";
import { designSequence, sequenceDatum } from "../../src/trainer/index.js";
import {
  startFakeTinkerServer,
  type FakeSampleRequest,
  type FakeTinkerServer,
} from "../fakes/tinker-server.js";
import { asciiIds, TINY, writeTinyModel } from "../fakes/tiny-model.js";
import { spade } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const BASE = "Org/Tiny-1B";
const dir = fileTempDir("spade-train-");
const modelPath = writeTinyModel(join(dir, "tiny"));
/** Every completion, designer or agent: a boxed answer and the end-of-turn token. No program, so every design is invalid. */
const ANSWER = [...asciiIds("\\boxed{1}"), TINY.imEnd];
const KEY = { SPADE_E2E_ENGINE_KEY: "tk-train" };

let server: FakeTinkerServer | undefined;
const sampled: FakeSampleRequest[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  sampled.length = 0;
});

async function startEngine(): Promise<FakeTinkerServer> {
  server = await startFakeTinkerServer({
    baseModel: BASE,
    training: true,
    apiKey: "tk-train",
    sample: (request) => {
      sampled.push(request);
      return {
        sequences: [{ tokens: ANSWER, logprobs: ANSWER.map(() => -0.5), stop_reason: "stop" }],
      };
    },
  });
  return server;
}

function runFlags(engine: string, out: string, extra: string[] = []): string[] {
  return [
    "run",
    "--out",
    out,
    "--engine",
    engine,
    "--base-model",
    BASE,
    "--model-path",
    modelPath,
    "--api-key-env",
    "SPADE_E2E_ENGINE_KEY",
    "--seed",
    "3",
    "--steps",
    "3",
    "--designs-per-step",
    "2",
    "--regenerate-every",
    "1",
    "--reward-delay",
    "1",
    "--plays",
    "2",
    "--hinted-plays",
    "0",
    "--batch-fit",
    "off",
    "--max-attempts",
    "1",
    "--max-words",
    "40",
    "--max-tokens",
    "16",
    "--designer-max-tokens",
    "32",
    "--concurrency",
    "4",
    "--learning-rate",
    "1e-5",
    ...extra,
  ];
}

function readStore(out: string) {
  const store = RunStore.open(out, "read");
  try {
    return {
      steps: store.steps(),
      designs: store.designs(),
      samples: store.samples(),
      trainer: store.getState<Record<string, unknown>>("trainer"),
    };
  } finally {
    store.close();
  }
}

const samplerPath = (model: string, step: number) =>
  `tinker://${model}/sampler_weights/spade-step-${step}`;
const statePath = (model: string, step: number) => `tinker://${model}/weights/spade-step-${step}`;
// The fake, like SkyRL, refuses the first (protobuf) forward_backward of a session, recorded with a null body; SPADE resends it as JSON.
const jsonTo = (engine: FakeTinkerServer, path: string) =>
  engine.requestsTo(path).filter((r) => r.body !== null);
const datumsOf = (engine: FakeTinkerServer) =>
  jsonTo(engine, "/api/v1/forward_backward").map((r) => r.body.forward_backward_input.data);

describe("spade run --engine (training)", () => {
  it("trains both roles for 3 steps: one forward_backward per step, sampling from each step's weights, the sampler path stored per step", async () => {
    const engine = await startEngine();
    const out = join(dir, "both");
    const run = await spade(runFlags(engine.baseURL, out), KEY);
    expect(run.stderr).toMatch(/step 3\/3 \|.*\| loss 0\.000 \|/);
    expect(run.code).toBe(0);

    const { steps, designs, samples, trainer } = readStore(out);
    expect(steps.map((s) => (s.metrics as { checkpoint: unknown }).checkpoint)).toEqual(
      [0, 1, 2].map((s) => ({
        step: s,
        samplerPath: samplerPath("model_0", s),
        statePath: statePath("model_0", s),
      })),
    );
    expect(trainer).toEqual({
      step: 2,
      samplerPath: samplerPath("model_0", 2),
      statePath: statePath("model_0", 2),
    });
    // Every design is invalid (no program): its sample carries the invalid-design reward 0, centred with its skill to 0.
    expect(designs.map((d) => [d.step, d.slot, d.outcome, d.trainable])).toEqual(
      [0, 1, 2].flatMap((s) => [
        [s, 0, "no-program", true],
        [s, 1, "no-program", true],
      ]),
    );
    const designer = samples.filter((s) => s.role === "designer");
    expect(designer.map((s) => [s.step, s.ref, s.reward, s.advantage])).toEqual([
      [1, "0/0/0", 0, 0],
      [1, "0/1/0", 0, 0],
      [2, "1/0/0", 0, 0],
      [2, "1/1/0", 0, 0],
      [2, "2/0/0", 0, 0],
      [2, "2/1/0", 0, 0],
    ]);
    const agentByStep = [0, 1, 2].map(
      (s) => samples.filter((x) => x.step === s && x.role === "agent").length,
    );
    expect(agentByStep.every((n) => n === 4)).toBe(true);

    // One forward_backward per step holding both roles (agent datums first, then the delayed designer ones).
    const batches = datumsOf(engine);
    expect(batches.map((b) => b.length)).toEqual([4, 6, 8]);
    const d0 = designs.find((d) => d.step === 0 && d.slot === 0)!;
    expect(batches[1]![4]).toEqual(sequenceDatum(designSequence(d0.tokens, "0/0/0"), 0));
    expect((d0.tokens as { tokenIds: number[] }).tokenIds).toEqual(ANSWER);
    expect(
      engine.requestsTo("/api/v1/optim_step").map((r) => r.body.adam_params.learning_rate),
    ).toEqual([1e-5, 1e-5, 1e-5]);
    expect(engine.training!.models.get("model_0")).toMatchObject({ optimSteps: 3, loraRank: 32 });
    expect(steps.map((s) => (s.metrics as { train: Record<string, number> }).train.datums)).toEqual(
      [4, 6, 8],
    );

    // On-policy: step s samples from the weights saved after step s - 1 (step 0 from the base model).
    expect(
      engine
        .requestsTo("/api/v1/create_sampling_session")
        .map((r) => r.body.model_path ?? r.body.base_model),
    ).toEqual([BASE, samplerPath("model_0", 0), samplerPath("model_0", 1)]);
    expect(new Set(sampled.map((r) => r.model))).toEqual(
      new Set([BASE, samplerPath("model_0", 0), samplerPath("model_0", 1)]),
    );
    expect(engine.requests.every((r) => r.headers["x-api-key"] === "tk-train")).toBe(true);
  });

  it("resumes after a SIGKILL inside the step's commit from the last committed weights: no update is applied twice", async () => {
    const engine = await startEngine();
    const out = join(dir, "killed");
    // Transaction 11 commits step 1: 2 design slots + library rows + 2 play groups + commit (step 0), 2 + 2 + commit (step 1).
    const killed = await spade(runFlags(engine.baseURL, out), {
      ...KEY,
      SPADE_TEST_KILL_IN_TRANSACTION: "11",
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(readStore(out).steps.filter((s) => s.status === "done")).toHaveLength(1);
    expect(readStore(out).trainer).toEqual({
      step: 0,
      samplerPath: samplerPath("model_0", 0),
      statePath: statePath("model_0", 0),
    });
    // Step 1 was trained on the engine (model_0 has 2 updates) but never committed.
    expect(engine.training!.models.get("model_0")!.optimSteps).toBe(2);
    const before = engine.requests.length;

    const resumed = await spade(["run", "--resume", out], KEY);
    expect(resumed.stderr).toContain("step 3/3");
    expect(resumed.code).toBe(0);
    const after = engine.requests.slice(before);
    const resumedPaths = after
      .filter((r) => r.body !== null)
      .map((r) => r.path.replace("/api/v1/", ""))
      .filter(
        (p) => !["client/config", "retrieve_future", "asample", "session_heartbeat"].includes(p),
      );
    // Step 1's designs and plays were committed: only its training runs again, on a new model loaded with step 0's state.
    expect(resumedPaths.slice(0, 8)).toEqual([
      "create_session",
      "create_model",
      "load_weights",
      "forward_backward",
      "optim_step",
      "save_weights",
      "save_weights_for_sampler",
      "create_sampling_session",
    ]);
    expect(after.find((r) => r.path.endsWith("/load_weights"))!.body).toMatchObject({
      model_id: "model_1",
      path: statePath("model_0", 0),
      seq_id: 1,
      optimizer: true,
    });
    expect(after.find((r) => r.path.endsWith("/create_sampling_session"))!.body.model_path).toBe(
      samplerPath("model_1", 1),
    );
    // The new model holds step 0's update plus steps 1 and 2, each once.
    expect(engine.training!.models.get("model_1")!.optimSteps).toBe(3);
    const { steps, trainer } = readStore(out);
    expect(
      steps.map(
        (s) => (s.metrics as { checkpoint: { samplerPath: string } }).checkpoint.samplerPath,
      ),
    ).toEqual([samplerPath("model_0", 0), samplerPath("model_1", 1), samplerPath("model_1", 2)]);
    expect(trainer).toEqual({
      step: 2,
      samplerPath: samplerPath("model_1", 2),
      statePath: statePath("model_1", 2),
    });
  });

  it("resumes after a SIGKILL while playing: the lost plays are sampled from the restored sampler weights", async () => {
    const engine = await startEngine();
    const out = join(dir, "killed-playing");
    // Transaction 10 stores step 1's second group of plays.
    const killed = await spade(runFlags(engine.baseURL, out), {
      ...KEY,
      SPADE_TEST_KILL_IN_TRANSACTION: "10",
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(jsonTo(engine, "/api/v1/forward_backward")).toHaveLength(1);
    const before = engine.requests.length;
    const resumed = await spade(["run", "--resume", out], KEY);
    expect(resumed.code).toBe(0);
    const after = engine.requests.slice(before);
    const firstTrain = after.findIndex((r) => r.path.endsWith("/forward_backward"));
    const sessions = after
      .slice(0, firstTrain)
      .filter((r) => r.path.endsWith("/create_sampling_session"));
    expect(sessions.map((r) => r.body.model_path)).toEqual([samplerPath("model_0", 0)]);
    expect(
      after.slice(0, firstTrain).filter((r) => r.path.endsWith("/asample")).length,
    ).toBeGreaterThan(0);
    expect(engine.training!.models.get("model_1")!.optimSteps).toBe(3);
    expect(readStore(out).trainer).toEqual({
      step: 2,
      samplerPath: samplerPath("model_1", 2),
      statePath: statePath("model_1", 2),
    });
  });

  it("--max-off-policy 1: step s samples step s - 2's weights; killed inside step 0's commit (after step 1's plays), it resumes to the uninterrupted run's rows", async () => {
    const flags = (engine: FakeTinkerServer, out: string) =>
      runFlags(engine.baseURL, out, ["--max-off-policy", "1"]);
    const fullEngine = await startEngine();
    const full = join(dir, "pipelined");
    expect((await spade(flags(fullEngine, full), KEY)).code).toBe(0);
    // Steps 0 and 1 sample the base model, step 2 the weights step 0 trained.
    expect(
      fullEngine
        .requestsTo("/api/v1/create_sampling_session")
        .map((r) => r.body.model_path ?? r.body.base_model),
    ).toEqual([BASE, samplerPath("model_0", 0)]);
    expect(datumsOf(fullEngine).map((b) => b.length)).toEqual([4, 6, 8]);
    const stored = (out: string) => {
      const store = RunStore.open(out, "read");
      try {
        return {
          designs: store.designs().map((d) => [d.step, d.weightsVersion]),
          episodes: store.episodes().map((e) => [e.step, e.weightsVersion]),
          // The same rows but for the engine's model ids (a resumed run trains on a new model) and port.
          dump: JSON.stringify(store.dump())
            .replace(/model_\d+/g, "model_N")
            .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT"),
        };
      } finally {
        store.close();
      }
    };
    const baseline = stored(full);
    expect(baseline.designs).toEqual([0, 0, 1, 1, 2, 2].map((s) => [s, s === 2 ? 1 : 0]));
    expect(baseline.episodes).toEqual(
      [0, 1, 2].flatMap((s) => Array.from({ length: 4 }, () => [s, s === 2 ? 1 : 0])),
    );
    await server?.close();

    const engine = await startEngine();
    const out = join(dir, "pipelined-killed");
    // Transactions: step 0's 2 slots, library rows, 2 play groups (1-5); step 1's 2 slots and 2 groups (6-9); step 0's commit (10).
    const killed = await spade(flags(engine, out), {
      ...KEY,
      SPADE_TEST_KILL_IN_TRANSACTION: "10",
    });
    expect(killed.signal).toBe("SIGKILL");
    const atKill = readStore(out);
    expect(atKill.steps.filter((s) => s.status === "done")).toEqual([]);
    expect(atKill.designs.map((d) => d.step)).toEqual([0, 0, 1, 1]);
    const resumed = await spade(["run", "--resume", out], KEY);
    expect(resumed.stderr).toContain("step 3/3");
    expect(resumed.code).toBe(0);
    expect(stored(out)).toEqual(baseline);
  });

  it("--loss-aggregation sample-mean --grad-clip-norm 1: every optim_step clips at 1, the step's batch divides; --resume keeps both and refuses a change", async () => {
    const engine = await startEngine();
    const out = join(dir, "sample-mean");
    const flags = runFlags(engine.baseURL, out, [
      "--loss-aggregation",
      "sample-mean",
      "--grad-clip-norm",
      "1",
    ]);
    // Transaction 11 commits step 1 (see the SIGKILL test above).
    const killed = await spade(flags, { ...KEY, SPADE_TEST_KILL_IN_TRANSACTION: "11" });
    expect(killed.signal).toBe("SIGKILL");
    for (const [flag, value] of [
      ["--grad-clip-norm", "0"],
      ["--loss-aggregation", "token-sum"],
    ]) {
      const changed = await spade(["run", "--resume", out, flag!, value!], KEY);
      expect(changed.code).toBe(2);
      expect(changed.stderr).toContain("E_CONFIG: a resumed run keeps its settings");
      expect(changed.stderr).toContain(`(got ${flag})`);
    }
    expect((await spade(["run", "--resume", out], KEY)).code).toBe(0);
    // Steps 0 and 1 before the kill, step 1 again and step 2 after it: all clipped at 1.
    expect(
      engine.requestsTo("/api/v1/optim_step").map((r) => r.body.adam_params.grad_clip_norm),
    ).toEqual([1, 1, 1, 1]);
    // Each step's batch (4 agent samples, plus the 2 or 4 delayed designer samples) is the divisor.
    expect(
      readStore(out).steps.map(
        (s) => (s.metrics as { train: { batchSize: number } }).train.batchSize,
      ),
    ).toEqual([4, 6, 8]);
  });

  it("a run stored before --loss-aggregation and --grad-clip-norm existed resumes as it trained: token sum, no clipping", async () => {
    const engine = await startEngine();
    const out = join(dir, "old-config");
    const killed = await spade(
      runFlags(engine.baseURL, out, ["--loss-aggregation", "sample-mean", "--grad-clip-norm", "1"]),
      { ...KEY, SPADE_TEST_KILL_IN_TRANSACTION: "11" },
    );
    expect(killed.signal).toBe("SIGKILL");
    // The stored config as an older SPADE wrote it: without the two settings.
    const store = RunStore.open(out, "resume");
    const { lossAggregation, gradClipNorm, ...old } = JSON.parse(store.getMeta("config")!);
    expect([lossAggregation, gradClipNorm]).toEqual(["sample-mean", 1]);
    store.setMeta("config", JSON.stringify(old));
    store.close();
    const before = engine.requestsTo("/api/v1/optim_step").length;
    expect((await spade(["run", "--resume", out], KEY)).code).toBe(0);
    expect(
      engine
        .requestsTo("/api/v1/optim_step")
        .slice(before)
        .map((r) => r.body.adam_params.grad_clip_norm),
    ).toEqual([0, 0]);
    // No sample-mean divisor on the steps trained after the resume (steps 1 and 2).
    expect(
      readStore(out).steps.map(
        (s) => (s.metrics as { train: { batchSize?: number } }).train.batchSize,
      ),
    ).toEqual([4, undefined, undefined]);
  });

  it("trains the fixed-environment baseline (--designer off) on library environments only", async () => {
    const engine = await startEngine();
    const out = join(dir, "baseline");
    const run = await spade(
      runFlags(engine.baseURL, out, ["--designer", "off", "--steps", "2"]),
      KEY,
    );
    expect(run.code).toBe(0);
    expect(readStore(out).designs).toEqual([]);
    expect(datumsOf(engine).map((b) => b.length)).toEqual([4, 4]);
    expect(readStore(out).trainer).toMatchObject({
      step: 1,
      samplerPath: samplerPath("model_0", 1),
    });
  });

  it("refuses training without an engine, and a chat-level policy with one (exit 2, E_CONFIG)", async () => {
    const noEngine = await spade([
      "run",
      "--out",
      join(dir, "x1"),
      "--base-url",
      "http://127.0.0.1:1/v1",
      "--model",
      "m",
    ]);
    expect(noEngine.code).toBe(2);
    expect(noEngine.stderr).toContain("E_CONFIG: training needs a training engine");
    const chat = await spade([
      "run",
      "--out",
      join(dir, "x2"),
      "--engine",
      "http://127.0.0.1:1",
      "--policy",
      "openai",
    ]);
    expect(chat.code).toBe(2);
    expect(chat.stderr).toContain("E_CONFIG: --policy openai samples chat messages");
    const noModel = await spade([
      "run",
      "--out",
      join(dir, "x3"),
      "--engine",
      "http://127.0.0.1:1",
      "--model-path",
      modelPath,
    ]);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain(
      "E_CONFIG: the engine serves models by name: --base-model is not set",
    );
  });
});
