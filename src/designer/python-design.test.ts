// Designs written in Python (--env-language python): prompt, extraction, dedupe, repair and a whole slot.
import { describe, expect, it } from "vitest";
import {
  COUNTERFEIT_COIN_PY,
  INVENTORY_QUERY_PY,
  VAULT_CRACKER_PY,
} from "../envs/testing/python-library.js";
import { designSlot } from "./attempt.js";
import { archivedProgram, fingerprint, similarity } from "./dedupe.js";
import { findDuplicate } from "./dedupe-index.js";
import { extractProgram } from "./extract.js";
import { buildHintPrompt } from "./hints.js";
import { buildDesignerPrompt } from "./prompt.js";
import {
  PYTHON_ANSWER_FORMAT,
  PYTHON_GAME_SYSTEM_PROMPT,
  PYTHON_TOOL_USE_SYSTEM_PROMPT,
} from "./prompt-text.js";
import { pythonAsLexable } from "./python-source.js";
import { renderRepairMessage } from "./repair.js";
import { getSkill, type SkillInfo } from "./skills.js";
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

  it("shows the Python tool-use contract: step gets the action dict and returns the tool results sixth", () => {
    const messages = buildDesignerPrompt({
      skill: getSkill("Data Retrieval"),
      document: null,
      language: "python",
      examples: [
        { name: "inventory-query", skill: "Data Retrieval", source: "class Environment {}" },
      ],
    });
    expect(messages[0]).toEqual({ role: "system", content: PYTHON_TOOL_USE_SYSTEM_PROMPT });
    expect(PYTHON_TOOL_USE_SYSTEM_PROMPT).toBe(
      "You are an expert designer of training environments for language-model agents that act through function tools. You write each environment as one self-contained Python program that simulates a system behind a set of tools and follows the contract you are given exactly, so that it runs in a sandbox and passes automatic validation.",
    );
    const user = messages[1]?.content ?? "";
    const lines = user.split("\n");
    const contract = lines.slice(lines.indexOf("```python"), lines.indexOf("```python") + 4);
    expect(contract).toEqual(["```python", "import json", "import random", ""]);
    for (const line of [
      '        "skill": "Data Retrieval",',
      '                    "name": "find_orders",',
      "    def step(self, action):",
      '        # action: a dict. action["toolCalls"]: [{"id", "name", "arguments"}], arguments already parsed (nested dicts and lists kept).',
      '        # action["text"]: the agent\'s text; action["answer"]: its last \\\\boxed{...} or <answer>...</answer>, else None.',
      '        results = [{"id": call["id"], "content": json.dumps(self.call(call["name"], call["arguments"]))} for call in action["toolCalls"]]',
      '        return "a short note on the turn", 0.0, False, False, {}, results   # the tool results come sixth',
      '        return {"toolCalls": [{"name": "find_orders", "arguments": {"filter": {"status": "open"}}}]}',
      '7. solve(): the oracle: the best next action from the current state, computed from that state, never from a fixed script, and without changing state. Validation plays several seeds by calling solve() before every step; following it must reach success within maxTurns on every seed. Return the reply as a string (e.g. `"\\\\boxed{42}"`) or a dict `{"toolCalls": [{"name": ..., "arguments": {...}}]}`.',
      '- Answer every call of the turn in the tool results, the sixth value step() returns: a list of one `{"id": ..., "content": ...}` per call with the call\'s own id; `content` is a string (`json.dumps` structured data). A reply without calls gets an observation telling the agent to use the tools.',
    ])
      expect(lines, line).toContain(line);
    expect(lines.filter((l) => l.startsWith("1. Form: one file of Python 3"))).toHaveLength(1);
    expect(user).toContain("Task type: **execute**.");
    expect(user).not.toContain("toolResults");
    expect(user).not.toContain("JSON.stringify");
    expect(user).not.toContain("Worked examples from the library");
    expect(user).not.toContain("```javascript");
    expect(user.endsWith(PYTHON_ANSWER_FORMAT)).toBe(true);
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

describe("the hint writer and dedupe on a Python tool-use program", () => {
  it("asks the tool-use hint writer, showing the program as Python", () => {
    const tools = [
      {
        type: "function" as const,
        function: { name: "query_items", description: "", parameters: { type: "object" } },
      },
    ];
    const [system, user] = buildHintPrompt(INVENTORY_QUERY_PY, { tools });
    expect(system).toEqual(buildHintPrompt("class Environment {}", { tools })[0]);
    expect(system?.content).toContain("use placeholders such as <order_id>");
    expect(user?.content).toBe(
      `The environment's program:\n\`\`\`python\n${INVENTORY_QUERY_PY.trimEnd()}\n\`\`\``,
    );
  });

  it("catches a renamed copy of inventory-query, and tells it from vault-cracker", () => {
    const inventory = archivedProgram(
      "py-inventory",
      "inventory-query",
      INVENTORY_QUERY_PY,
      "Answer one question about a product database.",
    );
    const renamed = INVENTORY_QUERY_PY.replace(/\bitems\b/g, "products")
      .replace(/\bwarehouses?\b/g, "depot")
      .replace("inventory-query", "catalog-lookup");
    expect(renamed).not.toBe(INVENTORY_QUERY_PY);
    const copy = fingerprint(renamed, "Answer one question about a catalog.");
    expect(findDuplicate(copy, [inventory])?.id).toBe("py-inventory");
    const vault = fingerprint(VAULT_CRACKER_PY, "Find a secret 4-digit code.");
    expect(findDuplicate(vault, [inventory])).toBeNull();
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
  /** A Python design slot of `slotSkill` whose designer (a TEST DOUBLE) answers `source`, with the messages it was sent. */
  async function pythonSlot(slotSkill: SkillInfo, source: string) {
    const calls: DesignerMessage[][] = [];
    const complete = async (messages: readonly DesignerMessage[]): Promise<DesignerCompletion> => {
      calls.push([...messages]);
      return { text: py(source) };
    };
    const result = await designSlot({
      skill: slotSkill,
      complete,
      nextDocument: async () => null,
      language: "python",
    });
    return { result, calls };
  }

  it("validates a Python design in the Python sandbox and accepts it", async () => {
    const { result, calls } = await pythonSlot(skill, VAULT_CRACKER_PY);
    expect(result.records.map((r) => [r.outcome, r.failureCode])).toEqual([["valid", null]]);
    expect(result.design?.meta).toMatchObject({
      name: "vault-cracker",
      skill: "Logical Deduction",
      maxTurns: 10,
    });
    expect(result.design?.report.failures).toEqual([]);
    expect(calls[0]?.[0]?.content).toBe(PYTHON_GAME_SYSTEM_PROMPT);
  }, 120_000);

  it("validates a Python tool-use design (meta tools, tool results sixth) and accepts it", async () => {
    // inventory-query rewritten in Python: meta tools, tool calls in, tool results out.
    const { result, calls } = await pythonSlot(getSkill("Data Retrieval"), INVENTORY_QUERY_PY);
    expect(result.records.map((r) => [r.outcome, r.failureCode])).toEqual([["valid", null]]);
    expect(result.design?.meta).toMatchObject({
      name: "inventory-query",
      skill: "Data Retrieval",
      maxTurns: 14,
    });
    expect(result.design?.meta.tools.map((t) => t.function.name)).toEqual([
      "query_items",
      "get_item",
      "list_categories",
    ]);
    expect(result.design?.report.failures).toEqual([]);
    expect(result.design?.source).toBe(`${INVENTORY_QUERY_PY.trim()}\n`);
    expect(calls[0]?.[0]?.content).toBe(PYTHON_TOOL_USE_SYSTEM_PROMPT);
  }, 120_000);
});
