/**
 * @module loop/outcome
 * How a stored episode ended, read back from its transcript (`loop/play.ts` writes `outcome` and
 * `maskedTurns` there). Rows written before those fields existed are classified from their
 * failure and last step.
 */
import type { RunConfig } from "../config/index.js";
import type { EpisodeOutcome } from "../rollout/index.js";
import type { EpisodeRow } from "../store/index.js";

/** The outcome of a stored episode and its masked turns. */
export function episodeOutcome(e: Pick<EpisodeRow, "failure" | "transcript">): {
  outcome: EpisodeOutcome;
  maskedTurns: number[];
} {
  const t = (e.transcript ?? {}) as {
    outcome?: unknown;
    maskedTurns?: unknown;
    steps?: Array<{ terminated?: unknown }>;
  };
  const maskedTurns = Array.isArray(t.maskedTurns)
    ? t.maskedTurns.filter((n): n is number => typeof n === "number")
    : [];
  if (
    t.outcome === "terminated" ||
    t.outcome === "truncated" ||
    t.outcome === "overflow" ||
    t.outcome === "dropped"
  )
    return { outcome: t.outcome, maskedTurns };
  if (e.failure !== null) return { outcome: "dropped", maskedTurns };
  const last = Array.isArray(t.steps) ? t.steps[t.steps.length - 1] : undefined;
  return { outcome: last?.terminated === true ? "terminated" : "truncated", maskedTurns };
}

/**
 * True when an agent episode is scored but not trained: under `truncatedEpisodes: mask` (the
 * reference's `--spade-compact-filter`, `spade_generate_rollout`: the loss mask of every sample
 * whose episode did not terminate is zeroed after the GRPO advantages were computed), an episode
 * that was truncated or filled the context. A config without the setting (a run stored before it
 * existed) trains them, as it did.
 */
export function isMaskedTruncation(
  config: Partial<Pick<RunConfig, "truncatedEpisodes">>,
  e: Pick<EpisodeRow, "failure" | "transcript">,
): boolean {
  if (config.truncatedEpisodes !== "mask") return false;
  const { outcome } = episodeOutcome(e);
  return outcome === "truncated" || outcome === "overflow";
}
