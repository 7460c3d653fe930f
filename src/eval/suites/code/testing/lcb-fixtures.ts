/**
 * @module eval/suites/code/testing/lcb-fixtures
 * TEST FIXTURES: small LiveCodeBench problems written in `code_generation_lite`'s row format (private
 * tests pickled, compressed and base64-encoded by the real Python `pickle`/`zlib`), with right
 * answers and answers that fail in each of LCB's ways. Used by unit and e2e tests only.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LcbTest } from "../livecodebench.js";

/** base64(zlib(pickle(text))) made by python3, as the lite files store private tests. */
export function pickledTests(tests: readonly LcbTest[], protocol = 4): string {
  const script = `import base64, pickle, sys, zlib\nsys.stdout.write(base64.b64encode(zlib.compress(pickle.dumps(sys.stdin.read(), protocol=${protocol}))).decode())`;
  return execFileSync("python3", ["-c", script], {
    input: JSON.stringify(tests),
    encoding: "utf8",
  });
}

/** One row in the lite format; `pickle` chooses how the private tests are stored. */
export function lcbRow(options: {
  id: string;
  content: string;
  starter?: string;
  fnName?: string;
  publicTests: LcbTest[];
  privateTests: LcbTest[];
  pickle: boolean;
  difficulty?: string;
}): Record<string, string> {
  return {
    question_title: `fixture ${options.id}`,
    question_content: options.content,
    platform: options.fnName ? "leetcode" : "atcoder",
    question_id: options.id,
    contest_id: "fixture",
    contest_date: "2025-03-01T00:00:00",
    starter_code: options.starter ?? "",
    difficulty: options.difficulty ?? "easy",
    public_test_cases: JSON.stringify(options.publicTests),
    private_test_cases: options.pickle
      ? pickledTests(options.privateTests)
      : JSON.stringify(options.privateTests),
    metadata: JSON.stringify(options.fnName ? { func_name: options.fnName } : {}),
  };
}

/** One fixture problem, as `lcbRow` takes it; the problems are data (lcb-problems.json). */
type LcbProblem = Parameters<typeof lcbRow>[0];
const PROBLEMS = JSON.parse(
  readFileSync(new URL("./lcb-problems.json", import.meta.url), "utf8"),
) as LcbProblem[];
const problem = (id: string): LcbProblem => PROBLEMS.find((p) => p.id === id)!;

/** Problem 1 (stdin/stdout): print the sum of two integers on one line. */
export const SUM_ROW = () => lcbRow(problem("fx-sum"));

/** Problem 2 (functional, LeetCode style): `Solution().twice(nums)` doubles every element. */
export const TWICE_ROW = () => lcbRow(problem("fx-twice"));

/** Problem 3 (stdin/stdout): print the average of N numbers (compared as decimals, as LCB does). */
export const MEAN_ROW = () => lcbRow(problem("fx-mean"));

/** Answers to the fixtures, by problem and kind. */
export const LCB_ANSWERS = {
  sum: {
    right: "```python\na, b = map(int, input().split())\nprint(a + b)\n```",
    wrong: "```python\na, b = map(int, input().split())\nprint(a - b)\n```",
    timeout: "```python\nimport sys\ndata = sys.stdin.read()\nwhile True:\n    pass\n```",
    error: "```python\na, b = input().split()\nprint(a + b + 1)\n```",
  },
  twice: {
    right:
      "```python\nclass Solution:\n    def twice(self, nums):\n        return tuple(2 * x for x in nums)\n```",
    wrong:
      "```python\nclass Solution:\n    def twice(self, nums):\n        return [2 * x for x in nums[:1]]\n```",
  },
  mean: {
    // The first test expects "1.5", the answer prints "1.50": equal as decimals.
    right:
      "```python\nimport sys\ndef main():\n    n = int(sys.stdin.readline())\n    xs = list(map(int, sys.stdin.readline().split()))\n    print('%.2f' % (sum(xs) / n))\nif __name__ == \"__main__\":\n    main()\n```",
  },
} as const;

/** Writes the three fixture problems as `<dir>/test6.jsonl` (the v6 file) and returns the folder. */
export function writeLcbFixtures(dir: string, file = "test6.jsonl"): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, file),
    [SUM_ROW(), TWICE_ROW(), MEAN_ROW()].map((r) => JSON.stringify(r)).join("\n") + "\n",
  );
  return dir;
}
