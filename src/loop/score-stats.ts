/**
 * @module loop/score-stats
 * An environment's statistics over its window of plays: the unhinted plays of the R steps from
 * its creation (every step, for library environments), and regret from its creation step. Pure.
 */
import { regret, winRate } from "../rl/index.js";
import type { EnvironmentSummary, EnvStats, EpisodeScore } from "../store/index.js";

/** The unhinted plays that count toward `env`'s stats: R steps from its creation (all, for library envs). */
export function windowPlays(
  regenerateEvery: number,
  env: EnvironmentSummary,
  episodes: readonly EpisodeScore[],
): EpisodeScore[] {
  const last =
    env.source === "designer" ? env.createdStep + regenerateEvery - 1 : Number.POSITIVE_INFINITY;
  return episodes.filter(
    (e) => e.envId === env.id && !e.hinted && e.step >= env.createdStep && e.step <= last,
  );
}

/**
 * `env`'s stats after the plays in `episodes`: steps played in its window, the unhinted win rate
 * over the window's finished plays (a context overflow is finished, with return 0; a dropped
 * play is not), and the regret of its creation step (designed environments with hinted plays).
 */
export function envStats(
  regenerateEvery: number,
  env: EnvironmentSummary,
  episodes: readonly EpisodeScore[],
): EnvStats {
  const window = windowPlays(regenerateEvery, env, episodes);
  const finished = window.filter((e) => e.failure === null);
  const atCreation = episodes.filter((e) => e.envId === env.id && e.step === env.createdStep);
  const measured =
    env.source === "designer" && atCreation.some((e) => e.hinted) ? regret(atCreation) : null;
  return {
    ...env.stats,
    plays: new Set(window.map((e) => e.step)).size,
    winRate: finished.length ? winRate(window) : null,
    regret:
      measured && measured.hintedMean !== null && measured.unhintedMean !== null
        ? measured.regret
        : null,
  };
}
