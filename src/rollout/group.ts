/**
 * @module rollout/group
 * A group of episodes of one environment: N unhinted and M hinted on paired seeds (hinted
 * episode i replays the seed of unhinted episode i mod N), run concurrently with one environment
 * instance per episode in flight. Failed episodes are kept, flagged, and left out of the stats.
 */
import { describeError, isSpadeError, SpadeError } from "../errors.js";
import type { Env } from "../env/index.js";
import { Limiter } from "../policy/index.js";
import {
  emptyEpisode,
  runEpisode,
  type Agent,
  type Episode,
  type EpisodeFailureMode,
} from "./episode.js";

/** What an agent factory learns about the episode it makes an agent for. */
export interface GroupEpisodeContext {
  /** Position in the group's result (unhinted first, then hinted). */
  index: number;
  seed: number;
  hinted: boolean;
  /** The group's cancellation signal; pass it to the agent's requests. */
  signal: AbortSignal | undefined;
}

/** Makes a fresh agent for each episode (agents may keep the conversation). */
export type AgentFactory = (context: GroupEpisodeContext) => Agent;

/** Settings of a group. */
export interface GroupOptions {
  /** Seeds of the unhinted episodes, in order; N = its length (at least 1). */
  seeds: readonly number[];
  /** Number of hinted episodes M; hinted episode i uses `seeds[i % N]`. Default 0. */
  hintedEpisodes?: number;
  /** Most episodes of this group in flight at once, and so most environment instances open. Default: all of them. */
  concurrency?: number;
  /** A limiter shared with other groups: each episode in flight holds one slot. Default none. */
  limiter?: Limiter;
  /**
   * Bounds how many environments are being opened at once (opening a sandbox is CPU work, so
   * hundreds at once only delay the first episodes, and the calls queued behind them). Share one
   * across groups to bound it process-wide. Default: a limiter of `DEFAULT_OPEN_CONCURRENCY` per group.
   */
  openLimiter?: Limiter;
  /** Cancels the group: no new episode starts, running ones stop at their next turn, and `runGroup` rejects with E_CANCELLED. */
  signal?: AbortSignal;
  /** Hint template for hinted episodes (see `runEpisode`). */
  hintTemplate?: string;
  /** Turn cap of every episode (see `runEpisode`). Default: none. */
  maxTurnsCap?: number | null;
  /** Which agent failures end an episode as data (see `runEpisode`). Default `drop`. */
  failures?: EpisodeFailureMode;
  /** Called as each episode of the group ends (failed ones included), in the order they end; for progress. */
  onEpisode?: (episode: Episode) => void;
}

/** Environments a group opens at once unless given an `openLimiter`. */
export const DEFAULT_OPEN_CONCURRENCY = 4;

/** Statistics over the non-failed episodes of one kind. */
export interface GroupStats {
  /** Episodes of this kind, failed ones included. */
  episodes: number;
  /** Failed episodes (left out of the rates below). */
  failed: number;
  /** Share of non-failed episodes that succeeded, or null when all failed. */
  successRate: number | null;
  /** Mean return of non-failed episodes, or null when all failed. */
  meanReturn: number | null;
}

/** A finished group. */
export interface GroupResult {
  /** Unhinted episodes in seed order, then hinted ones in order. */
  episodes: Episode[];
  unhinted: GroupStats;
  hinted: GroupStats;
}

/** The seeds of a group's episodes: the N unhinted ones, then M hinted ones paired with them. */
export function pairedSeeds(
  seeds: readonly number[],
  hintedEpisodes: number,
): Array<{ seed: number; hinted: boolean }> {
  if (seeds.length === 0)
    throw new SpadeError("E_CONFIG", "a group needs at least one unhinted seed", {
      nextStep: "pass seeds: [s0, s1, ...]",
    });
  if (!Number.isInteger(hintedEpisodes) || hintedEpisodes < 0)
    throw new SpadeError(
      "E_CONFIG",
      `hintedEpisodes must be an integer >= 0 (got ${hintedEpisodes})`,
    );
  return [
    ...seeds.map((seed) => ({ seed, hinted: false })),
    ...Array.from({ length: hintedEpisodes }, (_, i) => ({
      seed: seeds[i % seeds.length] as number,
      hinted: true,
    })),
  ];
}

/** Stats over the non-failed episodes of `episodes`. */
export function groupStats(episodes: readonly Episode[]): GroupStats {
  const ok = episodes.filter((e) => e.failure === null);
  return {
    episodes: episodes.length,
    failed: episodes.length - ok.length,
    successRate: ok.length === 0 ? null : ok.filter((e) => e.success).length / ok.length,
    meanReturn: ok.length === 0 ? null : ok.reduce((sum, e) => sum + e.return, 0) / ok.length,
  };
}

/** An episode that failed before it could start (the environment did not open). */
function openFailure(seed: number, hinted: boolean, err: unknown): Episode {
  return {
    ...emptyEpisode(seed, hinted, "dropped"),
    failure: `open: ${describeError(err)}`,
    failureStage: "open",
    failureCode: isSpadeError(err) ? err.code : null,
  };
}

/**
 * Plays a group. `open` returns a fresh environment instance; each worker opens one and reuses
 * it across its episodes (`reset(seed)` alone determines an episode), and reopens it after the
 * environment failed (a broken sandbox is not reused). Never rejects for an episode's sake.
 */
export async function runGroup(
  open: () => Promise<Env>,
  makeAgent: AgentFactory,
  options: GroupOptions,
): Promise<GroupResult> {
  const plan = pairedSeeds(options.seeds, options.hintedEpisodes ?? 0);
  const concurrency = options.concurrency ?? plan.length;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new SpadeError("E_CONFIG", `concurrency must be an integer >= 1 (got ${concurrency})`);
  const { signal, limiter } = options;
  const openLimiter = options.openLimiter ?? new Limiter(DEFAULT_OPEN_CONCURRENCY);
  const episodes: Array<Episode | undefined> = new Array(plan.length);
  let next = 0;

  const worker = async () => {
    let env: Env | undefined;
    try {
      while (!signal?.aborted && next < plan.length) {
        const index = next++;
        const { seed, hinted } = plan[index] as { seed: number; hinted: boolean };
        let release: (() => void) | undefined;
        try {
          release = await limiter?.acquire(signal);
        } catch {
          return; // cancelled while waiting
        }
        try {
          try {
            env ??= await openLimiter.run(open, signal);
          } catch (err) {
            episodes[index] = openFailure(seed, hinted, err);
            options.onEpisode?.(episodes[index] as Episode);
            continue;
          }
          let agent: Agent;
          try {
            agent = makeAgent({ index, seed, hinted, signal });
          } catch (err) {
            agent = async () => {
              throw err;
            }; // recorded as the episode's agent failure
          }
          const episode = await runEpisode(env, agent, {
            seed,
            hinted,
            signal,
            hintTemplate: options.hintTemplate,
            maxTurnsCap: options.maxTurnsCap,
            failures: options.failures,
          });
          episodes[index] = episode;
          options.onEpisode?.(episode);
          if (
            episode.failureStage === "reset" ||
            episode.failureStage === "hint" ||
            episode.failureStage === "step"
          ) {
            const broken = env;
            env = undefined;
            await broken.close().catch(() => {});
          }
        } finally {
          release?.();
        }
      }
    } finally {
      await env?.close().catch(() => {});
    }
  };

  await Promise.all(Array.from({ length: Math.min(concurrency, plan.length) }, worker));
  if (signal?.aborted) {
    const done = episodes.filter((e) => e !== undefined && e.failureCode !== "E_CANCELLED").length;
    throw new SpadeError(
      "E_CANCELLED",
      `the group was cancelled after ${done} of ${plan.length} episodes`,
    );
  }
  const all = episodes as Episode[];
  return {
    episodes: all,
    unhinted: groupStats(all.filter((e) => !e.hinted)),
    hinted: groupStats(all.filter((e) => e.hinted)),
  };
}
