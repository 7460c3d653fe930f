/**
 * RLVE environments from a checkout (a tiny RLVE-shaped one written by the test: CI has no
 * network): reading its registries, bundling an environment at a difficulty, and playing it in
 * the Python sandbox without torch.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../../test/cleanup.js";
import { writeRlveFixture } from "../../test/fakes/rlve-fixture.js";
import { makeAction } from "../env/index.js";
import { loadProgram } from "../sandbox/index.js";
import {
  parseRlvePool,
  readRlveCheckout,
  rlveEnvId,
  rlveProgram,
  RLVE_OFFICIAL16,
} from "./rlve.js";

const dir = fileTempDir("spade-rlve-");
const checkout = writeRlveFixture(join(dir, "RLVE"));

describe("parseRlvePool", () => {
  it("reads the checkout and the selection: official16 by default, #* for all, #A,B for some", () => {
    expect(parseRlvePool("rlve:/opt/RLVE")).toEqual({
      dir: "/opt/RLVE",
      names: [...RLVE_OFFICIAL16],
    });
    expect(RLVE_OFFICIAL16).toHaveLength(16);
    expect(parseRlvePool("rlve:/opt/RLVE#*")).toEqual({ dir: "/opt/RLVE", names: null });
    expect(parseRlvePool("rlve:/opt/RLVE#Sorting, Division")).toEqual({
      dir: "/opt/RLVE",
      names: ["Sorting", "Division"],
    });
  });

  it("refuses a pool naming no checkout or selecting nothing (E_CONFIG)", () => {
    expect(() => parseRlvePool("rlve")).toThrow(
      expect.objectContaining({
        code: "E_CONFIG",
        message: expect.stringMatching(
          /^env pool rlve: no RLVE checkout given \(RLVE is not bundled with SPADE\) \(git clone/,
        ),
      }),
    );
    expect(() => parseRlvePool("rlve:/opt/RLVE#")).toThrow(
      expect.objectContaining({
        code: "E_CONFIG",
        message: expect.stringMatching(
          /^env pool rlve: rlve:\/opt\/RLVE# selects no environment \(/,
        ),
      }),
    );
  });
});

describe("readRlveCheckout", () => {
  it("keeps the environments that have a controller, sorted, with their classes", () => {
    const envs = readRlveCheckout({ dir: checkout, names: null });
    expect(envs.map((e) => [e.id, e.envClass, e.controllerClass])).toEqual([
      ["HiddenSum", "HiddenSum_Environment", "HiddenSum_ParameterController"],
      ["ShownSum", "ShownSum_Environment", "ShownSum_ParameterController"],
    ]);
    expect(envs[1]!.envSource).toContain("class ShownSum_Environment(VerifiableEnvironment)");
  });

  it("says which identifiers are missing (E_CONFIG) and when the folder is no checkout (E_IO)", () => {
    expect(() => readRlveCheckout({ dir: checkout, names: ["ShownSum", "Sorting"] })).toThrow(
      expect.objectContaining({
        code: "E_CONFIG",
        message: `env pool rlve: ${checkout} has no environment with a parameter controller named Sorting (choose among HiddenSum, ShownSum... (2 in all), or #* for all)`,
      }),
    );
    expect(() => readRlveCheckout({ dir, names: null })).toThrow(
      expect.objectContaining({
        code: "E_IO",
        message: `env pool rlve: ${dir} has no Gym/ folder (git clone https://github.com/Zhiyuan-Zeng/RLVE and give --env-pool rlve:DIR (the folder holding Gym/))`,
      }),
    );
  });
});

describe("an RLVE environment in the Python sandbox", () => {
  const [, shown] = readRlveCheckout({ dir: checkout, names: null });

  it("plays at its difficulty (the controller updated that many times), torch unneeded", async () => {
    const env = await loadProgram(rlveProgram(shown!, 2), { language: "python" });
    try {
      expect(env.meta).toEqual({
        name: "rlve-shownsum",
        skill: "RLVE",
        description: "RLVE's ShownSum at difficulty 2",
        maxTurns: 1,
        tools: [],
      });
      const first = await env.reset(11);
      // N = 3 + 2 x 2 numbers, then the reference's rlve instruction.
      const numbers = /Add these numbers: ([\d ]+)\./.exec(first.observation)![1]!.split(" ");
      expect(numbers).toHaveLength(7);
      const total = numbers.reduce((s, n) => s + Number(n), 0);
      expect(first.observation).toBe(
        `Add these numbers: ${numbers.join(" ")}. The answer is ${total}\n\nPlease reason step by step, and put your final answer within \\boxed{}.`,
      );
      expect(first.info).toEqual({ difficulty: 2, has_answer: true });
      // The same seed, the same problem.
      expect((await env.reset(11)).observation).toBe(first.observation);
      expect(await env.solve()).toEqual(makeAction(`\\boxed{${total}}`));
      expect(await env.step(makeAction(`so \\boxed{${total}}`))).toEqual({
        observation: "Correct!",
        reward: 1,
        terminated: true,
        truncated: false,
        info: { correct: true, difficulty: 2, expected_answer: String(total) },
      });
      await env.reset(11);
      // RLVE's own answer tags count too; a wrong answer scores 0 and shows the answer.
      expect((await env.step(makeAction(`<answer>${total}</answer>`))).reward).toBe(1);
      await env.reset(11);
      expect(await env.step(makeAction("\\boxed{0}"))).toEqual({
        observation: `Incorrect. The answer was: ${total}`,
        reward: 0,
        terminated: true,
        truncated: false,
        info: { correct: false, difficulty: 2, expected_answer: String(total) },
      });
    } finally {
      await env.close();
    }
  }, 60_000);

  it("loads one importing networkx, as 30 of RLVE's do (requirements-sandbox.txt)", async () => {
    const [hidden] = readRlveCheckout({ dir: checkout, names: ["HiddenSum"] });
    // HiddenSum's sum as the length of a weighted path, the way ShortestPath uses networkx.
    const graph = {
      ...hidden!,
      envSource: hidden!.envSource
        .replace("import random\n", "import random\nimport networkx as nx\n")
        .replace(
          'self.parameter["reference_answer"] = sum(self.parameter["numbers"])',
          'g = nx.Graph()\n        g.add_weighted_edges_from((i, i + 1, w) for i, w in enumerate(self.parameter["numbers"]))\n        self.parameter["reference_answer"] = nx.shortest_path_length(g, 0, len(self.parameter["numbers"]), weight="weight")',
        ),
    };
    expect(graph.envSource).toContain("nx.shortest_path_length(g, 0,");
    const env = await loadProgram(rlveProgram(graph, 1), { language: "python" });
    try {
      const first = await env.reset(5);
      const numbers = /Add these numbers: ([\d ]+)\./.exec(first.observation)![1]!.split(" ");
      expect(numbers).toHaveLength(5);
      const total = numbers.reduce((sum, n) => sum + Number(n), 0);
      expect(await env.solve()).toEqual(makeAction(`\\boxed{${total}}`));
      expect((await env.step(makeAction(`\\boxed{${total}}`))).reward).toBe(1);
    } finally {
      await env.close();
    }
  }, 60_000);

  it("names its store rows by identifier and difficulty, and refuses a difficulty out of range", () => {
    expect(rlveEnvId("ShownSum", 3)).toBe("rlve-ShownSum-d3");
    expect(() => rlveProgram(shown!, 21)).toThrow(
      expect.objectContaining({
        code: "E_CONFIG",
        message: expect.stringMatching(
          /^RLVE difficulty must be an integer in \[0, 20\], got 21 \(/,
        ),
      }),
    );
  });
});
