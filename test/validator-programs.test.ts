/**
 * The validator over sandboxed programs: a broken program for every check code, on both sandbox
 * backends, with the exact failures it must produce.
 */
import { describe, expect, it } from "vitest";
import { checkEnv, type CheckCode } from "../src/env/index.js";
import { loadProgram, SANDBOX_BACKENDS } from "../src/sandbox/index.js";
import { makeProgram, stepReturning } from "../src/sandbox/testing/programs.js";

const GOOD = makeProgram();

/** name, program, expected failures, a fragment of the first failing check's message. */
const BROKEN: Array<[string, string, CheckCode[], string]> = [
  [
    "syntax error",
    "class Environment { reset(seed) { return {",
    ["E_COMPILE"],
    "loading the program",
  ],
  ["no Environment class", "class Env {}", ["E_COMPILE"], "Environment"],
  [
    "bad meta",
    makeProgram({
      meta: '{ name: "Echo Test", skill: "", description: "d", maxTurns: 0, tools: [] }',
    }),
    ["E_META"],
    "meta",
  ],
  [
    "reset returns a number as observation",
    makeProgram({ reset: "return { observation: 42, info: {} };" }),
    ["E_RESET", "E_ORACLE"],
    "observation",
  ],
  [
    "reset throws",
    makeProgram({ reset: 'throw new Error("boom in reset");' }),
    ["E_RESET", "E_ORACLE"],
    "boom in reset",
  ],
  ["empty hint", makeProgram({ hint: 'return "";' }), ["E_HINT"], "hint"],
  [
    "reward out of bounds for junk",
    makeProgram({
      step: 'const win = action.answer === "win"; return { observation: "x", reward: win ? 1 : (action.text === "" ? 5 : 0), terminated: win, truncated: false, info: {} };',
    }),
    ["E_STEP"],
    'probe "empty text"',
  ],
  [
    "wrong oracle",
    makeProgram({ solve: 'return { text: "\\\\boxed{lose}" };' }),
    ["E_ORACLE"],
    "following solve() gave return 0",
  ],
  [
    "state leaks across resets",
    makeProgram({
      members: "static resets = 0;",
      reset:
        'Environment.resets++; return { observation: "episode " + Environment.resets, info: {} };',
    }),
    ["E_NONDETERMINISTIC"],
    "the first observation differs",
  ],
  [
    "every action wins",
    makeProgram({
      step: 'return { observation: "won", reward: 1, terminated: true, truncated: false, info: {} };',
    }),
    ["E_TRIVIAL"],
    'the trivial policy "empty answers" succeeds on 5 of 5 seeds',
  ],
  [
    "step loops forever on empty text",
    makeProgram({
      step: 'if (action.text === "") { while (true) {} } const win = action.answer === "win"; return { observation: "x", reward: win ? 1 : 0, terminated: win, truncated: false, info: {} };',
    }),
    ["E_STEP", "E_TIMEOUT"],
    'probe "empty text"',
  ],
  [
    "hint allocates without bound",
    makeProgram({ hint: "const a = []; while (true) a.push(new Array(1e5).fill(1));" }),
    ["E_HINT", "E_MEMORY"],
    "hint",
  ],
  [
    "huge observation",
    makeProgram({ step: stepReturning('"x".repeat(2e6)') }),
    ["E_STEP", "E_OUTPUT_SIZE"],
    'probe "empty text"',
  ],
];

describe.each(SANDBOX_BACKENDS)("checkEnv over %s programs", (backend) => {
  const open = (source: string) => () =>
    loadProgram(source, { backend, limits: { memoryBytes: 16 * 1024 * 1024 } });

  it("accepts the good test program", async () => {
    const report = await checkEnv(open(GOOD));
    expect(report.failures).toEqual([]);
  });

  it.each(BROKEN)("%s", async (_name, source, failures, fragment) => {
    const report = await checkEnv(open(source));
    expect(report.failures).toEqual(failures);
    expect(report.ok).toBe(false);
    const first = report.checks.find((c) => !c.ok);
    expect(first?.message).toContain(fragment);
  });
});
