/**
 * @module loop/progress
 * The one-line progress report of a finished step.
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
