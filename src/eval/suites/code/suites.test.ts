import { describe, expect, it } from "vitest";
import { dataRoot } from "../../data.js";
import { makeAction } from "../../../env/index.js";
import { readJsonl } from "../../data.js";
import { goldCheck } from "../gold.js";
import { loadSuite } from "../load.js";
import type { EvalItem } from "../types.js";
import { fenceCode } from "./extract.js";
import { PythonSandbox } from "./python-sandbox.js";
import { sandboxMissing } from "./testing/sandbox-probe.js";
import { skipWithout } from "../../../../test/missing.js";
import { humanEvalProgram, mbppProgram, type PythonRunner } from "./suites.js";

const dataDir = dataRoot({ env: process.env });
const sandboxOptions = { limits: { timeoutMs: 5000, cpuSeconds: 3 }, maxConcurrency: 2 };
// Gold solutions run under the sandbox's default CPU limit (10 s): mbpp/123 needs about 3 CPU
// seconds, which a loaded machine pushed past a 3 s limit. Only runaway code would reach 10 s.
const goldOptions = { limits: { timeoutMs: 20_000, cpuSeconds: 10 }, maxConcurrency: 2 };
const probe = await PythonSandbox.create(sandboxOptions).catch((err: unknown) => err);

/** TEST DOUBLE: a runner that records the programs it is given and reports them passed. */
function recordingRunner(): PythonRunner & { programs: string[] } {
  const programs: string[] = [];
  return {
    programs,
    run: async (source) => {
      programs.push(source);
      return { outcome: "passed", detail: "", exitCode: 0, stdout: "", stderr: "", durationMs: 0 };
    },
  };
}

describe("check programs", () => {
  it("HumanEval: prompt + completion + newline + test + check(entry_point)", async () => {
    expect(humanEvalProgram("P", "C", "T", "f")).toBe("PC\nT\ncheck(f)\n");
    const runner = recordingRunner();
    const item = (await loadSuite("humaneval", { dataDir, limit: 1, runner }))[0]!;
    await item.grade(makeAction("Sure:\n```python\n    return False\n```"));
    const raw = (await readJsonl(`${dataDir}/humaneval/HumanEval.jsonl.gz`))[0] as Record<
      string,
      string
    >;
    expect(runner.programs).toEqual([
      `${raw.prompt}    return False\n\n${raw.test}\ncheck(has_close_elements)\n`,
    ]);
  });

  it("MBPP: code, then test imports and asserts", async () => {
    expect(mbppProgram("def f(): pass", ["import math"], ["assert f() is None"])).toBe(
      "def f(): pass\n\nimport math\nassert f() is None\n",
    );
    const items = await loadSuite("mbpp", { dataDir, runner: recordingRunner() });
    expect(items.length).toBe(257);
    expect(items[0]!.id).toBe("mbpp/11");
    expect(items[0]!.prompt).toContain('assert remove_Occ("hello","l") == "heo"');
  });
});

// Skip reason: this machine cannot build the sandbox's namespaces (not root, no user namespaces).
describe.skipIf(skipWithout(sandboxMissing(probe)))(
  "HumanEval and MBPP in the Python sandbox",
  () => {
    it.each([
      ["humaneval", 164],
      ["mbpp", 257],
    ] as const)("gold: the %s canonical solutions pass (%i of them)", async (suite, n) => {
      const report = await goldCheck(suite, { dataDir, sandbox: goldOptions });
      const { items, correct, failures } = report;
      expect({ items, correct, failures }).toEqual({ items: n, correct: n, failures: [] });
    });

    it("broken completions fail with the right recorded reason", async () => {
      const item: EvalItem = (
        await loadSuite("humaneval", { dataDir, limit: 1, runner: probe as PythonSandbox })
      )[0]!;
      const outcomeOf = async (completion: string) => {
        const env = item.createEnv();
        await env.reset(0);
        const step = await env.step(makeAction(fenceCode(completion)));
        return [step.reward, step.info.outcome];
      };
      expect(await outcomeOf("    return None\n")).toEqual([0, "failed"]);
      expect(await outcomeOf("    while True:\n        pass\n")).toEqual([0, "timeout"]);
      expect(await outcomeOf("    x = bytearray(4 * 1024 ** 3)\n    return True\n")).toEqual([
        0,
        "memory",
      ]);
      expect(
        await outcomeOf(
          "    import socket\n    socket.create_connection(('1.1.1.1', 80), timeout=2)\n",
        ),
      ).toEqual([0, "network"]);
      expect(await outcomeOf("    raise RuntimeError('x')\n")).toEqual([0, "error"]);
      // A whole function (not only the body) also works: it redefines the prompt's stub.
      const whole =
        "def has_close_elements(numbers, threshold):\n    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n";
      expect(await outcomeOf(whole)).toEqual([1, "passed"]);
    });
  },
);
