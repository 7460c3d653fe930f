/** The live progress of a step's designing and playing (`LoopDeps.onWork`), counted on the scripted self-play scenario, and its text. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioConfig, useScenarioServer } from "../../test/e2e/selfplay-scenario.js";
import { formatWork, type StepWork } from "./progress.js";
import { runSelfPlay } from "./run.js";

const scenario = useScenarioServer("spade-work-progress-");

describe("onWork on the scripted scenario", () => {
  it("counts every attempt, valid design and episode of steps 0 and 1, with the stage's seconds", async () => {
    const config = scenarioConfig({ steps: 2, train: false });
    const work: StepWork[] = [];
    const summaries: string[] = [];
    // A clock that moves one second per reading: each event's `seconds` is its position in the stage.
    let ms = 0;
    await runSelfPlay(
      join(scenario.dir, "run"),
      config,
      {
        policy: scenario.policy(),
        trainer: null,
        progress: (line) => summaries.push(line),
        onWork: (w) => work.push(w),
        now: () => (ms += 1000),
      },
      { resume: false },
    );

    const design = work.filter((w) => w.stage === "design");
    const play0 = work.filter((w) => w.stage === "play" && w.step === 0);
    const play1 = work.filter((w) => w.stage === "play" && w.step === 1);
    expect(design.every((w) => w.step === 0)).toBe(true); // step 1 designs nothing (R = 2)
    expect(work).toEqual([...design, ...play0, ...play1]); // stages in order
    // Step 0: 3 slots x 2 attempts; slot 1 is valid at its first attempt (total 5); slots 0 and 1 valid.
    expect(design[0]).toEqual({
      stage: "design",
      step: 0,
      attempts: 0,
      attemptsTotal: 6,
      valid: 0,
      seconds: 1,
    });
    expect(design.map((w) => (w.stage === "design" ? w.attempts : -1))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(design.map((w) => w.seconds)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(design.at(-1)).toEqual({
      stage: "design",
      step: 0,
      attempts: 5,
      attemptsTotal: 5,
      valid: 2,
      seconds: 6,
    });
    for (const w of design)
      if (w.stage === "design") expect(w.attempts).toBeLessThanOrEqual(w.attemptsTotal);
    // Step 0 plays A and B 2 + 2 hinted times each; step 1 plays them 2 times each, unhinted.
    expect(play0).toEqual(
      Array.from({ length: 9 }, (_, i) => ({
        stage: "play",
        step: 0,
        episodes: i,
        episodesTotal: 8,
        seconds: i + 1,
      })),
    );
    expect(play1).toEqual(
      Array.from({ length: 5 }, (_, i) => ({
        stage: "play",
        step: 1,
        episodes: i,
        episodesTotal: 4,
        seconds: i + 1,
      })),
    );
    expect(formatWork(design.at(-1) as StepWork, 2)).toBe(
      "step 1/2 designing: attempts 5/5, 2 valid, 50.0 designs/min",
    );
    expect(formatWork(play0.at(-1) as StepWork, 2)).toBe(
      "step 1/2 playing: episodes 8/8, 0.9 episodes/s",
    );
    // The per-step summary is unchanged: one line per step.
    expect(summaries).toHaveLength(2);
    expect(summaries[0]).toMatch(/^step 1\/2 \| designs 2\/3 valid \| pool 2 \| /);
  }, 60_000);
});

describe("formatWork", () => {
  it("shows no rate before any time has passed", () => {
    expect(
      formatWork(
        { stage: "design", step: 3, attempts: 0, attemptsTotal: 24, valid: 0, seconds: 0 },
        10,
      ),
    ).toBe("step 4/10 designing: attempts 0/24, 0 valid, - designs/min");
    expect(
      formatWork({ stage: "play", step: 0, episodes: 0, episodesTotal: 96, seconds: 0 }, 1),
    ).toBe("step 1/1 playing: episodes 0/96, - episodes/s");
    expect(
      formatWork({ stage: "play", step: 0, episodes: 30, episodesTotal: 96, seconds: 12 }, 1),
    ).toBe("step 1/1 playing: episodes 30/96, 2.5 episodes/s");
  });
});
