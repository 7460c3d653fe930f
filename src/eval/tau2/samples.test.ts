// A tau2 trial as a sample record: scored simulations, harness-ended ones, and ones that raised.
import { describe, expect, it } from "vitest";
import { failedSample, sampleOf } from "./samples.js";

const simulation = (terminationReason: string, success: boolean) => ({
  event: "simulation" as const,
  domain: "retail",
  taskId: "7",
  seed: 301,
  reward: success ? 1 : 0,
  success,
  terminationReason,
  messages: 12,
  rewardBreakdown: { DB: 1 },
  note: null,
});

describe("sampleOf", () => {
  it("keeps tau2's reward, success and metrics for a simulation that ended normally", () => {
    expect(sampleOf(2, simulation("user_stop", true))).toEqual({
      sample: 2,
      seed: 301,
      return: 1,
      success: true,
      turns: 12,
      failure: null,
      failureStage: null,
      failureCode: null,
      metrics: {
        reward: 1,
        terminationReason: "user_stop",
        rewardBreakdown: { DB: 1 },
        note: null,
      },
      transcript: {},
    });
  });

  it("makes agent_error and user_error coded failures, never successes", () => {
    for (const reason of ["agent_error", "user_error"]) {
      const sample = sampleOf(0, simulation(reason, true));
      expect(sample.success).toBe(false);
      expect(sample.failure).toBe(`tau2 ended the simulation with ${reason}`);
      expect(sample.failureStage).toBe("agent");
      expect(sample.failureCode).toBe("E_TAU2_HARNESS");
    }
  });
});

describe("failedSample", () => {
  it("is a zero-reward E_TAU2_HARNESS failure carrying the message; a missing seed is 0", () => {
    expect(failedSample(1, null, "boom")).toEqual({
      sample: 1,
      seed: 0,
      return: 0,
      success: false,
      turns: 0,
      failure: "boom",
      failureStage: "agent",
      failureCode: "E_TAU2_HARNESS",
      metrics: { reward: 0, terminationReason: "exception" },
      transcript: {},
    });
    expect(failedSample(0, 305, "x").seed).toBe(305);
  });

  it("carries the code of a model server's failure when the driver gives one", () => {
    expect(failedSample(0, 1, "Timeout: no answer", "E_POLICY_TIMEOUT")).toMatchObject({
      failure: "Timeout: no answer",
      failureCode: "E_POLICY_TIMEOUT",
    });
    expect(failedSample(0, 1, "x", null).failureCode).toBe("E_TAU2_HARNESS");
  });
});
