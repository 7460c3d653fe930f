/**
 * @module eval/tau2/samples
 * One trial of a tau2 task as a SPADE sample record: a scored simulation, or one that raised.
 */
import type { SampleRecord } from "../run/index.js";
import type { Tau2Event } from "./driver.js";

/**
 * The sample of a simulation tau2 scored; one that tau2 ended with `agent_error`/`user_error`
 * is a failure (code E_TAU2_HARNESS), not a plain miss.
 */
export function sampleOf(
  index: number,
  event: Extract<Tau2Event, { event: "simulation" }>,
): SampleRecord {
  // tau2 ends a simulation with agent_error/user_error when a model call kept failing: not a plain miss.
  const failure =
    event.terminationReason === "agent_error" || event.terminationReason === "user_error"
      ? `tau2 ended the simulation with ${event.terminationReason}`
      : null;
  return {
    sample: index,
    seed: event.seed,
    return: event.reward,
    success: failure === null && event.success,
    turns: event.messages,
    failure,
    failureStage: failure === null ? null : "agent",
    failureCode: failure === null ? null : "E_TAU2_HARNESS",
    metrics: {
      reward: event.reward,
      terminationReason: event.terminationReason,
      rewardBreakdown: event.rewardBreakdown,
      note: event.note,
    },
    transcript: {},
  };
}

/**
 * The sample of a simulation that raised: reward 0, failed with `message` and `code` (a model
 * server's failure, E_POLICY_HTTP / E_POLICY_TIMEOUT, which a resume plays again), by default
 * E_TAU2_HARNESS.
 */
export function failedSample(
  index: number,
  seed: number | null,
  message: string,
  code: string | null = null,
): SampleRecord {
  return {
    sample: index,
    seed: seed ?? 0,
    return: 0,
    success: false,
    turns: 0,
    failure: message,
    failureStage: "agent",
    failureCode: code ?? "E_TAU2_HARNESS",
    metrics: { reward: 0, terminationReason: "exception" },
    transcript: {},
  };
}
