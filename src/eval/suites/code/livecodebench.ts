/**
 * @module eval/suites/code/livecodebench
 * LiveCodeBench code generation as the SPADE reference evaluates it (eval_offline/suites/
 * livecodebench.py over lcb_runner): rows of Hugging Face `livecodebench/code_generation_lite`
 * (`test.jsonl` ... `test6.jsonl`; private tests as JSON or base64(zlib(pickle(JSON)))), the
 * reference's prompt and code extraction, and grading by LCB's rules in the Python sandbox.
 */
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { SpadeError } from "../../../errors.js";
import type { JsonObject } from "../../../env/index.js";
import { readJsonl } from "../../data.js";
import { LCB_VERDICT_MARK, lcbHarness } from "./lcb-harness.js";
import type { PythonLimits, PythonRunResult } from "./python-sandbox.js";

/** One test: stdin text and expected stdout, or JSON lines of arguments and the JSON result. */
export interface LcbTest {
  input: string;
  output: string;
  testtype: "stdin" | "functional";
}

/** One problem, as LCB's `CodeGenerationProblem` holds it. */
export interface LcbProblem {
  questionId: string;
  title: string;
  content: string;
  platform: string;
  contestId: string;
  contestDate: string;
  starterCode: string;
  difficulty: string;
  publicTests: LcbTest[];
  privateTests: LcbTest[];
  /** `metadata.func_name`: the method called for functional tests; null for stdin/stdout problems. */
  fnName: string | null;
}

/** The files of `code_generation_lite`, in release order: release_vN is the first N. */
export const LCB_FILES: readonly string[] = Object.freeze([
  "test.jsonl",
  "test2.jsonl",
  "test3.jsonl",
  "test4.jsonl",
  "test5.jsonl",
  "test6.jsonl",
]);

/** The files of each release tag, as `code_generation_lite`'s loading script names them. */
export const LCB_RELEASES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  ...Object.fromEntries(LCB_FILES.map((_, i) => [`release_v${i + 1}`, LCB_FILES.slice(0, i + 1)])),
  v6: ["test6.jsonl"],
});

/** The release the reference's table runs (eval_offline/configs/games.yaml). */
export const LCB_DEFAULT_RELEASE = "release_v6";

/** LCB's time limit per test, in seconds (`timeout=6` throughout lcb_runner). */
export const LCB_TIMEOUT_SECONDS = 6;

/** LCB's limit on the whole check: `(timeout + 1) * tests + 5` seconds; past it every test counts as failed (-1). */
export function lcbGlobalTimeoutMs(tests: number, timeoutSeconds = LCB_TIMEOUT_SECONDS): number {
  return ((timeoutSeconds + 1) * tests + 5) * 1000;
}

function bad(where: string, what: string, cause?: unknown): SpadeError {
  return new SpadeError("E_IO", `${where}: ${what}`, {
    nextStep: "see docs/eval-suites.md (LiveCodeBench) for the row format",
    cause,
  });
}

/**
 * The one string a pickle holds (protocols 1-5: PROTO, FRAME, memo opcodes, the BINUNICODE
 * family, STOP). LCB pickles the JSON text of the private tests; anything else is refused
 * rather than interpreted, so a data file cannot run code.
 */
export function unpickleString(bytes: Uint8Array, where = "pickle"): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  let value: string | null = null;
  const need = (n: number) => {
    if (at + n > buf.length) throw bad(where, "truncated pickle");
  };
  const text = (n: number) => {
    need(n);
    const s = buf.toString("utf8", at, at + n);
    at += n;
    return s;
  };
  for (;;) {
    need(1);
    const op = buf[at++] as number;
    if (op === 0x80)
      at += 1; // PROTO n
    else if (op === 0x95)
      at += 8; // FRAME length
    else if (op === 0x94)
      continue; // MEMOIZE
    else if (op === 0x71)
      at += 1; // BINPUT
    else if (op === 0x72)
      at += 4; // LONG_BINPUT
    else if (op === 0x8c) {
      need(1);
      value = text(buf[at++] as number); // SHORT_BINUNICODE
    } else if (op === 0x58) {
      need(4);
      const n = buf.readUInt32LE(at);
      at += 4;
      value = text(n); // BINUNICODE
    } else if (op === 0x8d) {
      need(8);
      const n = Number(buf.readBigUInt64LE(at));
      at += 8;
      value = text(n); // BINUNICODE8
    } else if (op === 0x2e) {
      if (value === null) throw bad(where, "the pickle holds no string");
      return value; // STOP
    } else
      throw bad(
        where,
        `the pickle holds something other than one string (opcode 0x${op.toString(16)})`,
      );
  }
}

function testList(value: unknown, where: string): LcbTest[] {
  if (!Array.isArray(value)) throw bad(where, "tests are not a list");
  return value.map((t, i) => {
    const r = t as Record<string, unknown>;
    if (
      typeof r !== "object" ||
      r === null ||
      typeof r.input !== "string" ||
      typeof r.output !== "string" ||
      (r.testtype !== "stdin" && r.testtype !== "functional")
    ) {
      throw bad(where, `test ${i} is not {"input", "output", "testtype": "stdin"|"functional"}`);
    }
    return { input: r.input, output: r.output, testtype: r.testtype };
  });
}

/** The private tests: JSON text, else base64(zlib(pickle(JSON text))) as LCB's lite files store them. */
export function decodePrivateTests(text: string, where: string): LcbTest[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    try {
      parsed = JSON.parse(unpickleString(inflateSync(Buffer.from(text, "base64")), where));
    } catch (err) {
      if (err instanceof SpadeError) throw err;
      throw bad(where, "private_test_cases is neither JSON nor base64(zlib(pickle(JSON)))", err);
    }
  }
  return testList(parsed, `${where} private_test_cases`);
}

const STRING_FIELDS = [
  "question_title",
  "question_content",
  "platform",
  "question_id",
  "contest_id",
  "contest_date",
  "starter_code",
  "difficulty",
  "public_test_cases",
  "private_test_cases",
  "metadata",
] as const;

/** One row of a `code_generation_lite` file (every field a string, tests and metadata JSON-encoded). */
export function parseLcbRow(row: unknown, where: string): LcbProblem {
  const r = row as Record<string, unknown>;
  if (typeof r !== "object" || r === null) throw bad(where, "not an object");
  for (const f of STRING_FIELDS)
    if (typeof r[f] !== "string") throw bad(where, `field "${f}" is missing or not a string`);
  const s = r as Record<(typeof STRING_FIELDS)[number], string>;
  let publicTests: unknown;
  let metadata: unknown;
  try {
    publicTests = JSON.parse(s.public_test_cases);
    metadata = JSON.parse(s.metadata);
  } catch (err) {
    throw bad(where, "public_test_cases or metadata is not JSON", err);
  }
  const fn = (metadata as { func_name?: unknown } | null)?.func_name;
  return {
    questionId: s.question_id,
    title: s.question_title,
    content: s.question_content,
    platform: s.platform,
    contestId: s.contest_id,
    contestDate: s.contest_date,
    starterCode: s.starter_code,
    difficulty: s.difficulty,
    publicTests: testList(publicTests, `${where} public_test_cases`),
    privateTests: decodePrivateTests(s.private_test_cases, where),
    fnName: typeof fn === "string" ? fn : null,
  };
}

/** The problems of a release from the folder holding its files (E_IO names a missing file). */
export async function loadLiveCodeBench(
  dir: string,
  release: string = LCB_DEFAULT_RELEASE,
): Promise<LcbProblem[]> {
  const files = LCB_RELEASES[release];
  if (!files)
    throw new SpadeError("E_CONFIG", `unknown LiveCodeBench release "${release}"`, {
      nextStep: `one of ${Object.keys(LCB_RELEASES).join(", ")}`,
    });
  const problems: LcbProblem[] = [];
  for (const file of files) {
    const path = join(dir, file);
    const rows = await readJsonl(path);
    for (const [i, row] of rows.entries()) problems.push(parseLcbRow(row, `${path} line ${i + 1}`));
  }
  return problems;
}

/** The reference's prompt (eval_offline `_format_prompt`): the question, the starter code if any, the answer format. */
export function lcbPrompt(problem: Pick<LcbProblem, "content" | "starterCode">): string {
  const parts = [problem.content];
  if (problem.starterCode)
    parts.push("\nStarter code:\n```python\n" + problem.starterCode + "\n```");
  parts.push("\nWrite the complete solution in a single ```python ... ``` block.");
  return parts.join("\n");
}

/** The reference's extraction: the last ```python block (`python\s*\n(.*?)\n````), else the whole text. */
export function lcbExtract(text: string): string {
  // Every match ends with a closing "\n```", so the text after the last one cannot change them;
  // without it, an opening line followed by many blank lines and no close is retried from each
  // of them (quadratic).
  const closed = text.slice(0, text.lastIndexOf("\n```") + 4);
  const all = [...closed.matchAll(/```python\s*\n([\s\S]*?)\n```/g)];
  const last = all[all.length - 1];
  return last ? (last[1] as string) : text;
}

/** Anything that runs a Python program under given limits (the sandbox, or a test double). */
export interface LimitedPythonRunner {
  run(source: string, limits?: Partial<PythonLimits>): Promise<PythonRunResult>;
}

/** LCB's verdict on one answer. */
export interface LcbVerdict {
  /** Every test passed. */
  passed: boolean;
  /**
   * Per test run, as LCB records it: true; false (functional wrong answer); -1 global timeout,
   * -2 wrong answer (stdin/stdout), -3 time limit, -4 runtime error.
   */
  results: Array<boolean | number>;
  /** LCB's error_message of the first failure ("" when passed). */
  message: string;
  /** How the sandbox run ended (passed when the harness finished, whatever the tests said). */
  outcome: string;
  durationMs: number;
}

/** Memory of a check: LCB's comment says 4 GB (its guard sets none); the sandbox enforces it. */
export const LCB_MEMORY_BYTES = 4 * 1024 ** 3;

/**
 * Grades `code` on all of the problem's tests (public then private) with LCB's rules, in one
 * sandbox run bounded by LCB's global limit. A run that ends without a verdict counts as LCB's
 * global timeout (-1 for every test) when it ran out of time, else as a runtime error.
 */
export async function gradeLcb(
  runner: LimitedPythonRunner,
  problem: LcbProblem,
  code: string,
  timeoutSeconds = LCB_TIMEOUT_SECONDS,
): Promise<LcbVerdict> {
  const tests = [...problem.publicTests, ...problem.privateTests];
  const globalMs = lcbGlobalTimeoutMs(tests.length, timeoutSeconds);
  const program = lcbHarness({
    code,
    inputs: tests.map((t) => t.input),
    outputs: tests.map((t) => t.output),
    fnName: problem.fnName,
    timeoutSeconds,
  });
  const run = await runner.run(program, {
    timeoutMs: globalMs,
    cpuSeconds: Math.ceil(globalMs / 1000),
    memoryBytes: LCB_MEMORY_BYTES,
  });
  const line = run.stdout
    .split("\n")
    .reverse()
    .find((l) => l.startsWith(`${LCB_VERDICT_MARK} `));
  if (line === undefined) {
    if (run.outcome === "timeout")
      return {
        passed: false,
        results: tests.map(() => -1),
        message: "global timeout",
        outcome: run.outcome,
        durationMs: run.durationMs,
      };
    return {
      passed: false,
      results: [-4],
      message: `the check ended without a verdict: ${run.outcome} ${run.detail}`.trim(),
      outcome: run.outcome,
      durationMs: run.durationMs,
    };
  }
  const doc = JSON.parse(line.slice(LCB_VERDICT_MARK.length + 1)) as {
    results: Array<boolean | number>;
    meta: Record<string, unknown>;
  };
  const passed = doc.results.length === tests.length && doc.results.every((r) => r === true);
  const message = passed ? "" : String(doc.meta.error_message ?? "");
  return {
    passed,
    results: doc.results,
    message,
    outcome: run.outcome,
    durationMs: run.durationMs,
  };
}

/** A verdict as the per-item record keeps it. */
export function verdictInfo(v: LcbVerdict): JsonObject {
  return {
    passed: v.passed,
    results: v.results,
    message: v.message,
    outcome: v.outcome,
    durationMs: v.durationMs,
  };
}
