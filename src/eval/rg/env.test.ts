import { describe, expect, it } from "vitest";
import { makeAction } from "../../env/index.js";
import { isSpadeError } from "../../errors.js";
import { RgEnv, rgOracleText } from "./env.js";
import type { RgDataset } from "./split.js";
import { fakeRgService } from "./testing/fake-service.js";

const DATASET: RgDataset = {
  name: "basic_arithmetic",
  config: { max_terms: 10 },
  category: "math",
};

describe("RgEnv (with a scripted worker)", () => {
  it("shows episode e's problem, wins only on a full score, and ends after one step", async () => {
    const service = fakeRgService({
      "<answer>A3</answer>": 1,
      "<answer>close</answer>": 0.999,
      "<answer>almost</answer>": 1 - 1e-10,
    });
    const env = new RgEnv(DATASET, service);
    expect(env.meta).toMatchObject({ name: "rg-basic-arithmetic-hard", maxTurns: 2, tools: [] });
    const reset = await env.reset(3);
    expect(reset.observation).toContain("\nProblem: Q3\n");
    expect(reset.info).toEqual({
      dataset: "basic_arithmetic",
      category: "math",
      episode: 3,
      index: 3,
    });
    expect(await env.hint()).toBe("The answer is: A3");
    expect((await env.solve()).text).toBe("<answer>A3</answer>");
    const win = await env.step(await env.solve());
    expect([win.reward, win.terminated, win.info.score, win.info.win]).toEqual([1, true, 1, true]);
    const again = await env.step(makeAction("x")).catch((e: unknown) => e);
    expect(isSpadeError(again, "E_ENV_CONTRACT")).toBe(true);

    await env.reset(3);
    expect((await env.step(makeAction("<answer>close</answer>"))).reward).toBe(0);
    await env.reset(3);
    expect((await env.step(makeAction("<answer>almost</answer>"))).reward).toBe(1);
    expect(service.calls.filter((c) => c.startsWith("score"))).toEqual([
      "score basic_arithmetic 3",
      "score basic_arithmetic 3",
      "score basic_arithmetic 3",
    ]);
  });

  it("refuses step before reset and use after close with E_ENV_CONTRACT", async () => {
    const env = new RgEnv(DATASET, fakeRgService({}));
    expect(
      isSpadeError(await env.step(makeAction("a")).catch((e: unknown) => e), "E_ENV_CONTRACT"),
    ).toBe(true);
    expect(isSpadeError(await env.solve().catch((e: unknown) => e), "E_ENV_CONTRACT")).toBe(true);
    await env.close();
    expect(isSpadeError(await env.reset(0).catch((e: unknown) => e), "E_ENV_CONTRACT")).toBe(true);
  });

  it("writes the oracle's answer in <answer> tags", () => {
    expect(rgOracleText('{"0": 1}')).toBe('<answer>{"0": 1}</answer>');
  });
});
