/**
 * Rules of the non-tool game programs in the library, played through the real sandbox: what
 * counts as a valid move, what a mistake costs, and that partial credit never reaches success.
 * (The generic contract for every program lives in library.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { isSuccess, makeAction, type Env, type JsonObject, type StepResult } from "../env/index.js";
import { libraryOpener } from "./testing/open-library.js";

const open = libraryOpener();

function say(env: Env, text: string): Promise<StepResult> {
  return env.step(makeAction(text));
}

/** Plays the oracle to the end and returns the rewards by turn. */
async function playOracle(env: Env): Promise<number[]> {
  const rewardsByTurn: number[] = [];
  for (let turn = 0; turn < env.meta.maxTurns; turn++) {
    const result = await env.step(await env.solve());
    rewardsByTurn.push(result.reward);
    if (result.terminated) break;
  }
  return rewardsByTurn;
}

describe("fog-maze", () => {
  it("walks the hinted route to the exit; walls and junk cost nothing but a turn", async () => {
    const env = await open("fog-maze");
    const reset = await env.reset(0);
    const route = /takes (\d+) moves: (.*)\.$/.exec(await env.hint());
    expect(route).not.toBeNull();
    const moves = (route?.[2] ?? "").split(", ");
    expect(moves).toHaveLength(Number(route?.[1]));
    expect(moves.length).toBe(reset.info.shortest);
    expect(moves.length).toBeGreaterThanOrEqual(15);
    expect((await say(env, "\\boxed{sideways}")).info).toEqual({ valid: false });
    const rewards: number[] = [];
    for (const move of moves) rewards.push((await say(env, `\\boxed{${move}}`)).reward);
    expect(rewards.slice(0, -1).every((r) => r === 0)).toBe(true);
    expect(rewards.at(-1)).toBe(1);
  });

  it("reports a wall without moving", async () => {
    const env = await open("fog-maze");
    const first = (await env.reset(1)).observation.split("\n").at(-1) ?? "";
    const open4 = /Open passages: (.*)\./.exec(first)?.[1]?.split(", ") ?? [];
    const blocked = ["north", "east", "south", "west"].find((d) => !open4.includes(d));
    expect(blocked).toBeDefined();
    const result = await say(env, `\\boxed{${blocked}}`);
    expect(result.info).toEqual({ bumped: true });
    expect(result.observation.split("\n").at(-1)).toBe(first);
  });
});

describe("card-pairs", () => {
  it("pays 1/15 per pair, refuses repeated or removed cards, and needs all 15 pairs", async () => {
    const env = await open("card-pairs");
    await env.reset(0);
    const pairs = [...(await env.hint()).matchAll(/(\d+)&(\d+)/g)].map((m) => [m[1], m[2]]);
    expect(pairs).toHaveLength(15);
    expect((await say(env, "\\boxed{3 3}")).info).toEqual({ valid: false });
    const [a, b] = pairs[0] as [string, string];
    expect((await say(env, `\\boxed{${a} ${b}}`)).reward).toBeCloseTo(1 / 15, 12);
    const again = await say(env, `\\boxed{${a} ${(pairs[1] as string[])[0]}}`);
    expect(again.observation).toContain(`Card ${a} was already removed.`);
    const rewards = await playOracle(env);
    expect(rewards).toHaveLength(14);
    expect(isSuccess(rewards.reduce((x, y) => x + y, 1 / 15))).toBe(true);
  });
});

describe("lantern-grid", () => {
  it("a second press of the same lantern restores the board", async () => {
    const env = await open("lantern-grid");
    const reset = await env.reset(2);
    const board = reset.observation.split("\n").slice(1).join("\n");
    await say(env, "\\boxed{D4}");
    const back = await say(env, "\\boxed{d 4}");
    expect(back.observation).toBe(`You press D4.\n${board}`);
    const cells = (await env.hint()).split(": ")[1]?.replace(".", "").split(", ") ?? [];
    expect(cells).toHaveLength(reset.info.minPresses as number);
    expect((await say(env, "\\boxed{G7}")).info).toEqual({ valid: false });
  });
});

describe("single-answer puzzles", () => {
  it("grid-transform pays 0.4 for a second-attempt fix, which is not success", async () => {
    const env = await open("grid-transform");
    await env.reset(3);
    const right = (await env.solve()).text;
    const wrong = await say(env, "\\boxed{111/111/111}");
    expect(wrong.terminated).toBe(false);
    expect(wrong.observation).toMatch(/^Incorrect: .* 1 attempt left\.$/);
    const fixed = await env.step(makeAction(right));
    expect([fixed.reward, fixed.terminated, isSuccess(fixed.reward)]).toEqual([0.4, true, false]);
  });

  it("word-problems ignores answers without a number and ends after two wrong ones", async () => {
    const env = await open("word-problems");
    await env.reset(5);
    expect((await say(env, "\\boxed{about a dozen}")).info).toEqual({ valid: false });
    const answer = Number(/\\boxed\{(.*)\}/.exec((await env.solve()).text)?.[1]);
    expect((await say(env, `\\boxed{${answer + 1}}`)).terminated).toBe(false);
    const last = await say(env, `\\boxed{${answer + 2}}`);
    expect([last.reward, last.terminated]).toEqual([0, true]);
  });

  it("knights-and-knaves reads names in any order and case; one wrong answer ends it", async () => {
    const env = await open("knights-and-knaves");
    const knights = (await env.reset(4)).info.knights as string[];
    const win = await say(env, `\\boxed{${[...knights].reverse().join(" and ").toLowerCase()}}`);
    expect([win.reward, win.terminated]).toEqual([1, true]);
    await env.reset(4);
    expect((await say(env, "\\boxed{nobody at all}")).reward).toBe(0);
  });

  it("cargo-loading gives capped partial credit after three non-optimal loads", async () => {
    const env = await open("cargo-loading");
    expect((await env.reset(6)).info.best).toBe(185);
    expect((await say(env, "\\boxed{1,1}")).info).toEqual({ valid: false });
    const heavy = await say(env, "\\boxed{1,2,3,4,5,6,7,8,9}");
    expect(heavy.observation).toBe(
      "Load 1,2,3,4,5,6,7,8,9: 123 kg, 37 m3, worth 301. It exceeds the truck's limits. 2 proposals left.",
    );
    expect((await say(env, "\\boxed{1}")).reward).toBe(0);
    // 53 kg, 6 m3, worth 160 of the best 185: half of 160/185, rounded to thousandths.
    const last = await say(env, "\\boxed{3, 5, 6, 7}");
    expect([last.reward, last.terminated, last.info.value]).toEqual([0.432, true, 160]);
  });
});

describe("multi-round games", () => {
  it("pebble-duel refuses illegal takes, and a slip hands the opponent the win", async () => {
    const env = await open("pebble-duel");
    const info = (await env.reset(7)).info as JsonObject;
    const limit = info.limit as number;
    expect((await say(env, `\\boxed{1 ${limit + 1}}`)).info).toEqual({ valid: false });
    expect((await say(env, "\\boxed{4 1}")).info).toEqual({ valid: false });
    const winning = /take (\d+) from pile (\d+)/.exec(await env.hint());
    // Taking one pebble more or less than the winning move leaves a non-zero nim-sum.
    const take = Number(winning?.[1]) === 1 ? 2 : Number(winning?.[1]) - 1;
    await say(env, `\\boxed{${winning?.[2]} ${take}}`);
    expect(await env.hint()).toContain("lost against perfect play");
    const rewards = await playOracle(env);
    expect(rewards.at(-1)).toBe(0);
  });

  it("switchboard allows twelve experiments and scores the report per lamp", async () => {
    const env = await open("switchboard");
    const truth = (await env.reset(8)).info.truth as string;
    for (let i = 0; i < 12; i++)
      expect((await say(env, "\\boxed{10110}")).observation).toMatch(
        /^Experiment \d+ \(10110\): A (on|off), B (on|off), C (on|off)\./,
      );
    expect((await say(env, "\\boxed{01001}")).observation).toMatch(/^No experiments left/);
    expect((await say(env, "\\boxed{A:1}")).info).toEqual({ valid: false });
    const report = await say(env, `\\boxed{${truth}}`);
    expect([report.reward, report.terminated]).toEqual([1, true]);
    await env.reset(8);
    const oneWrong = truth.replace(/^A:[^;]*/, "A:1,2,3,4,5");
    expect((await say(env, `\\boxed{${oneWrong}}`)).reward).toBe(0.4);
  });

  it("story-tracker pays a third per question and success needs all three", async () => {
    const env = await open("story-tracker");
    const answers = (await env.reset(9)).info.answers as string[];
    expect(answers).toHaveLength(3);
    expect((await say(env, "")).info).toEqual({ valid: false });
    const rewards = await playOracle(env);
    expect(rewards).toEqual([1 / 3, 1 / 3, 1 / 3]);
    await env.reset(9);
    const wrongFirst = await say(env, "\\boxed{somewhere}");
    expect(wrongFirst.reward).toBe(0);
  });

  it("counterfeit-coin tips the scale toward a heavy fake and refuses unequal pans", async () => {
    const env = await open("counterfeit-coin");
    let seed = 0;
    let info = (await env.reset(seed)).info;
    while (info.heavy !== true) info = (await env.reset(++seed)).info;
    const fake = info.fake as number;
    const other = fake === 1 ? 2 : 1;
    expect((await say(env, `\\boxed{${fake} vs ${other},3}`)).info).toEqual({ valid: false });
    expect((await say(env, `\\boxed{${fake} vs ${other}}`)).observation).toBe(
      `Weighing 1: ${fake} vs ${other}: the LEFT pan is heavier. 2 weighings left.`,
    );
    expect((await say(env, `\\boxed{${other} vs ${fake}}`)).observation).toContain(
      "the RIGHT pan is heavier",
    );
  });

  it("sequence-sleuth reveals each asked term and asks term 12 last", async () => {
    const env = await open("sequence-sleuth");
    const first = await env.reset(10);
    expect(first.observation).toMatch(/Question 1: what is term 8\?$/);
    const wrong = await say(env, "\\boxed{-999999}");
    expect(wrong.observation).toMatch(
      /^Not correct: term 8 is -?\d+\. Known so far: (-?\d+, ){7}-?\d+\.\nQuestion 2: what is term 9\?$/,
    );
    const rest = await playOracle(env);
    expect(rest).toEqual([1 / 3, 1 / 3]);
  });
});
