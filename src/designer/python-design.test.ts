// Designs written in Python (--env-language python): prompt, extraction, dedupe, repair and a whole slot.
import { describe, expect, it } from "vitest";
import { COUNTERFEIT_COIN_PY, VAULT_CRACKER_PY } from "../envs/testing/python-library.js";
import { designSlot } from "./attempt.js";
import { findDuplicate, archivedProgram, fingerprint, similarity } from "./dedupe.js";
import { extractProgram } from "./extract.js";
import { buildDesignerPrompt } from "./prompt.js";
import { PYTHON_GAME_SYSTEM_PROMPT } from "./prompt-text.js";
import { pythonAsLexable } from "./python-source.js";
import { renderRepairMessage } from "./repair.js";
import { getSkill } from "./skills.js";
import type { DesignerCompletion, DesignerMessage } from "./types.js";

const py = (source: string) => `My design:\n\`\`\`python\n${source}\n\`\`\``;
const skill = getSkill("Logical Deduction");
/** vault-cracker in Python with renamed fields, new comments and a rewritten docstring: a near-duplicate. */
const VAULT_RENAMED = VAULT_CRACKER_PY.replace(/\bcandidates\b/g, "pool")
  .replace(/\bguesses\b/g, "tries")
  .replace(/self\.code\b/g, "self.secret")
  .replace(
    '"""Find a secret 4-digit code from per-digit feedback."""',
    '"""A lock with a hidden combination."""\n    # deduce it\n',
  )
  .replace("vault-cracker", "lock-picker");

describe("extractProgram in Python", () => {
  it("takes the last python block with an Env class and ignores JavaScript blocks", () => {
    const text = `\`\`\`javascript\nclass Environment {}\n\`\`\`\n${py("class DraftEnv:\n    pass")}\n${py(VAULT_CRACKER_PY)}`;
    const out = extractProgram(text, "python");
    expect(out).toMatchObject({ ok: true, from: "fenced", blockCount: 2, blockIndex: 1 });
    expect(out.ok && out.program).toBe(`${VAULT_CRACKER_PY.trim()}\n`);
  });

  it("takes unfenced Python and names what is missing", () => {
    expect(
      extractProgram(
        `import random\n\nclass CoinEnv(object):\n    def reset(self, seed=None):\n        return "o", {}`,
        "python",
      ),
    ).toMatchObject({ ok: true, from: "unfenced" });
    expect(extractProgram(py("def helper():\n    return 1"), "python")).toEqual({
      ok: false,
      code: "E_NO_ENVIRONMENT",
      blockCount: 1,
      message:
        "none of the 1 Python block(s) defines class Environment (or a class whose name ends in Env)",
    });
    expect(extractProgram("I will not write code.", "python")).toMatchObject({
      ok: false,
      code: "E_NO_CODE",
      message: "the answer has no ```python block and is not a program by itself",
    });
    // A JavaScript design is not taken for a Python run.
    expect(extractProgram("```javascript\nclass Environment {}\n```", "python")).toMatchObject({
      ok: false,
      code: "E_NO_CODE",
    });
  });
});

describe("the Python designer prompt", () => {
  it("shows the Python contract, no JavaScript examples, and asks for a python block", () => {
    const messages = buildDesignerPrompt({
      skill,
      document: null,
      language: "python",
      examples: [{ name: "vault-cracker", skill: skill.name, source: "class Environment {}" }],
    });
    expect(messages[0]).toEqual({ role: "system", content: PYTHON_GAME_SYSTEM_PROMPT });
    const user = messages[1]?.content ?? "";
    expect(user).toContain("```python\nimport random\nimport re\n\n\nclass Environment:\n");
    expect(user).toContain('"skill": "Logical Deduction"');
    expect(user).toContain("3. Determinism: the `random` module is the only source of randomness");
    expect(user).not.toContain("Worked examples from the library");
    expect(user).not.toContain("```javascript");
    expect(
      user.endsWith(
        "give the complete program in one ```python block. If you write several blocks, only the last one that contains `class Environment` is taken, on its own, so it must be complete.",
      ),
    ).toBe(true);
  });

  it("refuses Python for tool use with E_CONFIG", () => {
    expect(() =>
      buildDesignerPrompt({
        skill: getSkill("API Orchestration"),
        document: null,
        language: "python",
      }),
    ).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
  });

  it("asks for a python block in repair messages", () => {
    const message = renderRepairMessage(
      {
        kind: "extraction",
        outcome: { ok: false, code: "E_NO_CODE", message: "no block", blockCount: 0 },
      },
      "python",
    );
    expect(message).toBe(
      "I could not take a program from your answer: no block (E_NO_CODE).\n\nAnswer with the complete program in one ```python block that defines `class Environment`.",
    );
  });
});

describe("dedupe of Python programs", () => {
  it("drops comments and reads every string literal as one token", () => {
    expect(pythonAsLexable('x = "a#b"  # note\ns = """doc\n"""\n')).toBe('x = ""  \ns = ""\n');
  });

  it("catches a renamed copy and tells two different games apart", () => {
    const vault = archivedProgram(
      "py-vault",
      "vault-cracker",
      VAULT_CRACKER_PY,
      "Find a secret 4-digit code.",
    );
    const renamed = fingerprint(VAULT_RENAMED, "Find a secret 4-digit code.");
    expect(findDuplicate(renamed, [vault])?.id).toBe("py-vault");
    const coin = fingerprint(COUNTERFEIT_COIN_PY, "Find the fake coin with a balance.");
    expect(findDuplicate(coin, [vault])).toBeNull();
    expect(similarity(renamed, vault.fingerprint).code).toBeGreaterThan(0.6);
  });
});

describe("a design slot in Python", () => {
  it("validates a Python design in the Python sandbox and accepts it", async () => {
    const calls: DesignerMessage[][] = [];
    // TEST DOUBLE: a designer that answers with a Python program.
    const complete = async (messages: readonly DesignerMessage[]): Promise<DesignerCompletion> => {
      calls.push([...messages]);
      return { text: py(VAULT_CRACKER_PY) };
    };
    const result = await designSlot({
      skill,
      complete,
      nextDocument: async () => null,
      language: "python",
    });
    expect(result.records.map((r) => [r.outcome, r.failureCode])).toEqual([["valid", null]]);
    expect(result.design?.meta).toMatchObject({
      name: "vault-cracker",
      skill: "Logical Deduction",
      maxTurns: 10,
    });
    expect(result.design?.report.failures).toEqual([]);
    expect(calls[0]?.[0]?.content).toBe(PYTHON_GAME_SYSTEM_PROMPT);
  }, 120_000);
});
