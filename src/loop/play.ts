/**
 * @module loop/play
 * The play stage of a step: every environment of the pool gets `playsPerEnv` unhinted episodes
 * (ceil(agentBatch / pool size), the reference's `collect_trajectories`, unless `plays` is set)
 * and, on the step that created it, `hintedPlays` hinted ones on paired seeds. Episodes are capped
 * at `maxTurnsCap` turns and end per `episodeFailures`. Each environment's group is stored in one
 * transaction, its transcript saying how each episode ended; groups already stored (a resumed
 * step) are skipped.
 */
import type { RunConfig } from "../config/index.js";
import { withFixedHint } from "../designer/index.js";
import type { Json } from "../env/index.js";
import type { Limiter } from "../policy/index.js";
import { episodeTranscript, runGroup } from "../rollout/index.js";
import { detectProgramLanguage, loadProgram } from "../sandbox/index.js";
import { isOpenEnvRef, openRemoteEnv } from "../envs/index.js";
import type { EnvironmentRow, RunStore } from "../store/index.js";
import { playSeeds, seedOf } from "./keys.js";
import { runSampling, type LoopPolicy } from "./policy.js";

/** What the play stage needs. */
export interface PlayContext {
  config: RunConfig;
  store: RunStore;
  policy: LoopPolicy;
  /** Bounds episodes in flight across all groups (`concurrency`). */
  limiter: Limiter;
  /** The weights version the stage samples with, stored with every episode (loop/pipeline.ts). */
  weightsVersion: number;
  signal?: AbortSignal;
  /** Told the stage's episodes finished and its total, at its start and as each episode ends (progress). */
  onEpisodes?: (done: number, total: number) => void;
  /** Every play of a group on one seed, so they share one problem (the reference's RLVE runs, `--spade-fixed-env-same-problem`). */
  sameProblem?: boolean;
}

/** Unhinted plays per environment for a pool of `poolSize`: `plays` when set, else ceil(agentBatch / poolSize). */
export function playsPerEnv(
  config: Pick<RunConfig, "plays" | "agentBatch">,
  poolSize: number,
): number {
  if (config.plays !== null && config.plays !== undefined) return config.plays;
  return Math.max(1, Math.ceil(config.agentBatch / Math.max(1, poolSize)));
}

/** True when `env` gets hinted plays at `step`: designed environments, on their creation step. */
export function playsHinted(env: EnvironmentRow, step: number): boolean {
  return env.source === "designer" && env.createdStep === step;
}

/** Hinted plays of `env` at `step` (--hints model with no hint written: none, as the reference). */
function hintedCount(config: RunConfig, env: EnvironmentRow, step: number): number {
  return playsHinted(env, step) && (config.hints === "program" || env.hint !== null)
    ? config.hintedPlays
    : 0;
}

async function playEnvironment(
  ctx: PlayContext,
  step: number,
  env: EnvironmentRow,
  plays: number,
  onEpisode: () => void,
): Promise<void> {
  const { config, store, policy } = ctx;
  const seeds = ctx.sameProblem
    ? Array.from({ length: plays }, () => playSeeds(config.seed, step, env.id, 1)[0] as number)
    : playSeeds(config.seed, step, env.id, plays);
  const open = async () => {
    // A remote OpenEnv environment of --env-pool (its row's code is the reference).
    const program = isOpenEnvRef(env.code)
      ? await openRemoteEnv(env.code)
      : await loadProgram(env.code, {
          backend: config.sandbox,
          language: detectProgramLanguage(env.code),
        });
    return env.hint === null ? program : withFixedHint(program, env.hint);
  };
  const group = await runGroup(
    open,
    ({ index, signal }) =>
      policy.agent({
        ...runSampling(config),
        maxTokens: config.maxTokens,
        seed: seedOf(config.seed, "agent", step, env.id, index),
        signal,
      }),
    {
      seeds,
      hintedEpisodes: hintedCount(config, env, step),
      limiter: ctx.limiter,
      hintTemplate: config.hintTemplate,
      // Settings of runs stored before they existed read as undefined: no cap, failures dropped (the old way).
      maxTurnsCap: config.maxTurnsCap ?? null,
      failures: config.episodeFailures ?? "drop",
      signal: ctx.signal,
      onEpisode,
    },
  );
  store.transaction(() => {
    group.episodes.forEach((e, idx) => {
      store.insertEpisode({
        step,
        envId: env.id,
        idx,
        seed: e.seed,
        hinted: e.hinted,
        return: e.return,
        success: e.success,
        turns: e.turns,
        failure: e.failure,
        failureCode: e.failureCode ?? null,
        rewards: e.steps.map((s) => s.reward),
        transcript: episodeTranscript(e, { messages: false }) as unknown as Json,
        trace: (e.trace ?? null) as Json | null,
        weightsVersion: ctx.weightsVersion,
      });
    });
  });
}

/** Runs the play stage of `step` over `pool`. Returns how many groups it ran. */
export async function playStep(
  ctx: PlayContext,
  step: number,
  pool: readonly EnvironmentRow[],
): Promise<number> {
  const done = new Set(ctx.store.playedAt(step));
  const todo = pool.filter((env) => !done.has(env.id));
  const plays = playsPerEnv(ctx.config, pool.length);
  const total = todo.reduce((n, env) => n + plays + hintedCount(ctx.config, env, step), 0);
  let finished = 0;
  if (todo.length > 0) ctx.onEpisodes?.(finished, total);
  const onEpisode = () => ctx.onEpisodes?.(++finished, total);
  await Promise.all(todo.map((env) => playEnvironment(ctx, step, env, plays, onEpisode)));
  return todo.length;
}
