import { describe, expect, it } from "vitest";
import { TEST_META } from "../env/testing/test-env.js";
import { resolveProgram } from "../envs/index.js";
import { SpadeError } from "../errors.js";
import { designSlot, offTaskReason, type DesignSlotOptions } from "./attempt.js";
import { archivedProgram } from "./dedupe.js";
import { buildDesignerPrompt } from "./prompt.js";
import { getSkill } from "./skills.js";
import type { DesignerCompletion, DesignerMessage, GroundingDocument } from "./types.js";

const VAULT = resolveProgram("vault-cracker").source;
const KNIGHTS = resolveProgram("knights-and-knaves").source;
const SMART_HOME = resolveProgram("smart-home").source;
const VAULT_DESCRIPTION =
  "Find a secret 4-digit code (digits distinct). After each guess the vault says which digits are in the right place and which are in the code but misplaced.";

/** vault-cracker whose oracle always guesses 0123: validation fails with E_ORACLE. */
const VAULT_BROKEN_ORACLE = VAULT.replace(
  "return { text: `\\\\boxed{${this.candidates[0]}}` };",
  'return { text: "\\\\boxed{0123}" };',
);
/** vault-cracker with its fields and helper renamed and a new name: a near-duplicate. */
const VAULT_RENAMED = VAULT.replace(/\bcandidates\b/g, "pool")
  .replace(/\bguesses\b/g, "tries")
  .replace(/\bscore\b/g, "grade")
  .replace(/this\.code\b/g, "this.secret")
  .replace("vault-cracker", "lock-picker");
/** A game any reply wins: validation fails with E_TRIVIAL. */
const FREE_WIN = `class Environment {
  static meta = { name: "free-win", skill: "Logical Deduction", description: "Any reply wins.", maxTurns: 3, tools: [] };
  reset(seed) { this.done = false; return { observation: "Say anything.", info: {} }; }
  step(action) {
    if (this.done) return { observation: "Over.", reward: 0, terminated: true, truncated: false, info: {} };
    this.done = true;
    return { observation: "You win.", reward: 1, terminated: true, truncated: false, info: {} };
  }
  hint() { return "Say anything."; }
  solve() { return { text: "ok" }; }
}`;

/** Each record of a slot as [attempt, repairTurn, docId, outcome, failureCode, trainable]. */
const trail = (result: Awaited<ReturnType<typeof designSlot>>) =>
  result.records.map((r) => [
    r.attempt,
    r.repairTurn,
    r.docId,
    r.outcome,
    r.failureCode,
    r.trainable,
  ]);

const js = (source: string) => `Here is my environment.\n\`\`\`javascript\n${source}\n\`\`\``;

/** TEST DOUBLE: a designer that answers with scripted texts (or errors) in order and records what it was sent. */
function scriptedDesigner(script: Array<string | Error>) {
  const calls: DesignerMessage[][] = [];
  const complete = async (
    messages: readonly DesignerMessage[],
  ): Promise<DesignerCompletion & { tokens: number }> => {
    calls.push([...messages]);
    const next = script[calls.length - 1];
    if (next === undefined) throw new Error(`the script has no answer for call ${calls.length}`);
    if (next instanceof Error) throw next;
    return { text: next, tokens: next.length };
  };
  return { complete, calls };
}

/** TEST DOUBLE: documents doc-0, doc-1, ... */
function documents() {
  let n = 0;
  const next = async (): Promise<GroundingDocument> => ({
    docId: `doc-${n}`,
    text: `Document number ${n++}.`,
  });
  return { next, count: () => n };
}

const skill = getSkill("Logical Deduction");

function slot(
  script: Array<string | Error>,
  options: Partial<DesignSlotOptions<DesignerCompletion & { tokens: number }>> = {},
) {
  const designer = scriptedDesigner(script);
  const docs = documents();
  const run = designSlot({
    skill,
    nextDocument: docs.next,
    complete: designer.complete,
    check: { seeds: [0, 1], trivialSeeds: [0, 1, 2] },
    ...options,
  });
  return { run, designer, docs };
}

describe("designSlot", () => {
  it("accepts a valid program on the first attempt", async () => {
    const { run, designer, docs } = slot([js(VAULT)]);
    const result = await run;
    expect(docs.count()).toBe(1);
    expect(designer.calls).toEqual([
      buildDesignerPrompt({ skill, document: { docId: "doc-0", text: "Document number 0." } }),
    ]);
    expect(result.records).toHaveLength(1);
    expect(result.records[0]).toMatchObject({
      attempt: 0,
      repairTurn: 0,
      docId: "doc-0",
      program: `${VAULT.trim()}\n`,
      outcome: "valid",
      failureCode: null,
      duplicateOf: null,
      trainable: true,
    });
    expect(result.records[0]?.completion).toEqual({ text: js(VAULT), tokens: js(VAULT).length });
    expect(result.records[0]?.report?.ok).toBe(true);
    expect(result.design?.meta.name).toBe("vault-cracker");
    expect(result.design?.docId).toBe("doc-0");
    expect(result).toMatchObject({ acceptedIndex: 0, sampleIndex: 0 });
  });

  it("refuses an invalid program, then accepts a valid one on the second attempt with a fresh document", async () => {
    const { run, designer, docs } = slot([js(FREE_WIN), js(VAULT)]);
    const result = await run;
    expect(docs.count()).toBe(2);
    expect(trail(result)).toEqual([
      [0, 0, "doc-0", "invalid", "E_TRIVIAL", true],
      [1, 0, "doc-1", "valid", null, true],
    ]);
    expect(result.records[0]?.report?.failures).toEqual(["E_TRIVIAL"]);
    expect(designer.calls[1]).toHaveLength(2);
    expect(designer.calls[1]?.[1]?.content).toContain("Document number 1.");
    expect(result).toMatchObject({ acceptedIndex: 1, sampleIndex: 1 });
  });

  it("builds each attempt's prompt with that attempt's memory draw (memoryFor), as the reference rebuilds it per attempt", async () => {
    const ref = (name: string) => ({
      name,
      skill: "Logical Deduction",
      description: `${name} game`,
      winRate: 0.5,
      regret: 0.3,
      source: "class Environment {}",
    });
    const asked: number[] = [];
    const memoryFor = (attempt: number) => {
      asked.push(attempt);
      return { references: [ref(`memo-${attempt}`)], avoid: null };
    };
    const { run, designer } = slot([js(FREE_WIN), js(VAULT)], {
      memoryFor,
      references: [ref("ignored")],
    });
    await run;
    expect(asked).toEqual([0, 1]);
    expect(designer.calls).toEqual(
      [0, 1].map((i) =>
        buildDesignerPrompt({
          skill,
          document: { docId: `doc-${i}`, text: `Document number ${i}.` },
          references: [ref(`memo-${i}`)],
          avoid: null,
        }),
      ),
    );
  });

  it("refuses a near-duplicate of the archive without validating it", async () => {
    const archive = [archivedProgram("env-7", "vault-cracker", VAULT, VAULT_DESCRIPTION)];
    const { run } = slot([js(VAULT_RENAMED), js(KNIGHTS)], { archive });
    const result = await run;
    const [dup, ok] = result.records;
    expect(dup).toMatchObject({
      outcome: "duplicate",
      failureCode: "E_DUPLICATE",
      report: null,
      trainable: true,
    });
    expect(dup?.duplicateOf).toMatchObject({ id: "env-7", name: "vault-cracker", description: 1 });
    expect(dup?.duplicateOf?.score).toBeGreaterThan(0.9);
    expect(ok?.outcome).toBe("valid");
    expect(result.design?.meta.name).toBe("knights-and-knaves");
  });

  it("treats a copy of a prompt example as a duplicate of it", async () => {
    const examples = [{ name: "knights-and-knaves", skill: "Logical Deduction", source: KNIGHTS }];
    const { run, designer } = slot([js(KNIGHTS), js(VAULT)], { examples });
    const result = await run;
    expect(designer.calls[0]?.[1]?.content).toContain("### knights-and-knaves (Logical Deduction)");
    expect(result.records[0]?.duplicateOf).toMatchObject({ id: "lib-knights-and-knaves", code: 1 });
    expect(result.records.map((r) => r.outcome)).toEqual(["duplicate", "valid"]);
  });

  it("gives up after five attempts without code, each with its own document", async () => {
    const { run, docs } = slot(
      Array.from({ length: 5 }, () => "I would rather not write code today."),
    );
    const result = await run;
    expect(docs.count()).toBe(5);
    expect(
      result.records.map((r) => [r.attempt, r.docId, r.outcome, r.failureCode, r.program]),
    ).toEqual([0, 1, 2, 3, 4].map((i) => [i, `doc-${i}`, "no-program", "E_NO_CODE", null]));
    expect(result).toMatchObject({ design: null, acceptedIndex: null, sampleIndex: 4 });
  });

  it("sends the validator report back and accepts the repair; only the first turn is trainable", async () => {
    const { run, designer, docs } = slot(
      [`<think>long plan</think>${js(VAULT_BROKEN_ORACLE)}`, js(VAULT)],
      { repairTurns: 1, maxAttempts: 1 },
    );
    const result = await run;
    expect(docs.count()).toBe(1);
    expect(trail(result)).toEqual([
      [0, 0, "doc-0", "invalid", "E_ORACLE", true],
      [0, 1, "doc-0", "valid", null, false],
    ]);
    const repairCall = designer.calls[1] as DesignerMessage[];
    expect(repairCall.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(repairCall.slice(0, 2)).toEqual(designer.calls[0]);
    expect(repairCall[2]?.content).toBe(js(VAULT_BROKEN_ORACLE));
    expect(repairCall[3]?.content).toMatch(
      /^Your program failed validation\.\n\nFailed checks:\n- E_ORACLE: seed 0: following solve\(\) gave return 0/,
    );
    expect(result.records[1]?.messages).toEqual(repairCall);
    expect(result).toMatchObject({ acceptedIndex: 1, sampleIndex: 0 });
  });

  it("moves to the next attempt when the repair turns run out", async () => {
    const { run, docs } = slot(["no code", "still no code", js(VAULT)], {
      repairTurns: 1,
      maxAttempts: 2,
    });
    const result = await run;
    expect(docs.count()).toBe(2);
    expect(result.records.map((r) => [r.attempt, r.repairTurn, r.outcome])).toEqual([
      [0, 0, "no-program"],
      [0, 1, "no-program"],
      [1, 0, "valid"],
    ]);
    expect(result).toMatchObject({ acceptedIndex: 2, sampleIndex: 2 });
  });

  it("records a failed model call and goes on; cancellation and bugs propagate", async () => {
    const { run } = slot([new SpadeError("E_POLICY_HTTP", "503 after 4 tries"), js(VAULT)]);
    const result = await run;
    expect(result.records[0]).toMatchObject({
      outcome: "completion-failed",
      failureCode: "E_POLICY_HTTP",
      failure: "E_POLICY_HTTP: 503 after 4 tries",
      completion: null,
      trainable: false,
    });
    expect(result).toMatchObject({ acceptedIndex: 1, sampleIndex: 1 });
    await expect(slot([new SpadeError("E_CANCELLED", "stop")]).run).rejects.toMatchObject({
      code: "E_CANCELLED",
    });
    await expect(slot([new TypeError("bug")]).run).rejects.toThrow("bug");
    const controller = new AbortController();
    controller.abort();
    const cancelled = slot([js(VAULT)], { signal: controller.signal });
    await expect(cancelled.run).rejects.toMatchObject({ code: "E_CANCELLED" });
    expect(cancelled.designer.calls).toHaveLength(0);
  });

  it("runs tool-use slots with the tool-use prompt and refuses a game written for them", async () => {
    const toolSkill = getSkill("State Modification");
    const { run, designer } = slot([js(VAULT), js(SMART_HOME)], {
      skill: toolSkill,
      taskType: "read-then-write",
      repairTurns: 1,
      maxAttempts: 1,
    });
    const result = await run;
    expect(designer.calls[0]).toEqual(
      buildDesignerPrompt({
        skill: toolSkill,
        taskType: "read-then-write",
        document: { docId: "doc-0", text: "Document number 0." },
      }),
    );
    expect(
      result.records.map((r) => [r.repairTurn, r.outcome, r.failureCode, r.report === null]),
    ).toEqual([
      [0, "off-task", "E_OFF_TASK", true],
      [1, "valid", null, false],
    ]);
    expect(result.records[0]?.failure).toBe(
      'meta.skill is "Logical Deduction", but this design is for "State Modification"',
    );
    expect(designer.calls[1]?.[3]?.content).toBe(
      'Your program does not fit this design: meta.skill is "Logical Deduction", but this design is for "State Modification".\n\nFix it and answer with the complete program in one ```javascript block.',
    );
    expect(result.design?.meta.tools.length).toBeGreaterThan(0);
  });

  it("offTaskReason: the skill (ignoring case and spacing) and the presence of tools must fit the slot", () => {
    const meta = { ...TEST_META, skill: "logical  deduction" };
    const tool = {
      type: "function" as const,
      function: { name: "f", description: "", parameters: { type: "object" } },
    };
    expect(offTaskReason(meta, getSkill("Logical Deduction"))).toBeNull();
    expect(offTaskReason({ ...meta, tools: [tool] }, getSkill("Logical Deduction"))).toBe(
      "a game must not declare tools: meta.tools must be empty",
    );
    expect(offTaskReason({ ...meta, skill: "Tool Selection" }, getSkill("Tool Selection"))).toBe(
      "a tool-use environment must declare its tools in meta.tools",
    );
    expect(
      offTaskReason(
        { ...meta, skill: "Tool Selection", tools: [tool] },
        getSkill("Tool Selection"),
      ),
    ).toBeNull();
  });

  it("rejects bad settings with E_CONFIG", async () => {
    await expect(slot([], { maxAttempts: 0 }).run).rejects.toMatchObject({ code: "E_CONFIG" });
    await expect(slot([], { repairTurns: -1 }).run).rejects.toMatchObject({ code: "E_CONFIG" });
    const badLimits = slot([], { limits: { stepTimeoutMs: -1 } });
    await expect(badLimits.run).rejects.toMatchObject({ code: "E_CONFIG" });
    expect(badLimits.docs.count()).toBe(0);
  });
});
