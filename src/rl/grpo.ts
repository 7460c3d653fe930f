/**
 * @module rl/grpo
 * The agent's GRPO advantage within one environment group: (r - mean) / (std + 1e-8) over the
 * group's finished episodes, broadcast later to every trained token. Failed episodes are masked.
 */
import { SpadeError } from "../errors.js";
import { mean, requireFinite } from "./check.js";

/** Options of `groupAdvantages`. */
export interface GroupAdvantageOptions {
  /** Divide by the group's std (the reference's 30B runs). false: mean-centring only. Default true. */
  stdNormalize?: boolean;
  /** Added to the std before dividing, so an all-equal group gives 0, not NaN. Default 1e-8. */
  epsilon?: number;
}

/** Population standard deviation (numpy's default, ddof 0) of a non-empty list. */
export function populationStd(values: readonly number[]): number {
  const m = mean(values);
  let sum = 0;
  for (const v of values) sum += (v - m) * (v - m);
  return Math.sqrt(sum / values.length);
}

/**
 * Advantages of one group's episodes, in input order. A null return is a failed episode: its
 * advantage is null (masked out of training) and it does not move the mean or std.
 */
export function groupAdvantages(
  returnsByEpisode: readonly (number | null)[],
  options: GroupAdvantageOptions = {},
): Array<number | null> {
  const stdNormalize = options.stdNormalize ?? true;
  const epsilon = options.epsilon ?? 1e-8;
  if (!Number.isFinite(epsilon) || epsilon <= 0) {
    throw new SpadeError(
      "E_CONFIG",
      `the GRPO epsilon must be a number > 0 (got ${String(epsilon)})`,
    );
  }
  const finished = returnsByEpisode
    .filter((r): r is number => r !== null)
    .map((r) => requireFinite(r, "episode return"));
  if (finished.length === 0) return returnsByEpisode.map(() => null);
  const m = mean(finished);
  const divisor = stdNormalize ? populationStd(finished) + epsilon : 1;
  return returnsByEpisode.map((r) => (r === null ? null : (r - m) / divisor));
}
