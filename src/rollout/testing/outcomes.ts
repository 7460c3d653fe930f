/**
 * @module rollout/testing/outcomes
 * TEST FIXTURE: episode outcomes that tests of several layers (rollout, agents) expect alike.
 */

/** An episode whose agent ran out of context at turn 1 under `failures: "reference"`: counted, return 0. */
export const OVERFLOWED_AT_TURN_1 = {
  turns: 1,
  outcome: "overflow",
  return: 0,
  success: false,
  failure: null,
  failureCode: null,
} as const;
