/**
 * `spade run --env-language python` end to end through the built command: the scripted designer
 * answers with Python programs, which are extracted, validated and played in the Python sandbox,
 * and scored like JavaScript ones.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { startSelfPlayServer, type ScriptedDesign } from "../fakes/selfplay-server.js";
import { spade, type SpadeResult } from "./cli.js";

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

let server: FakeOpenAIServer;
const dir = mkdtempSync(join(tmpdir(), "spade-run-py-"));
const out = join(dir, "run");
let result: SpadeResult;

beforeAll(async () => {
  server = await startSelfPlayServer({ runSeed: SEED, designs: DESIGNS });
  result = await spade([
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
    "--skills",
    LD,
    "--regenerate-every",
    "1",
    "--reward-delay",
    "1",
    "--plays",
    "2",
    "--hinted-plays",
    "2",
    "--max-attempts",
    "2",
    "--concurrency",
    "2",
    "--batch-fit",
    "off",
    "--hints",
    "program",
    "--corpus",
    "none",
  ]);
}, 240_000);
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

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
