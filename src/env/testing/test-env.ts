/**
 * @module env/testing/test-env
 * TEST DOUBLE. A tiny native environment ("guess the two-digit number") whose every method can
 * be overridden, so tests can build broken environments in one line.
 */
import { makeAction } from "../action.js";
import type { Action, Env, EnvMeta, ResetResult, StepResult } from "../types.js";

/** State of the test environment, visible to overrides. */
export interface TestEnvState {
  secret: number;
  turns: number;
  resets: number;
}

/** Overrides: each replaces one method; `this`-free, they receive the state. */
export interface TestEnvOverrides {
  meta?: Partial<EnvMeta>;
  reset?: (seed: number, state: TestEnvState) => unknown;
  step?: (action: Action, state: TestEnvState) => unknown;
  hint?: (state: TestEnvState) => unknown;
  solve?: (state: TestEnvState) => unknown;
}

/** The default meta of the test environment. */
export const TEST_META: EnvMeta = {
  name: "guess-number",
  skill: "Logical Deduction",
  description: "Guess a secret number from 10 to 99 with higher/lower feedback.",
  maxTurns: 8,
  tools: [],
};

/** Builds a test environment; without overrides it passes `checkEnv`. */
export function makeTestEnv(overrides: TestEnvOverrides = {}): Env {
  const state: TestEnvState = { secret: 0, turns: 0, resets: 0 };
  const meta = { ...TEST_META, ...overrides.meta };
  const defaultReset = (seed: number): ResetResult => {
    state.secret = 10 + ((seed * 37 + 11) % 90);
    state.turns = 0;
    return { observation: "Guess a number from 10 to 99 as \\boxed{n}.", info: {} };
  };
  const defaultStep = (action: Action): StepResult => {
    state.turns++;
    const guess = Number(action.answer);
    if (guess === state.secret)
      return { observation: "Correct!", reward: 1, terminated: true, truncated: false, info: {} };
    const feedback = Number.isFinite(guess)
      ? guess < state.secret
        ? "higher"
        : "lower"
      : "give a number";
    return { observation: feedback, reward: 0, terminated: false, truncated: false, info: {} };
  };
  return {
    meta,
    async reset(seed) {
      state.resets++;
      return (overrides.reset ? overrides.reset(seed, state) : defaultReset(seed)) as ResetResult;
    },
    async step(action) {
      return (overrides.step ? overrides.step(action, state) : defaultStep(action)) as StepResult;
    },
    async hint() {
      return (overrides.hint ? overrides.hint(state) : `The number is ${state.secret}.`) as string;
    },
    async solve() {
      return (
        overrides.solve ? overrides.solve(state) : makeAction(`\\boxed{${state.secret}}`)
      ) as Action;
    },
    async close() {},
  };
}
