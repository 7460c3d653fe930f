/**
 * @module env/check-recorder
 * The validator's report: its check codes, and the recorder that collects each check's outcome,
 * codes the errors environments throw and stops the validation when its limits are reached.
 */
import { WatchdogKill } from "../errors.js";
import type { EnvMeta } from "./types.js";

/** The validator's check codes, in the order the checks run. Stable: documented in docs/validation.md. */
export const CHECK_CODES = [
  "E_COMPILE",
  "E_META",
  "E_RESET",
  "E_HINT",
  "E_STEP",
  "E_ORACLE",
  "E_NONDETERMINISTIC",
  "E_TRIVIAL",
  "E_TIMEOUT",
  "E_MEMORY",
  "E_OUTPUT_SIZE",
  "E_TIME_BUDGET",
] as const;

/** One validator check code. */
export type CheckCode = (typeof CHECK_CODES)[number];

/** The outcome of one check. */
export interface CheckResult {
  code: CheckCode;
  ok: boolean;
  message: string;
}

/** The validator's report. Checks that could not run (after a fatal failure) are absent. */
export interface CheckReport {
  ok: boolean;
  /** Codes of the failed checks, in check order. */
  failures: CheckCode[];
  checks: CheckResult[];
  /** The environment's meta when it could be read. */
  meta: EnvMeta | null;
}

/** Thrown inside the validator to stop after too many limit errors. */
export class StopChecking extends Error {}

const LIMIT_CODES: Record<string, CheckCode> = {
  E_SANDBOX_TIMEOUT: "E_TIMEOUT",
  E_SANDBOX_MEMORY: "E_MEMORY",
  E_SANDBOX_OUTPUT_SIZE: "E_OUTPUT_SIZE",
};
const METHOD_CODES: Record<string, CheckCode> = {
  open: "E_COMPILE",
  reset: "E_RESET",
  step: "E_STEP",
  hint: "E_HINT",
  solve: "E_ORACLE",
};

/**
 * Collects check outcomes: the first failure message of a code wins; counts the rest. Codes a
 * thrown error by the method that threw it and by its sandbox limit; throws `StopChecking` once
 * too many limit errors were seen or the wall-time budget is spent.
 */
export class Recorder {
  private readonly failed = new Map<CheckCode, { message: string; more: number }>();
  private readonly passed = new Map<CheckCode, string>();
  limitErrors = 0;

  constructor(
    private readonly maxLimitErrors: number,
    private readonly budget: { budgetMs: number; now: () => number; startedMs: number },
  ) {}

  /** Stops checking (E_TIME_BUDGET) once the validation's wall-time budget is spent. */
  checkBudget(context: string): void {
    const spentMs = this.budget.now() - this.budget.startedMs;
    if (spentMs < this.budget.budgetMs) return;
    this.fail(
      "E_TIME_BUDGET",
      `the validation used its ${this.budget.budgetMs} ms budget (${spentMs} ms) before ${context}; the checks after it did not run`,
    );
    throw new StopChecking();
  }

  fail(code: CheckCode, message: string): void {
    const prev = this.failed.get(code);
    if (prev) prev.more++;
    else this.failed.set(code, { message, more: 0 });
  }

  pass(code: CheckCode, message: string): void {
    if (!this.passed.has(code)) this.passed.set(code, message);
  }

  /**
   * Records a thrown error of `method` under its codes; stops checking after too many limit
   * errors, or at once after a call the sandbox's watchdog had to end: each such call costs its
   * deadline plus the watchdog's grace (2 s), and a validation is bounded by its deadlines.
   */
  error(err: unknown, method: string, context: string): void {
    const code =
      typeof err === "object" && err !== null && "code" in err
        ? String((err as { code: unknown }).code)
        : "";
    const message = `${context}: ${err instanceof Error ? err.message : String(err)}`;
    const limit = LIMIT_CODES[code];
    if (limit) this.fail(limit, message);
    if (method === "open" && code === "E_ENV_CONTRACT") this.fail("E_META", message);
    else this.fail(METHOD_CODES[method] ?? "E_STEP", message);
    if (limit && ++this.limitErrors >= this.maxLimitErrors) throw new StopChecking();
    if (typeof err === "object" && err !== null && (err as Error).cause instanceof WatchdogKill)
      throw new StopChecking();
  }

  report(meta: EnvMeta | null): CheckReport {
    const checks: CheckResult[] = [];
    for (const code of CHECK_CODES) {
      const f = this.failed.get(code);
      if (f)
        checks.push({
          code,
          ok: false,
          message: f.more ? `${f.message} (and ${f.more} more)` : f.message,
        });
      else if (this.passed.has(code))
        checks.push({ code, ok: true, message: this.passed.get(code) as string });
    }
    const failures = checks.filter((c) => !c.ok).map((c) => c.code);
    return { ok: failures.length === 0, failures, checks, meta };
  }
}

/** Calls `fn`, recording a thrown error under `method`; returns undefined when it threw. */
export async function guarded<T>(
  rec: Recorder,
  method: string,
  context: string,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  rec.checkBudget(context);
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StopChecking) throw err;
    rec.error(err, method, context);
    return undefined;
  }
}
