import { describe, expect, it } from "vitest";
import { SpadeError } from "../errors.js";
import { makeAction } from "./action.js";
import { oracleTurn } from "./oracle.js";
import { makeTestEnv } from "./testing/test-env.js";
import type { Env } from "./types.js";

const won = { observation: "Correct!", reward: 1, terminated: true, truncated: false, info: {} };

describe("oracleTurn", () => {
  it("plays solve() then step() on an env without solveAndStep", async () => {
    const env = makeTestEnv();
    await env.reset(0);
    // Seed 0's secret is 10 + (0 * 37 + 11) % 90 = 21.
    expect(await oracleTurn(env)).toEqual({ action: makeAction("\\boxed{21}"), result: won });
  });

  it("answers solveAndStep's turn, and rejects with the error of a step that failed", async () => {
    const action = makeAction("\\boxed{1}");
    const failed = new SpadeError("E_SANDBOX_THROW", "step() threw: Error: no");
    let turns = 0;
    const env: Env = {
      ...makeTestEnv(),
      solve: () => Promise.reject(new Error("solve() is not called alone")),
      solveAndStep: async () =>
        turns++ === 0 ? { action, result: won } : { action, stepError: failed },
    };
    expect(await oracleTurn(env)).toEqual({ action, result: won });
    await expect(oracleTurn(env)).rejects.toBe(failed);
    expect(turns).toBe(2);
  });
});
