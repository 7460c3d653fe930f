/**
 * @module test/engine/learn-check
 * The learning check: SPADE's own pieces (token agents over a Tinker sampler, `runGroup`
 * rollouts, GRPO `groupAdvantages`, `TinkerTrainer` datums and steps, sampling from each step's
 * new weights) train the tiny random model on an engine until it says a target character it
 * starts out saying by chance. No system prompt: a short prompt keeps each step a few seconds on CPU.
 */
import { makeTestEnv } from "../../src/env/testing/test-env.js";
import { ChatRenderer, TinkerHttp, tinkerSampler, tokenAgent } from "../../src/policy/index.js";
import { groupAdvantages } from "../../src/rl/index.js";
import { runGroup, type Episode } from "../../src/rollout/index.js";
import type { EpisodeRow } from "../../src/store/index.js";
import { TinkerTrainer, TinkerTrainingClient, type TrainSample } from "../../src/trainer/index.js";
import type { Json } from "../../src/env/index.js";

/** The character the reply must contain (one token of the tiny byte-level tokenizer). */
export const TARGET = "@";

/** Settings of the learning check; the defaults are what `npm run learn-check` and the test use. */
export interface LearnCheckOptions {
  /** The engine's root URL. */
  url: string;
  /** The tiny model's folder: the engine's `--base-model` and the renderer's tokenizer files. */
  modelDir: string;
  /** Training steps. Default 10 (in trials the rate passed 0.8 by step 3). */
  steps?: number;
  /** Episodes per training step (one GRPO group). Default 32. */
  groupSize?: number;
  /** Episodes of the before and after measurements. Default 128. */
  evalEpisodes?: number;
  /** Tokens per reply. Default 8 (a reply of the base model holds the target ~6% of the time). */
  maxTokens?: number;
  /** Adam learning rate. Default 0.005 (0.02 collapsed the tiny model's replies in trials). */
  learningRate?: number;
  /** Receives a line per step. */
  log?: (line: string) => void;
}

/** What the learning check measured. */
export interface LearnCheckResult {
  /** Success rate of the base model. */
  before: number;
  /** Success rate after the last step. */
  after: number;
  /** Success rate of each training step's group. */
  successByStep: number[];
  /** Episodes that failed (an error, not a wrong reply), over all groups. */
  failedEpisodes: number;
  seconds: number;
}

/** The environment: one turn; reward 1 when the reply contains `TARGET`, else 0. */
function sayTarget() {
  return makeTestEnv({
    meta: {
      name: "say-target",
      skill: "Language Understanding",
      description: `Reply with the character ${TARGET}.`,
      maxTurns: 1,
    },
    reset: () => ({ observation: `Reply with the character ${TARGET}.`, info: {} }),
    step: (action) => ({
      observation: "",
      reward: action.text.includes(TARGET) ? 1 : 0,
      terminated: true,
      truncated: false,
      info: {},
    }),
  });
}

/** An episode as the store would hold it (the trainer reads its trace). */
function rowOf(e: Episode, step: number, idx: number): EpisodeRow {
  return {
    step,
    envId: "say-target",
    idx,
    seed: e.seed,
    hinted: e.hinted,
    return: e.return,
    success: e.success,
    turns: e.turns,
    failure: e.failure,
    failureCode: e.failureCode,
    rewards: e.steps.map((s) => s.reward),
    transcript: null,
    trace: (e.trace ?? null) as Json | null,
  };
}

const successRate = (episodes: readonly Episode[]) => {
  const ok = episodes.filter((e) => e.failure === null);
  return ok.length ? ok.filter((e) => e.success).length / ok.length : 0;
};

/** Runs the learning check against a running engine. */
export async function learnCheck(options: LearnCheckOptions): Promise<LearnCheckResult> {
  const started = Date.now();
  const {
    steps = 10,
    groupSize = 32,
    evalEpisodes = 128,
    maxTokens = 8,
    learningRate = 0.005,
    log = () => {},
  } = options;
  const renderer = ChatRenderer.fromDir(options.modelDir);
  const http = new TinkerHttp({ baseURL: options.url });
  try {
    // A sampler of the current weights: the base model, then each step's saved sampler weights.
    let sampler = tinkerSampler({ baseURL: options.url, baseModel: options.modelDir, http });
    const client = new TinkerTrainingClient(http, {
      baseModel: options.modelDir,
      loraRank: 8,
      loraSeed: 0,
    });
    const trainer = new TinkerTrainer({
      client,
      adam: { learningRate, beta2: 0.95, weightDecay: 0 },
      saveState: false,
    });
    let failedEpisodes = 0;
    const play = async (n: number, seedBase: number) => {
      const seeds = Array.from({ length: n }, (_, i) => seedBase + i);
      const group = await runGroup(
        async () => sayTarget(),
        ({ index, signal }) =>
          tokenAgent({
            sampler,
            renderer,
            systemPrompt: null,
            maxTokens,
            sampling: { temperature: 1, seed: seedBase + index },
            signal,
          }),
        { seeds },
      );
      for (const e of group.episodes.filter((e) => e.failure !== null)) {
        failedEpisodes++;
        log(`episode ${e.seed} failed (${e.failureCode}): ${e.failure}`);
      }
      return group.episodes;
    };

    const before = successRate(await play(evalEpisodes, 1_000_000));
    log(`before: success ${before.toFixed(3)} over ${evalEpisodes} episodes`);
    const successByStep: number[] = [];
    for (let step = 0; step < steps; step++) {
      const episodes = await play(groupSize, (step + 1) * 1000);
      const advantages = groupAdvantages(
        episodes.map((e) => (e.failure === null ? e.return : null)),
      );
      const samples: TrainSample[] = [];
      episodes.forEach((e, i) => {
        const advantage = advantages[i];
        if (advantage !== null && advantage !== undefined)
          samples.push({
            role: "agent",
            ref: `say-target/${i}`,
            reward: e.return,
            advantage,
            episode: rowOf(e, step, i),
          });
      });
      const trained = await trainer.train(step, samples);
      if (trained.checkpoint)
        sampler = tinkerSampler({
          baseURL: options.url,
          baseModel: options.modelDir,
          modelPath: trained.checkpoint.samplerPath,
          http,
        });
      successByStep.push(successRate(episodes));
      log(
        `step ${step + 1}/${steps}: success ${successRate(episodes).toFixed(3)}, ${trained.metrics.trainedTokens ?? 0} tokens trained, ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    const after = successRate(await play(evalEpisodes, 2_000_000));
    log(`after: success ${after.toFixed(3)} over ${evalEpisodes} episodes`);
    return { before, after, successByStep, failedEpisodes, seconds: (Date.now() - started) / 1000 };
  } finally {
    http.close();
  }
}
