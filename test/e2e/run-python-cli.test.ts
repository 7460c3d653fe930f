/**
 * `spade run --env-language python` end to end through the built command: the scripted designer
 * answers with Python programs, which are extracted, validated and played in the Python sandbox,
 * and scored like JavaScript ones; games, and tool use (`--mode tool-use`: a Python program whose
 * meta declares tools answers the agent's tool calls).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PYTHON_TOOL_USE_SYSTEM_PROMPT } from "../../src/designer/prompt-text.js";
import { INVENTORY_QUERY_PY } from "../../src/envs/testing/python-library.js";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { startSelfPlayServer, type ScriptedDesign } from "../fakes/selfplay-server.js";
import { spade, type SpadeResult } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const LD = "Logical Deduction";
const SEED = 5;
const py = (source: string) => `\`\`\`python\n${source}\n\`\`\``;

/** Only the hint names the word: won when hinted, lost otherwise (regret 1). */
const HINT_ONLY = String.raw`import re

class ColourVaultEnv:
    meta = {"name": "colour-vault", "skill": "Logical Deduction", "description": "Name the hidden colour word; only the hint reveals it.", "maxTurns": 2, "tools": []}

    def reset(self, seed=None):
        self.word = ["amber", "cobalt", "violet", "scarlet"][seed % 4]
        self.turn = 0
        return "Name the hidden colour word in \\boxed{}.", {}

    def step(self, action):
        self.turn += 1
        found = re.findall(r"\\boxed\{([^{}]*)\}", action)
        ok = bool(found) and found[-1].strip() == self.word
        return ("Correct." if ok else "No."), (1 if ok else 0), ok or self.turn >= 2, False, {}

    def hint(self):
        return "The answer is " + self.word + "."

    def solve(self):
        return "\\boxed{" + self.word + "}"
`;

/** Its first attempt is JavaScript, which a Python run does not take (no program). */
const DESIGNS: ScriptedDesign[] = [
  { step: 0, slot: 0, attempt: 0, completion: "```javascript\nclass Environment {}\n```" },
  { step: 0, slot: 0, attempt: 1, completion: py(HINT_ONLY) },
];

const dir = fileTempDir("spade-run-py-");

/** `spade run --no-train --env-language python` of one step and one design against `server`, plus `extra` flags. */
const pythonRun = (server: FakeOpenAIServer, out: string, extra: readonly string[]) =>
  spade([
    "run",
    "--out",
    out,
    "--no-train",
    "--base-url",
    server.baseURL,
    "--model",
    "scripted-double",
    "--seed",
    String(SEED),
    "--env-language",
    "python",
    "--steps",
    "1",
    "--designs-per-step",
    "1",
    "--regenerate-every",
    "1",
    "--reward-delay",
    "1",
    "--plays",
    "2",
    "--concurrency",
    "2",
    "--batch-fit",
    "off",
    "--hints",
    "program",
    "--corpus",
    "none",
    ...extra,
  ]);

let server: FakeOpenAIServer;
const out = join(dir, "run");
let result: SpadeResult;

beforeAll(async () => {
  server = await startSelfPlayServer({ runSeed: SEED, designs: DESIGNS });
  result = await pythonRun(server, out, [
    "--skills",
    LD,
    "--hinted-plays",
    "2",
    "--max-attempts",
    "2",
  ]);
}, 240_000);
afterAll(() => server.close());

describe("spade run --env-language python", () => {
  it("designs, validates and plays a Python environment, with regret 1", () => {
    expect(result.stderr).toContain("step 1/1");
    expect(result.code).toBe(0);
    const store = RunStore.open(out, "read");
    const designs = store.designs();
    const environments = store.environments();
    const episodes = store.episodes();
    store.close();
    expect(designs.map((d) => [d.attempt, d.outcome])).toEqual([
      [0, "no-program"],
      [1, "valid"],
    ]);
    const env = environments.find((e) => e.source === "designer");
    expect(env?.name).toBe("colour-vault");
    expect(env?.code).toContain("class ColourVaultEnv:");
    expect(episodes.map((e) => [e.hinted, e.success])).toEqual([
      [false, false],
      [false, false],
      [true, true],
      [true, true],
    ]);
    expect(env?.stats.regret).toBe(1);
  });
});

describe("spade run --env-language python --mode tool-use", () => {
  const DR = "Data Retrieval";
  const toolOut = join(dir, "tool-run");
  let toolServer: FakeOpenAIServer;
  let toolResult: SpadeResult;

  beforeAll(async () => {
    toolServer = await startSelfPlayServer({
      runSeed: SEED,
      designs: [{ step: 0, slot: 0, attempt: 0, completion: py(INVENTORY_QUERY_PY) }],
      // TEST DOUBLE: the agent lists the categories first, then answers wrongly.
      agentReply: (messages) =>
        messages.some((m) => m.role === "tool")
          ? { kind: "text", content: "\\boxed{nothing}" }
          : { kind: "tool_calls", calls: [{ id: "c1", name: "list_categories", arguments: "{}" }] },
    });
    toolResult = await pythonRun(toolServer, toolOut, [
      "--mode",
      "tool-use",
      "--skills",
      DR,
      "--hinted-plays",
      "0",
      "--max-attempts",
      "1",
    ]);
  }, 240_000);
  afterAll(() => toolServer.close());

  it("designs a Python tool-use environment, stores it as python and plays it through its tools", () => {
    expect(toolResult.stderr).toContain("step 1/1");
    expect(toolResult.code).toBe(0);
    const store = RunStore.open(toolOut, "read");
    const designs = store.designs();
    const env = store.environments().find((e) => e.source === "designer");
    const episodes = store.episodes();
    store.close();
    expect(designs.map((d) => [d.attempt, d.outcome])).toEqual([[0, "valid"]]);
    expect([env?.name, env?.skill, env?.language]).toEqual(["inventory-query", DR, "python"]);
    expect(env?.code).toContain("class InventoryQueryEnv:");
    expect(episodes.map((e) => [e.hinted, e.success])).toEqual([
      [false, false],
      [false, false],
    ]);
    // The agent was offered the program's tools, and its call was answered by the Python program.
    const agent = toolServer.requests.filter(
      (r) => r.body.messages[0]?.content !== PYTHON_TOOL_USE_SYSTEM_PROMPT,
    );
    const answered = agent.filter((r) =>
      r.body.messages.some((m: { role: string }) => m.role === "tool"),
    );
    expect(agent).toHaveLength(4);
    expect(answered).toHaveLength(2);
    expect(
      agent[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name),
    ).toEqual(["query_items", "get_item", "list_categories"]);
    const toolMessage = answered[0]?.body.messages.find((m: { role: string }) => m.role === "tool");
    expect(toolMessage).toMatchObject({
      tool_call_id: "c1",
      content:
        '{"categories":[{"category":"kitchen","items":9},{"category":"office","items":9},{"category":"garden","items":9},{"category":"lighting","items":9},{"category":"tools","items":9}]}',
    });
  });
});
