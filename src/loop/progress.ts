/**
 * @module loop/progress
 * The one-line progress report of a finished step, and the live progress of the work inside one.
 */
import type { StepMetrics } from "./score.js";

const fmt = (x: number | null, digits = 3) => (x === null ? "-" : x.toFixed(digits));

/** `step 3/10 | designs 20/24 valid | pool 20 | regret 0.231 | success 0.42 (hinted 0.81) | loss -1.234 | 12.3 episodes/s` (loss when trained) */
export function formatProgress(
  m: StepMetrics & { train?: Record<string, number> },
  steps: number,
  seconds: number,
): string {
  const parts = [`step ${m.step + 1}/${steps}`];
  if (m.regenerated) parts.push(`designs ${m.designsValid}/${m.designSlots} valid`);
  parts.push(`pool ${m.poolSize}`);
  parts.push(`regret ${fmt(m.meanRegret)}`);
  parts.push(
    `success ${fmt(m.agentSuccess, 2)}${m.hintedSuccess === null ? "" : ` (hinted ${fmt(m.hintedSuccess, 2)})`}`,
  );
  if (m.failedEpisodes > 0) parts.push(`${m.failedEpisodes} failed episodes`);
  if (m.overflowEpisodes > 0) parts.push(`context overflows ${m.overflowEpisodes}`);
  if (m.maskedTurns > 0) parts.push(`masked turns ${m.maskedTurns}`);
  if (m.train?.loss !== undefined) parts.push(`loss ${fmt(m.train.loss)}`);
  parts.push(`${seconds > 0 ? (m.episodes / seconds).toFixed(1) : "-"} episodes/s`);
  return parts.join(" | ");
}

/** Progress of the work inside a step, reported while it runs (the CLI shows it as a live line). */
export type StepWork =
  | {
      stage: "design";
      step: number;
      /** Design attempts finished (each one designer completion and its repair turns). */
      attempts: number;
      /**
       * Attempts this step can take: `maxAttempts` per slot still to design, lowered to the
       * attempts a slot used once it is stored; `attempts` equals it when the stage ends.
       */
      attemptsTotal: number;
      /** Slots stored with a valid design so far. */
      valid: number;
      /** Seconds since the stage began. */
      seconds: number;
    }
  | {
      stage: "play";
      step: number;
      /** Episodes finished (failed ones included). */
      episodes: number;
      /** Episodes of the stage: unhinted and hinted plays of every environment still to play. */
      episodesTotal: number;
      /** Seconds since the stage began. */
      seconds: number;
    };

/** `step 1/4 designing: attempts 3/5, 1 valid, 12.0 designs/min` or `step 1/4 playing: episodes 5/8, 2.5 episodes/s` */
export function formatWork(w: StepWork, steps: number): string {
  const head = `step ${w.step + 1}/${steps}`;
  if (w.stage === "design") {
    const rate = w.seconds > 0 ? ((w.attempts * 60) / w.seconds).toFixed(1) : "-";
    return `${head} designing: attempts ${w.attempts}/${w.attemptsTotal}, ${w.valid} valid, ${rate} designs/min`;
  }
  const rate = w.seconds > 0 ? (w.episodes / w.seconds).toFixed(1) : "-";
  return `${head} playing: episodes ${w.episodes}/${w.episodesTotal}, ${rate} episodes/s`;
}
