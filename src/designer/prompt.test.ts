import { describe, expect, it } from "vitest";
import { CHECK_CODES, type CheckReport } from "../env/index.js";
import { codeOf } from "../../test/assert.js";
import { buildDesignerPrompt, pickExamples, type DesignerPromptInput } from "./prompt.js";
import { GAME_SYSTEM_PROMPT, TOOL_USE_SYSTEM_PROMPT } from "./prompt-text.js";
import { CHECK_ADVICE, renderRepairMessage } from "./repair.js";
import { getSkill } from "./skills.js";
import type { ExampleProgram, MemoryReference } from "./types.js";

const doc = {
  docId: "corpus:17",
  text: "  Kirchhoff's current law: the currents into a node sum to zero.\n",
};
const ref = (
  name: string,
  winRate: number,
  regret: number,
  source: string | null = null,
): MemoryReference => ({
  name,
  skill: "Causal Inference",
  description: `The ${name} puzzle.`,
  winRate,
  regret,
  source,
});

function input(overrides: Partial<DesignerPromptInput> = {}): DesignerPromptInput {
  return {
    skill: getSkill("Causal Inference"),
    document: doc,
    references: [
      ref("fuse-box", 0.45, 0.3125, "class Environment {}"),
      ref("long-one", 0.5, 0.2, "x".repeat(5000)),
    ],
    avoid: ref("too-easy", 0.96, 0.01),
    examples: [
      {
        name: "switchboard",
        skill: "Causal Inference",
        source: "class Environment { /* example */ }",
      },
    ],
    ...overrides,
  };
}

describe("buildDesignerPrompt", () => {
  it("is a pure function of its inputs", () => {
    expect(buildDesignerPrompt(input())).toEqual(buildDesignerPrompt(input()));
  });

  it("builds a game prompt: skill, document, contract, references, avoid, examples, answer format, in that order", () => {
    const [system, user] = buildDesignerPrompt(input());
    expect(system).toEqual({ role: "system", content: GAME_SYSTEM_PROMPT });
    expect(user?.role).toBe("user");
    const text = user?.content ?? "";
    const marks = [
      "Write a game environment that trains the skill **Causal Inference**: Working out which causes produce which effects",
      '<document id="corpus:17">\nKirchhoff\'s current law: the currents into a node sum to zero.\n</document>',
      "## The contract",
      'skill: "Causal Inference",',
      "## Design guidance",
      "## Earlier environments: write something different",
      "## One to avoid",
      "## Worked examples from the library",
      "### switchboard (Causal Inference)\n```javascript\nclass Environment { /* example */ }\n```",
      "## Your answer",
    ];
    const positions = marks.map((m) => text.indexOf(m));
    expect(
      positions.every((p) => p >= 0),
      JSON.stringify(positions),
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("quotes the sandbox limits and the validator's thresholds", () => {
    const text = buildDesignerPrompt(input())[1]?.content ?? "";
    expect(text).toContain(
      "reset() must finish within 500 ms of CPU; step(), hint() and solve() within 200 ms each; memory is capped at 64 MiB; the program at 256 KiB; each returned value at 1024 KiB of JSON.",
    );
    expect(text).toContain("an episode succeeds when its return is at least 0.99");
    expect(text).toContain("at most 2000 characters");
    expect(text).toContain("an integer from 1 to 200");
    const custom =
      buildDesignerPrompt(
        input({
          limits: {
            memoryBytes: 32 * 1024 * 1024,
            compileTimeoutMs: 1000,
            resetTimeoutMs: 900,
            stepTimeoutMs: 50,
            hintTimeoutMs: 50,
            solveTimeoutMs: 50,
            outputBytes: 65536,
            sourceBytes: 131072,
            metaBytes: 65536,
          },
        }),
      )[1]?.content ?? "";
    expect(custom).toContain(
      "within 900 ms of CPU; step(), hint() and solve() within 50 ms each; memory is capped at 32 MiB; the program at 128 KiB; each returned value at 64 KiB",
    );
  });

  it("shows references with win rate and regret, and their code only when short", () => {
    const text = buildDesignerPrompt(input())[1]?.content ?? "";
    expect(text).toContain(
      '1. "fuse-box" (Causal Inference): The fuse-box puzzle. Agent win rate 45%, regret 0.31.\n```javascript\nclass Environment {}\n```',
    );
    expect(text).toContain(
      '2. "long-one" (Causal Inference): The long-one puzzle. Agent win rate 50%, regret 0.20.\n\n## One to avoid',
    );
    const none = buildDesignerPrompt(input({ referenceCodeMaxChars: 0 }))[1]?.content ?? "";
    expect(none).not.toContain("class Environment {}\n```");
  });

  it("says why the environment to avoid is avoided", () => {
    const say = (winRate: number) =>
      buildDesignerPrompt(input({ avoid: ref("x", winRate, 0) }))[1]?.content ?? "";
    expect(say(0.96)).toContain(
      '## One to avoid\n"x" (Causal Inference): The x puzzle. Agent win rate 96%, regret 0.00. The agent already wins almost every play',
    );
    expect(say(0.04)).toContain("The agent almost never wins it");
    expect(say(0.5)).toContain("It did not train the agent well.");
  });

  it("leaves out empty sections and says when there is no document", () => {
    const text =
      buildDesignerPrompt(input({ document: null, references: [], avoid: null, examples: [] }))[1]
        ?.content ?? "";
    expect(text).toContain("## Grounding\nNo document this time: choose the setting yourself.");
    for (const heading of ["## Earlier environments", "## One to avoid", "## Worked examples"])
      expect(text).not.toContain(heading);
  });

  it("builds the tool-use variant with the task type and a nested tool schema", () => {
    const [system, user] = buildDesignerPrompt(
      input({ skill: getSkill("Data Retrieval"), taskType: "missing-parameter" }),
    );
    expect(system?.content).toBe(TOOL_USE_SYSTEM_PROMPT);
    const text = user?.content ?? "";
    expect(text).toContain("Write a tool-use environment that trains the skill **Data Retrieval**");
    expect(text).toContain(
      "Task type: **missing-parameter**. At least one request leaves out a value",
    );
    expect(text).toContain(
      "action.toolCalls: [{ id, name, arguments }], arguments already parsed (nested objects and arrays kept).",
    );
    expect(text).toContain("At least one parameter is a nested object or an array");
    expect(text).toContain("Build the simulated system in the domain this document belongs to");
    expect(buildDesignerPrompt(input({ skill: getSkill("Data Retrieval") }))[1]?.content).toContain(
      "Task type: **execute**.",
    );
  });

  it("rejects a negative reference code size with E_CONFIG", () => {
    expect(codeOf(() => buildDesignerPrompt(input({ referenceCodeMaxChars: -1 })))).toBe(
      "E_CONFIG",
    );
  });
});

describe("pickExamples", () => {
  const ex = (name: string, skill: string, length: number): ExampleProgram => ({
    name,
    skill,
    source: "x".repeat(length),
  });
  const candidates = [
    ex("b-logic", "Logical Deduction", 300),
    ex("a-logic", "Logical Deduction", 300),
    ex("maze", "Spatial Reasoning", 100),
    ex("shop", "Data Retrieval", 50),
    ex("odd", "Custom", 10),
  ];

  it("prefers the same skill (shortest first, then by name), then the same kind, never the other kind", () => {
    expect(pickExamples(candidates, getSkill("Logical Deduction")).map((e) => e.name)).toEqual([
      "a-logic",
      "b-logic",
    ]);
    expect(
      pickExamples(candidates, getSkill("Logical Deduction"), { count: 3 }).map((e) => e.name),
    ).toEqual(["a-logic", "b-logic", "maze"]);
    expect(pickExamples(candidates, getSkill("Optimization")).map((e) => e.name)).toEqual([
      "maze",
      "a-logic",
    ]);
    expect(pickExamples(candidates, getSkill("Tool Selection")).map((e) => e.name)).toEqual([
      "shop",
    ]);
  });

  it("keeps within the character budget but always gives one", () => {
    expect(
      pickExamples(candidates, getSkill("Logical Deduction"), { maxTotalChars: 500 }).map(
        (e) => e.name,
      ),
    ).toEqual(["a-logic"]);
    expect(
      pickExamples(candidates, getSkill("Logical Deduction"), { maxTotalChars: 1 }).map(
        (e) => e.name,
      ),
    ).toEqual(["a-logic"]);
    expect(
      pickExamples(candidates, getSkill("Logical Deduction"), {
        kindOf: () => "game",
        count: 5,
      }).map((e) => e.name),
    ).toEqual(["a-logic", "b-logic", "odd", "shop", "maze"]);
  });
});

describe("renderRepairMessage", () => {
  it("lists failed checks with advice, then the passed ones", () => {
    const report: CheckReport = {
      ok: false,
      failures: ["E_ORACLE", "E_TRIVIAL"],
      checks: [
        { code: "E_COMPILE", ok: true, message: "compiles" },
        {
          code: "E_ORACLE",
          ok: false,
          message: "seed 0: following solve() gave return 0 after 10 turns",
        },
        {
          code: "E_TRIVIAL",
          ok: false,
          message: 'the trivial policy "empty answers" succeeds on 5 of 5 seeds',
        },
      ],
      meta: null,
    };
    expect(renderRepairMessage({ kind: "invalid", report })).toBe(
      "Your program failed validation.\n\nFailed checks:\n" +
        `- E_ORACLE: seed 0: following solve() gave return 0 after 10 turns\n  What to do: ${CHECK_ADVICE.E_ORACLE}\n` +
        `- E_TRIVIAL: the trivial policy "empty answers" succeeds on 5 of 5 seeds\n  What to do: ${CHECK_ADVICE.E_TRIVIAL}\n\n` +
        "Passed: E_COMPILE.\n\nFix these problems and keep what works. Answer with the complete corrected program in one ```javascript block.",
    );
  });

  it("explains a missing program and a duplicate", () => {
    expect(
      renderRepairMessage({
        kind: "extraction",
        outcome: { ok: false, code: "E_NO_CODE", message: "no block", blockCount: 0 },
      }),
    ).toBe(
      "I could not take a program from your answer: no block (E_NO_CODE).\n\nAnswer with the complete program in one ```javascript block that defines `class Environment`.",
    );
    const dup = renderRepairMessage({
      kind: "duplicate",
      match: {
        id: "library:vault-cracker",
        name: "vault-cracker",
        code: 0.95,
        description: 0.5,
        score: 0.86,
      },
    });
    expect(dup).toContain(
      'nearly the same as the existing environment "vault-cracker" (similarity 0.86: code 0.95, description 0.50)',
    );
  });

  it("has advice for every validator code", () => {
    expect(Object.keys(CHECK_ADVICE).sort()).toEqual([...CHECK_CODES].sort());
  });
});
