/** designSlot under the ablation switches: no grounding document (`--corpus none`) and the reference's gate (`--validation reference`). */
import { describe, expect, it } from "vitest";
import { designSlot } from "./attempt.js";
import { buildDesignerPrompt } from "./prompt.js";
import { getSkill } from "./skills.js";
import type { DesignerCompletion, DesignerMessage } from "./types.js";

const skill = getSkill("Logical Deduction");
/** A game whose oracle cannot win: the strict validator refuses it (E_ORACLE), the reference's gate does not. */
const UNWINNABLE = `class Environment {
  static meta = { name: "sealed-door", skill: "Logical Deduction", description: "A door that never opens.", maxTurns: 3, tools: [] };
  reset(seed) { return { observation: "Open the door: answer \\\\boxed{word}.", info: {} }; }
  step(action) { return { observation: "Still closed.", reward: 0, terminated: false, truncated: false, info: {} }; }
  hint() { return "There is no way."; }
  solve() { return { text: "\\\\boxed{open}" }; }
}`;
const js = (source: string) => "```javascript\n" + source + "\n```";

/** TEST DOUBLE: a designer that answers every call with the same program and records the prompts. */
function designer(text: string) {
  const calls: DesignerMessage[][] = [];
  return {
    calls,
    complete: async (messages: readonly DesignerMessage[]): Promise<DesignerCompletion> => (
      calls.push([...messages]), { text }
    ),
  };
}

describe("designSlot switches", () => {
  it("--corpus none: every attempt's prompt has no document and its record no docId", async () => {
    const d = designer(js(UNWINNABLE));
    const result = await designSlot({
      skill,
      nextDocument: async () => null,
      complete: d.complete,
      maxAttempts: 2,
      backend: "quickjs",
      check: { seeds: [0], trivialSeeds: [0] },
    });
    expect(d.calls).toEqual([
      buildDesignerPrompt({ skill, document: null }),
      buildDesignerPrompt({ skill, document: null }),
    ]);
    expect(JSON.stringify(d.calls[0])).toContain(
      "No document this time: choose the setting yourself.",
    );
    expect(result.records.map((r) => [r.attempt, r.docId, r.outcome, r.failureCode])).toEqual([
      [0, null, "invalid", "E_ORACLE"],
      [1, null, "invalid", "E_ORACLE"],
    ]);
    expect(result.design).toBeNull();
  });

  it("--validation reference: the reference's gate accepts what the strict validator refuses", async () => {
    const d = designer(js(UNWINNABLE));
    const result = await designSlot({
      skill,
      nextDocument: async () => ({ docId: "doc-0", text: "A door." }),
      complete: d.complete,
      backend: "quickjs",
      validation: "reference",
    });
    expect(result.records.map((r) => [r.outcome, r.failureCode])).toEqual([["valid", null]]);
    expect(result.design).toMatchObject({ docId: "doc-0", meta: { name: "sealed-door" } });
    expect(result.design?.report.checks.map((c) => c.code)).toEqual([
      "E_COMPILE",
      "E_META",
      "E_RESET",
    ]);
  });
});
