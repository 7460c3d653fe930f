/**
 * @module env/reference-gate
 * The reference's validation gate (`--validation reference`), for ablations and comparisons: load,
 * meta, reset, three probe steps, reset again, within the sandbox's limits. It proves an
 * environment runs, not that it can be won; the strict validator (`checkEnv`) stays the default.
 */
import { makeAction } from "./action.js";
import type { EnvOpener } from "./check.js";
import type { CheckCode, CheckReport, CheckResult } from "./check-recorder.js";
import { metaProblems, resetProblems, stepProblems } from "./shape.js";
import type { Env, EnvMeta } from "./types.js";

/**
 * The reference's gate actions and seeds (`synthetic_game_env.py:SyntheticGameEnv._validate_game_execution`):
 * `reset(seed=42)`, then the three texts below until one ends the episode, then `reset(seed=123)`.
 */
export const REFERENCE_GATE = Object.freeze({
  firstSeed: 42,
  secondSeed: 123,
  actions: Object.freeze(["\\boxed{1}", "\\boxed{test}", "\\boxed{42}"]),
});

const LIMIT_CODES: Record<string, CheckCode> = {
  E_SANDBOX_TIMEOUT: "E_TIMEOUT",
  E_SANDBOX_MEMORY: "E_MEMORY",
  E_SANDBOX_OUTPUT_SIZE: "E_OUTPUT_SIZE",
};

/** Why a gate stage failed: its check code (a limit code when a sandbox limit was hit) and message. */
class GateFailure extends Error {
  constructor(
    readonly code: CheckCode,
    message: string,
  ) {
    super(message);
  }
}

/** Runs `fn`; a thrown error becomes a GateFailure under `code`, or under its limit code. */
async function stage<T>(code: CheckCode, context: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const errCode =
      typeof err === "object" && err !== null && "code" in err
        ? String((err as { code: unknown }).code)
        : "";
    // A contract error while loading is a meta problem, as in the validator.
    const fallback = code === "E_COMPILE" && errCode === "E_ENV_CONTRACT" ? "E_META" : code;
    throw new GateFailure(
      LIMIT_CODES[errCode] ?? fallback,
      `${context}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

async function runGate(env: Env): Promise<string[]> {
  const passed: string[] = [];
  const first = await stage("E_RESET", `reset(${REFERENCE_GATE.firstSeed})`, () =>
    env.reset(REFERENCE_GATE.firstSeed),
  );
  const resetIssues = resetProblems(first);
  if (resetIssues.length)
    throw new GateFailure("E_RESET", `reset(${REFERENCE_GATE.firstSeed}): ${resetIssues[0]}`);
  let turns = 0;
  for (const text of REFERENCE_GATE.actions) {
    const action = makeAction(text);
    const result = await stage("E_STEP", `step(${JSON.stringify(text)})`, () => env.step(action));
    const issues = stepProblems(result, action);
    if (issues.length)
      throw new GateFailure("E_STEP", `step(${JSON.stringify(text)}): ${issues[0]}`);
    turns++;
    if (result.terminated || result.truncated) break;
  }
  passed.push(
    `reset(${REFERENCE_GATE.firstSeed}) and ${turns} probe step${turns === 1 ? "" : "s"} return valid results`,
  );
  await stage("E_RESET", `second reset(${REFERENCE_GATE.secondSeed})`, () =>
    env.reset(REFERENCE_GATE.secondSeed),
  );
  return passed;
}

/**
 * Validates an environment the reference's way (see `REFERENCE_GATE`). The report has the
 * validator's shape and codes: `E_COMPILE`, `E_META`, `E_RESET`, `E_STEP`, or a limit code
 * (`E_TIMEOUT`, `E_MEMORY`, `E_OUTPUT_SIZE`); the first failure ends the gate, as in the
 * reference. Results must fit SPADE's contract (rewards in [-1, 1]; the reference accepts
 * [-10, 10]) because the runner needs them to. `hint()`, `solve()` and determinism are not
 * checked: with `--hints program` an environment whose `hint()` throws fails only its hinted plays.
 */
export async function referenceGate(open: EnvOpener): Promise<CheckReport> {
  const checks: CheckResult[] = [];
  let meta: EnvMeta | null = null;
  let env: Env | undefined;
  const report = (): CheckReport => {
    const failures = checks.filter((c) => !c.ok).map((c) => c.code);
    return { ok: failures.length === 0, failures, checks, meta };
  };
  try {
    env = await stage("E_COMPILE", "loading the program", open);
    checks.push({
      code: "E_COMPILE",
      ok: true,
      message: "the program compiles and defines Environment",
    });
    const metaIssues = metaProblems(env.meta);
    if (metaIssues.length) {
      checks.push({ code: "E_META", ok: false, message: metaIssues.join("; ") });
      return report();
    }
    meta = env.meta;
    checks.push({ code: "E_META", ok: true, message: "meta is valid" });
    const passed = await runGate(env);
    checks.push({ code: "E_RESET", ok: true, message: passed[0] as string });
  } catch (err) {
    if (!(err instanceof GateFailure)) throw err;
    checks.push({ code: err.code, ok: false, message: err.message });
  } finally {
    await env?.close().catch(() => undefined);
  }
  return report();
}
