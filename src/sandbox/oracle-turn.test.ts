import { describe, expect, it } from "vitest";
import { ORACLE_STEP_ARG_SOURCE } from "./oracle-turn.js";
import { REPLY_TAGS } from "./prelude.js";
import { parseGuestJson, toOracleAction } from "./shapes.js";

/** The runners' `oracleStepArg`, evaluated from its source as the runners do. */
const oracleStepArg = new Function(`${ORACLE_STEP_ARG_SOURCE}\nreturn oracleStepArg;`)() as (
  reply: unknown,
  maxChars: number,
) => string | null;

describe("oracleStepArg (the runners' side of an oracle turn)", () => {
  it.each([
    "\\boxed{42}",
    "first \\boxed{1} then \\boxed{\\frac{1}{2}} and \\boxed{open",
    "<answer> 7 </answer>",
    "no answer at all",
    "",
    'Zürich \u2028 "q" \\',
  ])("makes the host's action of {text: %j}", (text) => {
    const json = JSON.stringify({ text });
    expect(oracleStepArg(`${REPLY_TAGS.ok}${json}`, 1024)).toBe(
      JSON.stringify(toOracleAction(parseGuestJson(json, "solve()"))),
    );
  });

  it.each([
    ["tool calls", `${REPLY_TAGS.ok}{"text":"a","toolCalls":[]}`],
    ["no text", `${REPLY_TAGS.ok}{}`],
    ["text not a string", `${REPLY_TAGS.ok}{"text":5}`],
    ["an array", `${REPLY_TAGS.ok}[]`],
    ["not JSON", `${REPLY_TAGS.ok}{`],
    ["a thrown error", `${REPLY_TAGS.threw}Error: boom`],
    ["over the output limit", `${REPLY_TAGS.ok}{"text":"${"é".repeat(10)}"}`],
    ["not a string", 5],
  ])("leaves %s to the host (null)", (_label, reply) => {
    expect(oracleStepArg(reply, 20)).toBe(null);
  });
});
