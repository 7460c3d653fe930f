/**
 * @module rl/learning-potential
 * The reference's per-skill learning-potential tracker (fast and slow moving averages of the
 * agent's reward) as plain data: state in, new state out.
 */
import { SpadeError } from "../errors.js";
import { requireFinite } from "./check.js";

/** Tracker state of one skill; both averages are null before the first update. */
export interface LpState {
  muFast: number | null;
  muSlow: number | null;
}

/** Smoothing factors. Each weighs the NEW value (mu = (1 - gamma) * mu + gamma * r). */
export interface LpOptions {
  /** Weight of the new value in the fast average. Default 0.98 (the 30B runs). */
  gammaFast?: number;
  /** Weight of the new value in the slow average. Default 0.85. Must be below gammaFast. */
  gammaSlow?: number;
}

/** The state before any update. */
export const LP_INITIAL: LpState = Object.freeze({ muFast: null, muSlow: null });

function gammas(options: LpOptions): { fast: number; slow: number } {
  const fast = options.gammaFast ?? 0.98;
  const slow = options.gammaSlow ?? 0.85;
  if (!(fast > slow && slow > 0 && fast <= 1)) {
    throw new SpadeError(
      "E_CONFIG",
      `learning potential needs 0 < gammaSlow < gammaFast <= 1 (got ${fast} / ${slow})`,
    );
  }
  return { fast, slow };
}

/** |muFast - muSlow| / (2 (gammaFast - gammaSlow)); 0 before the first update. */
export function lpPotential(state: LpState, options: LpOptions = {}): number {
  return Math.abs(lpSignedPotential(state, options));
}

/** (muFast - muSlow) / (2 (gammaFast - gammaSlow)): positive while the reward is rising. */
export function lpSignedPotential(state: LpState, options: LpOptions = {}): number {
  const { fast, slow } = gammas(options);
  if (state.muFast === null || state.muSlow === null) return 0;
  return (state.muFast - state.muSlow) / (2 * (fast - slow));
}

/** The baseline the `learningPotential` reward measures against: muSlow, or 0 before any update. */
export function lpBaseline(state: LpState): number {
  return state.muSlow ?? 0;
}

/**
 * Feeds one mean reward into a tracker. The first value sets both averages (potential 0);
 * after that each average moves toward `reward` by its gamma.
 */
export function lpUpdate(
  state: LpState,
  reward: number,
  options: LpOptions = {},
): { state: LpState; potential: number } {
  const { fast, slow } = gammas(options);
  requireFinite(reward, "learning-potential reward");
  if (state.muFast === null || state.muSlow === null) {
    return { state: { muFast: reward, muSlow: reward }, potential: 0 };
  }
  const next = {
    muFast: (1 - fast) * state.muFast + fast * reward,
    muSlow: (1 - slow) * state.muSlow + slow * reward,
  };
  return { state: next, potential: lpPotential(next, options) };
}
