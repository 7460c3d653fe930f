/**
 * SPADE's Tinker client against an engine nobody here wrote: SkyRL's Tinker-compatible server
 * (JAX backend, CPU) on loopback, over tiny random Qwen3 models built by the test. One server at a
 * time, in this one file: the protocol with exact losses (checked against an independent numpy
 * forward pass), the learning check, and `spade run` training both roles. Skips only when the
 * engine is not installed and CI is not set (`npm test` installs it: scripts/setup-engine.sh).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatRenderer, TinkerHttp, tinkerSampler } from "../../src/policy/index.js";
import { aggregateAdvantages } from "../../src/rl/index.js";
import { RunStore } from "../../src/store/index.js";
import {
  sequenceDatum,
  TinkerTrainingClient,
  type Datum,
  type TensorData,
  type TokenSequence,
} from "../../src/trainer/index.js";
import { spade, spadeAsync } from "../e2e/cli.js";
import { TINY } from "../fakes/tiny-model.js";
import {
  buildTinyEngineModel,
  pythonTokenIds,
  referenceLogprobs,
  requireEngine,
  SKIP_ENGINE,
  SKIP_REASON,
  startEngine,
  type RunningEngine,
} from "./engine-server.js";
import { learnCheck } from "./learn-check.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-engine-test-");

const maxAbsDiff = (a: readonly number[], b: readonly number[]) =>
  Math.max(...a.map((x, i) => Math.abs(x - (b[i] as number))));

/** A conversation as a training sequence: the assistant's reply and its end-of-turn token are the sampled (mask 1) tokens. */
function conversation(
  renderer: ChatRenderer,
  user: string,
  reply: string,
): { prompt: number[]; tokenIds: number[]; lossMask: number[] } {
  const prompt = renderer.renderTokens([{ role: "user", content: user }], {
    addGenerationPrompt: true,
  });
  const tokenIds = renderer.renderTokens(
    [
      { role: "user", content: user },
      { role: "assistant", content: reply },
    ],
    { addGenerationPrompt: false },
  );
  const sampled = renderer.encode(reply).length + 1;
  return {
    prompt,
    tokenIds,
    lossMask: tokenIds.map((_, i) => (i >= prompt.length && i < prompt.length + sampled ? 1 : 0)),
  };
}

/** The sequence with sampler logprobs `reference + shift` on its sampled tokens (0 elsewhere, as the token agent records them). */
function shifted(
  c: { tokenIds: number[]; lossMask: number[] },
  reference: readonly number[],
  shift: number,
): TokenSequence {
  return {
    tokenIds: c.tokenIds,
    lossMask: c.lossMask,
    logprobs: c.tokenIds.map((_, i) =>
      i > 0 && c.lossMask[i] ? (reference[i - 1] as number) + shift : 0,
    ),
  };
}

/** The expected elementwise loss of a datum: `perSampled` on targets the model sampled, 0 on the others. */
const lossOn = (datum: Datum, perSampled: number) =>
  datum.loss_fn_inputs.advantages.data.map((a) => (a !== 0 ? perSampled : 0));

describe.skipIf(SKIP_ENGINE)(
  `the Tinker client on SkyRL's server: protocol, exact losses, learning ${SKIP_ENGINE ? SKIP_REASON : ""}`,
  () => {
    let engine: RunningEngine;
    let http: TinkerHttp;
    let modelDir: string;
    let renderer: ChatRenderer;

    beforeAll(async () => {
      requireEngine();
      modelDir = buildTinyEngineModel(join(dir, "tiny"));
      engine = await startEngine(modelDir, join(dir, "engine-tiny"));
      http = new TinkerHttp({ baseURL: engine.url });
      renderer = ChatRenderer.fromDir(modelDir);
    }, 180_000);
    afterAll(async () => {
      http?.close();
      await engine?.stop();
    }, 30_000);

    it("trains and samples: exact importance-sampling and PPO losses, futures in flight, an optimiser step, sampler weights, saved state", async () => {
      const a = conversation(renderer, "Add 2 and 3.", "\\boxed{5}");
      const b = conversation(renderer, "Name a color.", "blue");
      const [refA, refB] = referenceLogprobs(modelDir, [a.tokenIds, b.tokenIds]) as [
        number[],
        number[],
      ];
      const client = new TinkerTrainingClient(http, {
        baseModel: modelDir,
        loraRank: 8,
        loraSeed: 0,
      });
      const modelId = await client.modelId();
      expect(modelId).toMatch(/^model_[0-9a-f]{8}$/);

      // importance_sampling: loss = -(p_theta / q) * A on sampled targets. q = p_base * e^-0.25 and a
      // fresh LoRA adapter is zero, so the ratio is e^0.25 exactly.
      const is = [
        sequenceDatum(shifted(a, refA, -0.25), 0.5),
        sequenceDatum(shifted(b, refB, -0.25), -1),
      ];
      const out = await client.forwardBackward(is, "importance_sampling");
      expect(out.lossFnOutputs).toHaveLength(2);
      const [outA, outB] = out.lossFnOutputs as [
        Record<string, TensorData>,
        Record<string, TensorData>,
      ];
      // The engine's logprobs of every target, prompt included, are the numpy reference's.
      expect(maxAbsDiff(outA.logprobs!.data, refA)).toBeLessThan(2e-4);
      expect(maxAbsDiff(outB.logprobs!.data, refB)).toBeLessThan(2e-4);
      expect(
        maxAbsDiff(outA.elementwise_loss!.data, lossOn(is[0]!, -Math.exp(0.25) * 0.5)),
      ).toBeLessThan(2e-4);
      expect(maxAbsDiff(outB.elementwise_loss!.data, lossOn(is[1]!, Math.exp(0.25)))).toBeLessThan(
        2e-4,
      );
      expect(is[0]!.loss_fn_inputs.advantages.data.filter((x) => x !== 0)).toHaveLength(
        renderer.encode("\\boxed{5}").length + 1,
      );

      // ppo clips the ratio to [0.8, 1.28] and takes the pessimistic side: ratios e^0.5 and e^-0.5.
      const ppo = [
        sequenceDatum(shifted(a, refA, -0.5), 0.5), // min(1.6487 * 0.5, 1.28 * 0.5)
        sequenceDatum(shifted(a, refA, -0.5), -1), // min(-1.6487, -1.28)
        sequenceDatum(shifted(b, refB, 0.5), 0.5), // min(0.6065 * 0.5, 0.8 * 0.5)
        sequenceDatum(shifted(b, refB, 0.5), -1), // min(-0.6065, -0.8)
      ];
      // Two forward_backwards and an optim_step in flight at once; results taken in reverse order.
      const fb1 = await client.submitForwardBackward(ppo, "ppo", {
        clip_low_threshold: 0.8,
        clip_high_threshold: 1.28,
      });
      const fb2 = await client.submitForwardBackward(is, "importance_sampling");
      const step = await client.submitOptimStep({
        learningRate: 0.01,
        beta1: 0.9,
        beta2: 0.95,
        eps: 1e-8,
        weightDecay: 0,
        gradClipNorm: 0,
      });
      const optim = await step.result();
      expect(Number(fb2.requestId)).toBeGreaterThan(Number(fb1.requestId));
      expect(optim["skyrl.ai/learning_rate"]).toBeCloseTo(0.01, 6);
      expect(optim["skyrl.ai/grad_norm"]).toBeGreaterThan(0);
      const ppoLosses = (await fb1.result()).lossFnOutputs.map((o) => o.elementwise_loss!.data);
      const want = [
        lossOn(ppo[0]!, -0.64),
        lossOn(ppo[1]!, Math.exp(0.5)),
        lossOn(ppo[2]!, -Math.exp(-0.5) * 0.5),
        lossOn(ppo[3]!, 0.8),
      ];
      ppoLosses.forEach((loss, i) => expect(maxAbsDiff(loss, want[i]!)).toBeLessThan(2e-4));
      expect((await fb2.result()).lossFnOutputs).toHaveLength(2);

      // The step moved the weights: the same batch now has other logprobs.
      const trained = await client.forwardBackward(
        [sequenceDatum(shifted(a, refA, 0), 0)],
        "importance_sampling",
      );
      const trainedA = trained.lossFnOutputs[0]!.logprobs!.data;
      expect(maxAbsDiff(trainedA, refA)).toBeGreaterThan(1e-3);

      // Sampler weights: sampling from them is on-policy (its logprobs are the trainer's).
      const samplerPath = await client.saveWeightsForSampler("proto-1");
      expect(samplerPath).toBe(`tinker://${modelId}/proto-1`);
      const sampler = tinkerSampler({
        baseURL: engine.url,
        baseModel: modelDir,
        modelPath: samplerPath,
        http,
      });
      const [sample] = await sampler.sample({
        promptTokenIds: a.prompt,
        maxTokens: 8,
        stopTokenIds: renderer.stopIds,
        temperature: 1,
        seed: 7,
      });
      expect(sample!.tokenIds.length).toBeGreaterThanOrEqual(1);
      expect(sample!.tokenIds.length).toBeLessThanOrEqual(8);
      expect(sample!.logprobs).toHaveLength(sample!.tokenIds.length);
      const sampledSeq = [...a.prompt, ...sample!.tokenIds];
      const rescored = await client.forwardBackward(
        [
          sequenceDatum(
            {
              tokenIds: sampledSeq,
              lossMask: sampledSeq.map(() => 0),
              logprobs: sampledSeq.map(() => 0),
            },
            0,
          ),
        ],
        "importance_sampling",
      );
      expect(
        maxAbsDiff(
          rescored.lossFnOutputs[0]!.logprobs!.data.slice(a.prompt.length - 1),
          sample!.logprobs as number[],
        ),
      ).toBeLessThan(2e-4);

      // The base model samples as the numpy reference scores.
      const base = tinkerSampler({ baseURL: engine.url, baseModel: modelDir, http });
      const [fromBase] = await base.sample({
        promptTokenIds: b.prompt,
        maxTokens: 6,
        stopTokenIds: renderer.stopIds,
        temperature: 1,
        seed: 11,
      });
      const [refSample] = referenceLogprobs(modelDir, [[...b.prompt, ...fromBase!.tokenIds]]) as [
        number[],
      ];
      expect(
        maxAbsDiff(fromBase!.logprobs as number[], refSample.slice(b.prompt.length - 1)),
      ).toBeLessThan(2e-4);

      // Saved training state: a new model loaded from it has the trained weights.
      const statePath = await client.saveState("proto-state");
      expect(statePath).toBe(`tinker://${modelId}/weights/proto-state`);
      const resumed = new TinkerTrainingClient(http, { baseModel: modelDir, loraRank: 8 });
      await resumed.loadState(statePath, { optimizer: true });
      expect(await resumed.modelId()).not.toBe(modelId);
      const again = await resumed.forwardBackward(
        [sequenceDatum(shifted(a, refA, 0), 0)],
        "importance_sampling",
      );
      expect(maxAbsDiff(again.lossFnOutputs[0]!.logprobs!.data, trainedA)).toBeLessThan(1e-5);
    }, 240_000);

    it("reports the engine's refusals as E_POLICY_HTTP with its message: a failed future, unknown weights, an unknown future", async () => {
      // create_model's future fails in the engine (its LoRA rank limit is 32).
      const tooWide = new TinkerTrainingClient(http, { baseModel: modelDir, loraRank: 64 });
      await expect(tooWide.modelId()).rejects.toMatchObject({
        code: "E_POLICY_HTTP",
        message: expect.stringContaining("LoRA rank 64 must be between 1 and 32"),
      });
      const client = new TinkerTrainingClient(http, { baseModel: modelDir, loraRank: 4 });
      await expect(
        client.loadState("tinker://model_missing/weights/x", { optimizer: false }),
      ).rejects.toMatchObject({ code: "E_POLICY_HTTP", message: expect.stringContaining("404") });
      const sampler = tinkerSampler({
        baseURL: engine.url,
        baseModel: modelDir,
        modelPath: "tinker://model_missing/nothing",
        http,
        samplingSession: false,
      });
      await expect(
        sampler.sample({ promptTokenIds: [1, 2, 3], maxTokens: 2, stopTokenIds: renderer.stopIds }),
      ).rejects.toMatchObject({
        code: "E_POLICY_HTTP",
        message: expect.stringContaining("Model not found"),
      });
      await expect(http.awaitFuture("987654")).rejects.toMatchObject({
        code: "E_POLICY_HTTP",
        message: expect.stringContaining("Future not found"),
      });
    }, 60_000);

    it("sample-mean composes with ppo's clipped ratio: every token's loss is divided by G n_s, clipped or not", async () => {
      const a = conversation(renderer, "Add 2 and 3.", "\\boxed{5}");
      const b = conversation(renderer, "Name a color.", "blue");
      const [refA, refB] = referenceLogprobs(modelDir, [a.tokenIds, b.tokenIds]) as [
        number[],
        number[],
      ];
      // A fresh adapter is zero: the ratios are e^0.5 (clipped to 1.28 for A > 0) and e^-0.5
      // (clipped to 0.8 for A < 0), as in the protocol test above.
      const datums = [
        sequenceDatum(shifted(a, refA, -0.5), 0.5),
        sequenceDatum(shifted(a, refA, -0.5), -1),
        sequenceDatum(shifted(b, refB, 0.5), 0.5),
        sequenceDatum(shifted(b, refB, 0.5), -1),
      ];
      const masks = datums.map((d) => d.loss_fn_inputs.advantages.data.map((x) => (x ? 1 : 0)));
      // G = 5: a fifth sample of the step is masked (no datum).
      const weighted = aggregateAdvantages(
        datums.map((d, i) => ({ advantages: d.loss_fn_inputs.advantages.data, mask: masks[i]! })),
        "sample-mean",
        5,
      );
      const divisors = masks.map((m) => 5 * m.filter(Boolean).length);
      expect(divisors[0]).not.toBe(divisors[2]);
      const client = new TinkerTrainingClient(http, {
        baseModel: modelDir,
        loraRank: 8,
        loraSeed: 0,
      });
      const out = await client.forwardBackward(
        datums.map((d, i) => ({
          ...d,
          loss_fn_inputs: {
            ...d.loss_fn_inputs,
            advantages: { ...d.loss_fn_inputs.advantages, data: weighted[i]! },
          },
        })),
        "ppo",
        { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
      );
      const unweighted = [-0.64, Math.exp(0.5), -Math.exp(-0.5) * 0.5, 0.8];
      out.lossFnOutputs.forEach((o, i) =>
        expect(
          maxAbsDiff(o.elementwise_loss!.data, lossOn(datums[i]!, unweighted[i]! / divisors[i]!)),
        ).toBeLessThan(2e-5),
      );
    }, 60_000);

    it("accepts grad_clip_norm and ignores it (SkyRL tx's AdamParams has no such field): a clip at 1e-9 trains as none", async () => {
      const a = conversation(renderer, "Add 2 and 3.", "\\boxed{5}");
      const [refA] = referenceLogprobs(modelDir, [a.tokenIds]) as [number[]];
      const trainedWith = async (gradClipNorm: number) => {
        const client = new TinkerTrainingClient(http, {
          baseModel: modelDir,
          loraRank: 8,
          loraSeed: 0,
        });
        await client.forwardBackward(
          [sequenceDatum(shifted(a, refA, 0), 1)],
          "importance_sampling",
        );
        await client.optimStep({
          learningRate: 0.01,
          beta1: 0.9,
          beta2: 0.95,
          eps: 1e-8,
          weightDecay: 0,
          gradClipNorm,
        });
        const after = await client.forwardBackward(
          [sequenceDatum(shifted(a, refA, 0), 0)],
          "importance_sampling",
        );
        return after.lossFnOutputs[0]!.logprobs!.data;
      };
      const unclipped = await trainedWith(0);
      expect(maxAbsDiff(unclipped, refA)).toBeGreaterThan(1e-3);
      // A clip this small would leave the weights almost where they were (the gradient far below eps).
      expect(maxAbsDiff(await trainedWith(1e-9), unclipped)).toBeLessThan(1e-6);
    }, 60_000);

    it("learns: trained through SPADE's rollouts, advantages and trainer, the tiny model learns to say the target character", async () => {
      const result = await learnCheck({ url: engine.url, modelDir });
      expect(result.failedEpisodes).toBe(0);
      expect(result.before).toBeLessThan(0.1);
      expect(result.after).toBeGreaterThan(0.6);
    }, 400_000);
  },
);

describe.skipIf(SKIP_ENGINE)(
  `spade run training both roles on SkyRL's server ${SKIP_ENGINE ? SKIP_REASON : ""}`,
  () => {
    let engine: RunningEngine;
    let modelDir: string;

    beforeAll(async () => {
      requireEngine();
      // SPADE's designer prompt is ~20,000 characters: a BPE learned from the project's own texts
      // makes it ~5,600 tokens, and one datum at a time keeps the CPU engine's memory at ~3 GB.
      modelDir = buildTinyEngineModel(join(dir, "tiny-bpe"), { bpeVocab: 8192 });
      engine = await startEngine(modelDir, join(dir, "engine-bpe"), {
        backendConfig: { train_micro_batch_size: 1 },
      });
    }, 180_000);
    afterAll(async () => {
      await engine?.stop();
    }, 30_000);

    it("the BPE tokenizer encodes in Python's tokenizers library as in SPADE's renderer (same ids for special tokens)", () => {
      const renderer = ChatRenderer.fromDir(modelDir);
      const texts = [
        renderer.render(
          [
            { role: "system", content: "You write environments." },
            {
              role: "user",
              content:
                "class Environment { static meta = { maxTurns: 12 }; reset(seed) { return 42; } }",
            },
          ],
          { addGenerationPrompt: true },
        ),
        'Answer with \\boxed{1234}. <tool_call>{"name": "lookup"}</tool_call> ab 3.14159 naïve',
      ];
      expect(pythonTokenIds(modelDir, texts)).toEqual(texts.map((t) => renderer.encode(t)));
      expect(renderer.stopIds).toEqual([TINY.imEnd, TINY.endOfText]);
      // The merges shorten SPADE's texts about 3x (the designer prompt: ~20,000 characters -> ~5,600 tokens).
      expect(renderer.encode(texts[0]!).length).toBeLessThan(texts[0]!.length / 2);
    });

    const flags = (out: string, extra: string[]) => [
      "run",
      "--out",
      out,
      "--engine",
      engine.url,
      "--base-model",
      modelDir,
      "--model-path",
      modelDir,
      "--seed",
      "3",
      "--designs-per-step",
      "1",
      "--regenerate-every",
      "2",
      "--reward-delay",
      "1",
      "--plays",
      "2",
      "--hinted-plays",
      "0",
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
      "1e-3",
      // Every finished play one sample: the reference's fill to 192 samples would train 96 copies of each play on CPU.
      "--batch-fit",
      "off",
      ...extra,
    ];

    function readStore(out: string) {
      const store = RunStore.open(out, "read");
      try {
        return {
          steps: store.steps(),
          designs: store.designs(),
          samples: store.samples(),
          episodes: store.episodes({}),
          trainer: store.getState<Record<string, unknown>>("trainer"),
        };
      } finally {
        store.close();
      }
    }

    it("completes 2 steps: the invalid design's sample carries the invalid-design reward, agents play the library, every step trained and stored", async () => {
      const out = join(dir, "run-both");
      const run = await spade(flags(out, ["--steps", "2"]));
      expect(run.stderr).toContain("step 2/2");
      expect(run.code).toBe(0);
      const { steps, designs, samples, episodes, trainer } = readStore(out);
      expect(steps.map((s) => s.status)).toEqual(["done", "done"]);
      // The tiny random model writes no program: one invalid, trainable design, rewarded D = 1 step later.
      expect(designs.map((d) => [d.step, d.slot, d.outcome === "valid", d.trainable])).toEqual([
        [0, 0, false, true],
      ]);
      expect(
        samples
          .filter((s) => s.role === "designer")
          .map((s) => [s.step, s.ref, s.reward, s.advantage]),
      ).toEqual([[1, "0/0/0", 0, 0]]);
      // No valid design: the pool falls back to the library; both steps replay its first environment.
      const agent = samples.filter((s) => s.role === "agent");
      expect(agent.map((s) => [s.step, s.ref.startsWith("lib-")])).toEqual([
        [0, true],
        [0, true],
        [1, true],
        [1, true],
      ]);
      expect(
        episodes.every(
          (e) =>
            e.failure === null &&
            (e.trace as { stream?: { tokenIds: number[] } }).stream!.tokenIds.length > 0,
        ),
      ).toBe(true);
      const train = steps.map((s) => (s.metrics as { train: Record<string, number> }).train);
      expect(train.map((t) => [t.agentDatums, t.designerDatums])).toEqual([
        [2, 0],
        [2, 1],
      ]);
      expect(
        train.every((t) => Number.isFinite(t.loss) && t["optim/skyrl.ai/grad_norm"]! >= 0),
      ).toBe(true);
      expect(trainer).toMatchObject({
        step: 1,
        samplerPath: expect.stringMatching(/^tinker:\/\/model_[0-9a-f]{8}\/spade-step-1$/),
        statePath: expect.stringMatching(/^tinker:\/\/model_[0-9a-f]{8}\/weights\/spade-step-1$/),
      });
      expect(readFileSync(join(out, "metrics.jsonl"), "utf8").trim().split("\n")).toHaveLength(2);
    }, 400_000);

    it("trains the fixed-environment baseline (--designer off): agent samples from library environments only", async () => {
      const out = join(dir, "run-baseline");
      const run = await spade(flags(out, ["--steps", "1", "--designer", "off"]));
      expect(run.code).toBe(0);
      const { designs, samples, trainer } = readStore(out);
      expect(designs).toEqual([]);
      expect(samples.map((s) => [s.role, s.ref.startsWith("lib-")])).toEqual([
        ["agent", true],
        ["agent", true],
      ]);
      expect(trainer).toMatchObject({
        step: 0,
        samplerPath: expect.stringMatching(/\/spade-step-0$/),
      });
    }, 300_000);
  },
);

/** Pids of live processes whose command line mentions `text` (the engine's work dir names every process of it). */
function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text)) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Waits until no process mentions `text`, at most `ms`; returns those still there. */
async function goneWithin(text: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (processesMentioning(text).length > 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 200));
  return processesMentioning(text);
}

describe.skipIf(SKIP_ENGINE)(
  `spade run --engine local: the engine as a child process ${SKIP_ENGINE ? SKIP_REASON : ""}`,
  () => {
    let modelDir: string;

    beforeAll(() => {
      requireEngine();
      modelDir = join(dir, "tiny-bpe");
      if (!existsSync(join(modelDir, "config.json")))
        buildTinyEngineModel(modelDir, { bpeVocab: 8192 });
    }, 180_000);

    const flags = (out: string, extra: string[]) => [
      "run",
      "--out",
      out,
      "--engine",
      "local",
      "--base-model",
      modelDir,
      "--engine-backend-config",
      '{"train_micro_batch_size": 1}',
      "--seed",
      "3",
      "--designs-per-step",
      "1",
      "--regenerate-every",
      "2",
      "--reward-delay",
      "1",
      "--plays",
      "2",
      "--hinted-plays",
      "0",
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
      "1e-3",
      "--batch-fit",
      "off",
      ...extra,
    ];

    it("starts the engine, trains two steps, stops it: no process left behind", async () => {
      const out = join(dir, "run-local");
      const started = Date.now();
      const run = await spade(flags(out, ["--steps", "2"]));
      const ready =
        /local engine ready at (http:\/\/127\.0\.0\.1:\d+) in ([\d.]+) s \(pid (\d+)/.exec(
          run.stderr,
        );
      expect(ready, run.stderr.slice(-3000)).not.toBeNull();
      expect(run.stderr).toContain("step 2/2");
      expect(run.code).toBe(0);
      process.stderr.write(
        `spade run --engine local: engine ready in ${ready![2]} s; 2 steps in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
      );
      expect(processesMentioning(join(out, "engine"))).toEqual([]);
      const { steps, trainer } = readStoreOf(out);
      expect(steps.map((s) => s.status)).toEqual(["done", "done"]);
      expect(trainer).toMatchObject({
        step: 1,
        samplerPath: expect.stringMatching(/^tinker:\/\/model_[0-9a-f]{8}\/spade-step-1$/),
      });
      expect(readFileSync(join(out, "engine", "engine.log"), "utf8")).toContain("engine ready in");
      // 896 s measured here under a load average of about 18 (the engine JIT-compiles every new sequence length).
    }, 1_500_000);

    it("Ctrl-C while the engine starts: exit 130, the engine stopped", async () => {
      const out = join(dir, "run-sigint");
      const { child, done } = spadeAsync(flags(out, ["--steps", "1"]));
      // Once the engine's processes exist (its work dir is on their command lines), before it is ready.
      const deadline = Date.now() + 60_000;
      while (processesMentioning(join(out, "engine")).length < 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(processesMentioning(join(out, "engine")).length).toBeGreaterThan(0);
      child.kill("SIGINT");
      const ended = await done;
      expect(ended.code).toBe(130);
      expect(ended.stderr).toContain("spade run: stopped before the run began\n");
      expect(processesMentioning(join(out, "engine"))).toEqual([]);
    }, 180_000);

    it("a killed spade takes its engine with it; a dead engine ends the run with E_ENGINE_START and its log tail", async () => {
      const killedOut = join(dir, "run-killed");
      const killed = spadeAsync(flags(killedOut, ["--steps", "2"]));
      let stderr = "";
      killed.child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
      while (!stderr.includes("local engine ready")) await new Promise((r) => setTimeout(r, 200));
      killed.child.kill("SIGKILL");
      await killed.done;
      expect(await goneWithin(join(killedOut, "engine"), 30_000)).toEqual([]);

      const deadOut = join(dir, "run-engine-dies");
      const run = spadeAsync(flags(deadOut, ["--steps", "2"]));
      let log = "";
      run.child.stderr!.on("data", (c: Buffer) => (log += c.toString()));
      while (!/pid (\d+)/.test(log)) await new Promise((r) => setTimeout(r, 200));
      process.kill(-Number(/pid (\d+)/.exec(log)![1]), "SIGKILL");
      const ended = await run.done;
      expect(ended.code).toBe(1);
      expect(ended.stderr).toContain(
        "spade: E_ENGINE_START: the local engine died during the run (SIGKILL); the last lines of its log:",
      );
      expect(ended.stderr).toContain(`(continue with: spade run --resume ${deadOut})`);
      expect(processesMentioning(join(deadOut, "engine"))).toEqual([]);
    }, 600_000);

    it("a taken port is E_PORT_IN_USE, an engine that cannot load the model is E_ENGINE_START with its log tail", async () => {
      const taken = createServer();
      await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
      const port = (taken.address() as { port: number }).port;
      const busy = await spade(
        flags(join(dir, "run-port"), ["--steps", "1", "--engine-port", String(port)]),
      );
      taken.close();
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(
        `spade: E_PORT_IN_USE: port ${port} on 127.0.0.1 is already in use (stop what listens there, or pass another --engine-port (0: any free port))`,
      );
      // A Hugging Face name the engine cannot fetch (offline): the launcher exits before it is ready.
      const bad = await spade(
        flags(join(dir, "run-bad-model"), ["--steps", "1"]).map((a) =>
          a === modelDir ? "no-such-org/no-such-model" : a,
        ),
        { HF_HUB_OFFLINE: "1" },
      );
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(
        /spade: E_ENGINE_START: the engine exited before it was ready \(exit code 1\); the last lines of its log:\n/,
      );
      expect(bad.stderr).toContain("no-such-org/no-such-model");
      expect(processesMentioning(join(dir, "run-bad-model", "engine"))).toEqual([]);
    }, 180_000);
  },
);

function readStoreOf(out: string) {
  const store = RunStore.open(out, "read");
  try {
    return { steps: store.steps(), trainer: store.getState<Record<string, unknown>>("trainer") };
  } finally {
    store.close();
  }
}
