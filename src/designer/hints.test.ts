import { describe, expect, it } from "vitest";
import { makeTestEnv } from "../env/testing/test-env.js";
import { MAX_HINT_CHARS } from "../env/index.js";
import { SpadeError } from "../errors.js";
import { codeOf, timed } from "../../test/assert.js";
import { buildHintPrompt, parseHintAnswer, withFixedHint, writeModelHint } from "./hints.js";
import type { DesignerMessage } from "./types.js";

const TOOL = {
  type: "function" as const,
  function: { name: "lookup", description: "", parameters: { type: "object" } },
};

describe("buildHintPrompt", () => {
  it("asks for a game hint, or a value-free plan when the program has tools", () => {
    const game = buildHintPrompt("class Environment {}\n\n", { tools: [] });
    expect(game[0]?.content).toContain("replies with its actions in \\boxed{...}");
    expect(game[1]).toEqual({
      role: "user",
      content: "The environment's program:\n```javascript\nclass Environment {}\n```",
    });
    const tools = buildHintPrompt("class Environment {}", { tools: [TOOL] });
    expect(tools[0]?.content).toContain("use placeholders such as <order_id>");
    expect(tools[0]?.content).not.toBe(game[0]?.content);
  });
});

describe("parseHintAnswer", () => {
  it.each([
    [
      "The code has distinct digits; use hits to fix positions.",
      "The code has distinct digits; use hits to fix positions.",
    ],
    [
      "<think>let me read the code</think>\nSplit the coins into three groups.",
      "Split the coins into three groups.",
    ],
    ['{"hint": "Weigh three against three."}', "Weigh three against three."],
    ['```json\n{"hint": "Weigh three against three."}\n```', "Weigh three against three."],
    ["```\nTrack which lamps each switch flips.\n```", "Track which lamps each switch flips."],
    ["Hint: Work backwards from the exit.", "Work backwards from the exit."],
    ["**Hint:** Work backwards.", "Work backwards."],
    ["**Hint**: Work backwards.", "Work backwards."],
    ['"Count the pebbles modulo 4."', "Count the pebbles modulo 4."],
    ["Line one.\n\n  Line   two.", "Line one. Line two."],
    ["{not json} but fine", "{not json} but fine"],
  ])("%j -> %j", (answer, hint) => {
    expect(parseHintAnswer(answer)).toEqual({ ok: true, hint, truncated: false });
  });

  it("fails with E_HINT_EMPTY when nothing is left", () => {
    for (const answer of ["", "   ", "<think>only thinking</think>", '{"hint": ""}', "Hint:"]) {
      expect(parseHintAnswer(answer)).toEqual({
        ok: false,
        code: "E_HINT_EMPTY",
        message: "the hint writer's answer holds no hint",
      });
    }
  });

  it("cuts a long hint at the last sentence that fits", () => {
    const sentence = "This sentence is exactly fifty characters long ok. ";
    const parsed = parseHintAnswer(sentence.repeat(60));
    expect(parsed).toEqual({ ok: true, hint: sentence.repeat(39).trim(), truncated: true });
    const words = parseHintAnswer("word ".repeat(600));
    expect(words.ok && words.hint.length).toBe(1999);
    expect(words.ok && words.hint.length <= MAX_HINT_CHARS && words.truncated).toBe(true);
  });
});

describe("writeModelHint", () => {
  it("records the conversation, the answer and the hint", async () => {
    const seen: DesignerMessage[][] = [];
    const record = await writeModelHint("class Environment {}", { tools: [] }, async (messages) => {
      seen.push([...messages]);
      return "Hint: Start with the corners.";
    });
    expect(seen).toHaveLength(1);
    expect(record).toEqual({
      messages: seen[0],
      answer: "Hint: Start with the corners.",
      hint: "Start with the corners.",
      failureCode: null,
      failure: null,
      attempts: 1,
    });
  });

  it("calls again after an empty answer or a failed call, up to 3 calls (the reference's max_retries)", async () => {
    const attemptsSeen: number[] = [];
    const script = [
      () => "  ",
      () => Promise.reject(new SpadeError("E_POLICY_HTTP", "502")),
      () => "Count the vowels.",
    ];
    const record = await writeModelHint("x", { tools: [] }, async (_m, attempt) => {
      attemptsSeen.push(attempt);
      return (script[attempt] as () => string | Promise<string>)();
    });
    expect(attemptsSeen).toEqual([0, 1, 2]);
    expect(record).toMatchObject({ hint: "Count the vowels.", failureCode: null, attempts: 3 });
    let calls = 0;
    const once = await writeModelHint("x", { tools: [] }, async () => (calls++, "  "), {
      attempts: 1,
    });
    expect([calls, once.attempts, once.failureCode]).toEqual([1, 1, "E_HINT_EMPTY"]);
    await expect(
      writeModelHint("x", { tools: [] }, async () => "h", { attempts: 0 }),
    ).rejects.toMatchObject({ code: "E_CONFIG" });
  });

  it("records the last empty answer or failed call as data after 3 calls; cancellation and bugs propagate at once", async () => {
    let calls = 0;
    expect(await writeModelHint("x", { tools: [] }, async () => (calls++, "  "))).toMatchObject({
      answer: "  ",
      hint: null,
      failureCode: "E_HINT_EMPTY",
      attempts: 3,
    });
    expect(calls).toBe(3);
    const failed = await writeModelHint("x", { tools: [] }, async () => {
      throw new SpadeError("E_POLICY_TIMEOUT", "no answer in 120 s");
    });
    expect(failed).toMatchObject({
      answer: null,
      hint: null,
      failureCode: "E_POLICY_TIMEOUT",
      failure: "E_POLICY_TIMEOUT: no answer in 120 s",
      attempts: 3,
    });
    await expect(
      writeModelHint("x", { tools: [] }, async () =>
        Promise.reject(new SpadeError("E_CANCELLED", "stop")),
      ),
    ).rejects.toMatchObject({ code: "E_CANCELLED" });
    await expect(
      writeModelHint("x", { tools: [] }, async () => Promise.reject(new TypeError("bug"))),
    ).rejects.toThrow("bug");
  });
});

describe("withFixedHint", () => {
  it("answers hint() with the fixed text and delegates everything else", async () => {
    const env = makeTestEnv();
    const hinted = withFixedHint(env, "The number is even.");
    expect(hinted.meta).toBe(env.meta);
    const own = await env.reset(4).then(() => env.hint());
    expect(own).not.toBe("The number is even.");
    expect(await hinted.reset(4)).toEqual(await env.reset(4));
    expect(await hinted.hint()).toBe("The number is even.");
    expect(await hinted.solve()).toEqual(await env.solve());
  });

  it("rejects an empty or too long hint with E_CONFIG", () => {
    for (const bad of ["", "  ", "x".repeat(MAX_HINT_CHARS + 1)]) {
      expect(
        codeOf(() => withFixedHint(makeTestEnv(), bad)),
        JSON.stringify(bad.slice(0, 5)),
      ).toBe("E_CONFIG");
    }
  });
});

// Linear-time regressions; the bounds are generous, the regexes replaced took 20-30 s here.
describe("parseHintAnswer on adversarial answers", () => {
  it("reads an unclosed fence over 256K blank lines in linear time", () => {
    const parsed = timed(() => parseHintAnswer(`\`\`\`${"\n".repeat(262_144)}Try corners.`));
    expect(parsed.value).toEqual({ ok: true, hint: "``` Try corners.", truncated: false });
    expect(parsed.ms).toBeLessThan(2000);
  });

  it("reads a label followed by 128K spaces and no colon in linear time", () => {
    const parsed = timed(() => parseHintAnswer(`hint${" ".repeat(131_072)}x`));
    expect(parsed.value).toEqual({ ok: true, hint: "hint x", truncated: false });
    expect(parsed.ms).toBeLessThan(2000);
  });
});
