import { execFileSync } from "node:child_process";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSpadeError } from "../../../errors.js";
import { timed } from "../../../../test/assert.js";
import {
  gradeLcb,
  lcbExtract,
  lcbGlobalTimeoutMs,
  lcbPrompt,
  loadLiveCodeBench,
  parseLcbRow,
  unpickleString,
  LCB_FILES,
  LCB_RELEASES,
  type LcbProblem,
  type LimitedPythonRunner,
} from "./livecodebench.js";
import { PythonSandbox } from "./python-sandbox.js";
import { LCB_ANSWERS, SUM_ROW, TWICE_ROW, writeLcbFixtures } from "./testing/lcb-fixtures.js";
import { sandboxMissing } from "./testing/sandbox-probe.js";
import { skipWithout } from "../../../../test/missing.js";
import { codeAndMessageOf } from "../../../../test/assert.js";
import type { PythonLimits } from "./python-sandbox.js";
import { fileTempDir } from "../../../../test/cleanup.js";

const scratch = fileTempDir("spade-lcb-test-");
await chmod(scratch, 0o711);

const pickle = (text: string, protocol: number) =>
  Buffer.from(
    execFileSync(
      "python3",
      [
        "-c",
        `import pickle, sys\nsys.stdout.buffer.write(pickle.dumps(sys.stdin.read(), protocol=${protocol}))`,
      ],
      { input: text },
    ),
  );

describe("unpickleString", () => {
  it("reads a str pickled by Python with protocols 2 to 5, short and long", () => {
    const long = "x".repeat(70_000) + "é";
    for (const protocol of [2, 3, 4, 5]) {
      expect(unpickleString(pickle('[{"input": "1"}]', protocol))).toBe('[{"input": "1"}]');
      expect(unpickleString(pickle(long, protocol))).toBe(long);
    }
  });

  it("refuses anything but one string (E_IO), so a data file cannot run code", () => {
    const list = Buffer.from(
      execFileSync("python3", [
        "-c",
        "import pickle, sys\nsys.stdout.buffer.write(pickle.dumps([1], protocol=4))",
      ]),
    );
    expect(() => unpickleString(list)).toThrow(/opcode 0x5d/);
    expect(
      codeAndMessageOf(() => unpickleString(Buffer.from([0x80, 0x04, 0x8c, 0x05, 0x61]))),
    ).toEqual({
      code: "E_IO",
      message: expect.stringContaining("truncated pickle"),
    });
  });
});

describe("LiveCodeBench rows", () => {
  it("parses the lite format: public tests JSON, private tests JSON or pickled, func_name from metadata", () => {
    const sum = parseLcbRow(SUM_ROW(), "row 1");
    expect(sum).toMatchObject({
      questionId: "fx-sum",
      platform: "atcoder",
      difficulty: "easy",
      fnName: null,
      starterCode: "",
    });
    expect(sum.publicTests).toEqual([{ input: "1 2\n", output: "3\n", testtype: "stdin" }]);
    expect(sum.privateTests).toEqual([
      { input: "10 -4\n", output: "6\n", testtype: "stdin" },
      { input: "1000000000 1000000000\n", output: "2000000000\n", testtype: "stdin" },
    ]);
    const twice = parseLcbRow(TWICE_ROW(), "row 2");
    expect(twice.fnName).toBe("twice");
    expect(twice.privateTests.map((t) => t.input)).toEqual(["[]", "[-5]"]);
  });

  it("names the file, line and field of a bad row", async () => {
    const dir = join(scratch, "bad");
    writeLcbFixtures(dir);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      join(dir, "test6.jsonl"),
      `${JSON.stringify(SUM_ROW())}\n${JSON.stringify({ ...SUM_ROW(), metadata: 3 })}\n`,
    );
    const err = await loadLiveCodeBench(dir, "v6").catch((e: unknown) => e);
    expect(isSpadeError(err, "E_IO")).toBe(true);
    expect((err as Error).message).toContain(
      `${join(dir, "test6.jsonl")} line 2: field "metadata" is missing or not a string`,
    );
    const missing = await loadLiveCodeBench(dir, "release_v6").catch((e: unknown) => e);
    expect(isSpadeError(missing, "E_IO")).toBe(true);
    expect((missing as Error).message).toContain(join(dir, "test.jsonl"));
    const unknown = await loadLiveCodeBench(dir, "release_v9").catch((e: unknown) => e);
    expect(isSpadeError(unknown, "E_CONFIG")).toBe(true);
  });

  it("loads release_v6 as test.jsonl ... test6.jsonl in that order, v6 as test6.jsonl alone", async () => {
    const dir = join(scratch, "releases");
    for (const f of LCB_FILES) writeLcbFixtures(dir, f);
    expect(LCB_RELEASES.release_v3).toEqual(["test.jsonl", "test2.jsonl", "test3.jsonl"]);
    expect(LCB_RELEASES.release_v6).toEqual(LCB_FILES);
    expect((await loadLiveCodeBench(dir)).length).toBe(18);
    expect((await loadLiveCodeBench(dir, "v6")).map((p) => p.questionId)).toEqual([
      "fx-sum",
      "fx-twice",
      "fx-mean",
    ]);
  });

  it("prompts and extracts as the reference's eval_offline suite", () => {
    expect(lcbPrompt({ content: "Q", starterCode: "" })).toBe(
      "Q\n\nWrite the complete solution in a single ```python ... ``` block.",
    );
    expect(lcbPrompt({ content: "Q", starterCode: "class S:\n    pass" })).toBe(
      "Q\n\nStarter code:\n```python\nclass S:\n    pass\n```\n\nWrite the complete solution in a single ```python ... ``` block.",
    );
    expect(
      lcbExtract(
        "draft\n```python\ndef wrong(): pass\n```\nfixed\n```python\ndef final(): return 42\n```",
      ),
    ).toBe("def final(): return 42");
    expect(lcbExtract("```\nprint(1)\n```")).toBe("```\nprint(1)\n```");
    expect(lcbExtract("print(2)")).toBe("print(2)");
  });

  // A generous bound: the regex alone took about 30 s here (quadratic in the blank lines).
  it("reads an unclosed block opening over 256K blank lines in linear time", () => {
    const text = `\`\`\`python${"\n".repeat(262_144)}x`;
    const extracted = timed(() => lcbExtract(text));
    expect(extracted.value).toBe(text);
    expect(extracted.ms).toBeLessThan(2000);
    expect(lcbExtract("```python\n\n```")).toBe("");
  });
});

describe("gradeLcb limits", () => {
  it("runs the check once with LCB's global limit (7 s per test + 5 s) and 4 GiB", async () => {
    const seen: Array<Partial<PythonLimits> | undefined> = [];
    // TEST DOUBLE: records the limits and answers as a harness that passed every test.
    const runner: LimitedPythonRunner = {
      run: async (_source, limits) => {
        seen.push(limits);
        return {
          outcome: "passed",
          detail: "",
          exitCode: 0,
          stdout: '__SPADE_LCB_VERDICT__ {"results": [true, true, true], "meta": {}}\n',
          stderr: "",
          durationMs: 5,
        };
      },
    };
    const problem = parseLcbRow(SUM_ROW(), "row");
    expect(await gradeLcb(runner, problem, "print(3)")).toEqual({
      passed: true,
      results: [true, true, true],
      message: "",
      outcome: "passed",
      durationMs: 5,
    });
    expect(seen).toEqual([{ timeoutMs: 26_000, cpuSeconds: 26, memoryBytes: 4 * 1024 ** 3 }]);
    expect(lcbGlobalTimeoutMs(10)).toBe(75_000);
  });

  it("counts a run killed before its verdict as LCB's global timeout (-1 per test)", async () => {
    const runner: LimitedPythonRunner = {
      run: async () => ({
        outcome: "timeout",
        detail: "wall-clock limit",
        exitCode: null,
        stdout: "",
        stderr: "",
        durationMs: 26_000,
      }),
    };
    const v = await gradeLcb(runner, parseLcbRow(SUM_ROW(), "row"), "x");
    expect(v).toMatchObject({ passed: false, results: [-1, -1, -1], message: "global timeout" });
  });
});

const probe = await PythonSandbox.create({ maxConcurrency: 2, tmpDir: scratch }).catch(
  (err: unknown) => err,
);
const sandbox = probe as PythonSandbox;

describe.skipIf(skipWithout(sandboxMissing(probe)))(
  "gradeLcb in the Python sandbox (LCB's rules)",
  () => {
    let sum: LcbProblem;
    let twice: LcbProblem;
    let mean: LcbProblem;
    it("loads the fixtures", async () => {
      [sum, twice, mean] = (await loadLiveCodeBench(
        writeLcbFixtures(join(scratch, "fx")),
        "v6",
      )) as [LcbProblem, LcbProblem, LcbProblem];
      expect(sum.questionId).toBe("fx-sum");
    });

    it("stdin/stdout: right passes every test; wrong answer, runtime error and time limit fail as LCB records them", async () => {
      const grade = (answer: string, timeout?: number) =>
        gradeLcb(sandbox, sum, lcbExtract(answer), timeout);
      expect(await grade(LCB_ANSWERS.sum.right)).toMatchObject({
        passed: true,
        results: [true, true, true],
        message: "",
        outcome: "passed",
      });
      expect(await grade(LCB_ANSWERS.sum.wrong)).toMatchObject({
        passed: false,
        results: [-2],
        message: "Wrong answer at output_line_idx=0: -1 != 3",
      });
      expect(await grade(LCB_ANSWERS.sum.error)).toMatchObject({
        passed: false,
        results: [-4],
        message: "Runtime Error",
      });
      const slow = await grade(LCB_ANSWERS.sum.timeout, 1);
      expect(slow).toMatchObject({ passed: false, results: [-3], message: "Time Limit Exceeded" });
      expect(slow.durationMs).toBeLessThan(8_000);
      expect(await grade("```python\ndef broken(:\n```")).toMatchObject({
        passed: false,
        results: [-4],
      });
      expect((await grade("```python\nprint(3)\n```")).results).toEqual([true, -2]);
    });

    it("functional: Solution().fn(*json args), tuples count as lists; a short list is a wrong answer (recorded as false, as LCB does)", async () => {
      expect(await gradeLcb(sandbox, twice, lcbExtract(LCB_ANSWERS.twice.right))).toMatchObject({
        passed: true,
        results: [true, true, true],
      });
      expect(await gradeLcb(sandbox, twice, lcbExtract(LCB_ANSWERS.twice.wrong))).toMatchObject({
        passed: false,
        results: [false],
        message: "Wrong Answer",
      });
    });

    it("compares output lines as decimals when they differ as text, and runs code under a __main__ guard", async () => {
      expect(await gradeLcb(sandbox, mean, lcbExtract(LCB_ANSWERS.mean.right))).toMatchObject({
        passed: true,
        results: [true, true],
      });
    });
  },
);
