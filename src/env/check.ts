/**
 * @module env/check
 * The validator: `checkEnv` proves an environment usable before it may enter the pool. A failed
 * design is data: the report (check-recorder.ts) lists each check with a stable code, never throws.
 */
import { SpadeError } from "../errors.js";
import { episodeReturn, isSuccess } from "./returns.js";
import { probeActions, trivialPolicies } from "./probes.js";
import { hintProblems, metaProblems, resetProblems, stepProblems } from "./shape.js";
import type { Action, Env, EnvMeta, OracleTurn, StepResult } from "./types.js";
import { type CheckReport, guarded, Recorder, StopChecking } from "./check-recorder.js";

/** Default of `CheckOptions.budgetMs`: the wall time one validation may take in all. */
export const DEFAULT_VALIDATION_BUDGET_MS = 60_000;

/** Validator settings. */
export interface CheckOptions {
  /** Seeds for reset, hint, oracle and replay checks. Default [0, 1, 2, 3]. */
  seeds?: readonly number[];
  /** Seeds for each trivial policy. Default [0, 1, 2, 3, 4]. */
  trivialSeeds?: readonly number[];
  /** Stop running further checks after this many limit errors (timeout/memory/size). Default 3. */
  maxLimitErrors?: number;
  /**
   * Wall time the whole validation may take, in ms (each call also has its own sandbox deadline).
   * Checked before every call: once spent, E_TIME_BUDGET fails and no further check runs.
   * Default DEFAULT_VALIDATION_BUDGET_MS (60 s).
   */
  budgetMs?: number;
  /** The clock, in ms. Default `Date.now`. */
  now?: () => number;
}

/** Opens a fresh instance of the environment under test (compiles it, for programs). */
export type EnvOpener = () => Promise<Env>;

/** One recorded episode: what the agent did and what the environment answered. */
interface Trace {
  firstObservation: string;
  actions: Action[];
  steps: StepResult[];
}

/**
 * One turn of an episode: the action taken and the step's result, or undefined when a call
 * failed (recorded). `stepContext` names the step in the report.
 */
type Turn = (observation: string, stepContext: string) => Promise<OracleTurn | undefined>;

/** The turn that asks `nextAction` for the action, then steps it: each call guarded. */
function actThenStep(
  env: Env,
  rec: Recorder,
  nextAction: (observation: string) => Promise<Action | undefined>,
): Turn {
  return async (observation, stepContext) => {
    const action = await nextAction(observation);
    if (!action) return undefined;
    const result = await guarded(rec, "step", stepContext, () => env.step(action));
    return result && { action, result };
  };
}

/**
 * The oracle's turn on seed `seed`: `solve()`, then `step()` with its action. Where the env has
 * `solveAndStep` (a sandboxed program: one round trip), it is recorded as the two guarded calls
 * are (a failed solve under `solve`, a failed step under `step` with the step's context), except
 * that the wall-time budget is checked once, before the turn: the clock cannot be read between
 * the two calls. The next call's check comes after the turn, as it came after the step.
 */
function oracleTurnOn(env: Env, rec: Recorder, seed: number): Turn {
  const solveContext = `solve() on seed ${seed}`;
  const solveAndStep = env.solveAndStep?.bind(env);
  if (!solveAndStep)
    return actThenStep(env, rec, () => guarded(rec, "solve", solveContext, () => env.solve()));
  return async (_observation, stepContext) => {
    const turn = await guarded(rec, "solve", solveContext, solveAndStep);
    if (!turn) return undefined;
    if (!("stepError" in turn)) return turn;
    rec.error(turn.stepError, "step", stepContext);
    return undefined;
  };
}

/**
 * Plays one episode from `reset(seed)`, one `takeTurn` a turn, checking every result's shape.
 * Returns the trace, or undefined when a call failed or broke the contract (already recorded).
 */
async function playEpisode(
  env: Env,
  rec: Recorder,
  seed: number,
  context: string,
  takeTurn: Turn,
  maxSteps = env.meta.maxTurns,
): Promise<Trace | undefined> {
  const reset = await guarded(rec, "reset", `${context}, reset(${seed})`, () => env.reset(seed));
  if (!reset) return undefined;
  const problems = resetProblems(reset);
  if (problems.length)
    return void rec.fail("E_RESET", `${context}, reset(${seed}): ${problems[0]}`);
  const trace: Trace = { firstObservation: reset.observation, actions: [], steps: [] };
  let observation = reset.observation;
  for (let turn = 0; turn < maxSteps; turn++) {
    const played = await takeTurn(observation, `${context}, seed ${seed}, turn ${turn + 1}`);
    if (!played) return undefined;
    const { action, result } = played;
    const stepIssues = stepProblems(result, action);
    if (stepIssues.length)
      return void rec.fail(
        "E_STEP",
        `${context}, seed ${seed}, turn ${turn + 1}: ${stepIssues[0]}`,
      );
    trace.actions.push(action);
    trace.steps.push(result);
    observation = result.observation;
    if (result.terminated || result.truncated) break;
  }
  return trace;
}

function traceReturn(trace: Trace): number {
  return episodeReturn(trace.steps.map((s) => s.reward));
}

/** The first difference between two traces of the same actions, or null. */
function traceDifference(a: Trace, b: Trace): string | null {
  if (a.firstObservation !== b.firstObservation) return "the first observation differs";
  if (a.steps.length !== b.steps.length)
    return `the episode lasted ${a.steps.length} then ${b.steps.length} turns`;
  for (let i = 0; i < a.steps.length; i++) {
    const x = a.steps[i] as StepResult;
    const y = b.steps[i] as StepResult;
    if (x.observation !== y.observation) return `turn ${i + 1}: the observation differs`;
    if (x.reward !== y.reward) return `turn ${i + 1}: reward ${x.reward} then ${y.reward}`;
    if (x.terminated !== y.terminated || x.truncated !== y.truncated)
      return `turn ${i + 1}: termination differs`;
  }
  return null;
}

/** Replays `trace`'s actions from `reset(seed)` and records any difference as nondeterminism. */
async function replay(
  env: Env,
  rec: Recorder,
  seed: number,
  trace: Trace,
  context: string,
): Promise<void> {
  const actions = [...trace.actions];
  const again = await playEpisode(
    env,
    rec,
    seed,
    context,
    actThenStep(env, rec, async () => actions.shift()),
    trace.actions.length,
  );
  if (!again) return;
  const diff = traceDifference(trace, again);
  if (diff) rec.fail("E_NONDETERMINISTIC", `${context} of seed ${seed}: ${diff}`);
}

/**
 * Validates an environment. `open` must return a fresh instance each call; the validator opens
 * two (the second to check determinism across instances) and closes both.
 */
export async function checkEnv(open: EnvOpener, options: CheckOptions = {}): Promise<CheckReport> {
  const seeds = options.seeds ?? [0, 1, 2, 3];
  const trivialSeeds = options.trivialSeeds ?? [0, 1, 2, 3, 4];
  const budgetMs = options.budgetMs ?? DEFAULT_VALIDATION_BUDGET_MS;
  if (!(budgetMs > 0))
    throw new SpadeError(
      "E_CONFIG",
      `checkEnv: budgetMs must be a positive number of milliseconds, got ${budgetMs}`,
    );
  const now = options.now ?? Date.now;
  const rec = new Recorder(options.maxLimitErrors ?? 3, { budgetMs, now, startedMs: now() });
  const opened: Env[] = [];
  let meta: EnvMeta | null = null;
  try {
    const env = await guarded(rec, "open", "loading the program", open);
    if (!env) return rec.report(null);
    opened.push(env);
    rec.pass("E_COMPILE", "the program compiles and defines Environment");
    const metaIssues = metaProblems(env.meta);
    if (metaIssues.length) {
      rec.fail("E_META", metaIssues.join("; "));
      return rec.report(null);
    }
    meta = env.meta;
    rec.pass("E_META", "meta is valid");
    await runChecks(env, open, opened, rec, seeds, trivialSeeds);
  } catch (err) {
    // The limit failures are recorded; the checks that did not run are absent from the report.
    if (!(err instanceof StopChecking)) throw err;
  } finally {
    for (const env of opened) await env.close().catch(() => undefined);
  }
  return rec.report(meta);
}

async function runChecks(
  env: Env,
  open: EnvOpener,
  opened: Env[],
  rec: Recorder,
  seeds: readonly number[],
  trivialSeeds: readonly number[],
): Promise<void> {
  const meta = env.meta;
  // Reset and hint on every seed; the hint must not change when the same seed is reset again.
  const hints = new Map<number, string>();
  for (const seed of seeds) {
    const reset = await guarded(rec, "reset", `reset(${seed})`, () => env.reset(seed));
    if (!reset) continue;
    const problems = resetProblems(reset);
    if (problems.length) rec.fail("E_RESET", `reset(${seed}): ${problems[0]}`);
    const hint = await guarded(rec, "hint", `hint() after reset(${seed})`, () => env.hint());
    if (hint === undefined) continue;
    const hintIssues = hintProblems(hint);
    if (hintIssues.length) rec.fail("E_HINT", `seed ${seed}: ${hintIssues[0]}`);
    else hints.set(seed, hint);
  }
  rec.pass("E_RESET", `reset returns a valid observation on seeds ${seeds.join(", ")}`);
  rec.pass("E_HINT", "hint() returns a non-empty string within 2,000 characters");

  // Probe actions, each from a fresh reset.
  const firstSeed = seeds[0] ?? 0;
  for (const probe of probeActions(meta)) {
    const reset = await guarded(rec, "reset", `probe "${probe.label}", reset`, () =>
      env.reset(firstSeed),
    );
    if (!reset) continue;
    const result = await guarded(rec, "step", `probe "${probe.label}"`, () =>
      env.step(probe.action),
    );
    if (!result) continue;
    const problems = stepProblems(result, probe.action);
    if (problems.length) rec.fail("E_STEP", `probe "${probe.label}": ${problems[0]}`);
  }
  rec.pass("E_STEP", `probe actions (${probeActions(meta).length}) return valid results`);

  // The oracle reaches success on every seed; its episode replays identically on the same instance.
  const oracleTraces = new Map<number, Trace>();
  for (const seed of seeds) {
    const trace = await playEpisode(env, rec, seed, "oracle", oracleTurnOn(env, rec, seed));
    if (!trace) {
      rec.fail("E_ORACLE", `seed ${seed}: the oracle episode did not complete`);
      continue;
    }
    const ret = traceReturn(trace);
    if (!isSuccess(ret))
      rec.fail(
        "E_ORACLE",
        `seed ${seed}: following solve() gave return ${ret} after ${trace.steps.length} turns (success needs 0.99 within maxTurns ${meta.maxTurns})`,
      );
    oracleTraces.set(seed, trace);
    if (
      hints.has(seed) &&
      (await guarded(rec, "reset", `reset(${seed}) again`, () => env.reset(seed)))
    ) {
      const hint = await guarded(rec, "hint", `hint() after reset(${seed}) again`, () =>
        env.hint(),
      );
      if (hint !== undefined && hint !== hints.get(seed))
        rec.fail(
          "E_NONDETERMINISTIC",
          `seed ${seed}: hint() differs after resetting the same seed again`,
        );
    }
    await replay(env, rec, seed, trace, "replaying the oracle");
  }
  const turns = [...oracleTraces.values()].map((t) => t.steps.length);
  rec.pass(
    "E_ORACLE",
    `solve() reaches success on seeds ${seeds.join(", ")} in ${turns.join("/")} turns`,
  );

  // A second instance gives the same episodes.
  const second = await guarded(rec, "open", "opening a second instance", open);
  if (second) {
    opened.push(second);
    const [seed, trace] = [...oracleTraces.entries()][0] ?? [];
    if (seed !== undefined && trace)
      await replay(second, rec, seed, trace, "replaying on a fresh instance");
  }
  rec.pass(
    "E_NONDETERMINISTIC",
    "the same seed and actions give the same episode, on one instance and on a fresh one",
  );

  // Trivial policies must not succeed on a majority of seeds.
  for (const policy of trivialPolicies(meta)) {
    let wins = 0;
    for (const seed of trivialSeeds) {
      const act = policy.start(seed);
      const trace = await playEpisode(
        env,
        rec,
        seed,
        `trivial policy "${policy.name}"`,
        actThenStep(env, rec, async (obs) => act(obs)),
      );
      if (trace && isSuccess(traceReturn(trace))) wins++;
    }
    if (wins * 2 > trivialSeeds.length)
      rec.fail(
        "E_TRIVIAL",
        `the trivial policy "${policy.name}" succeeds on ${wins} of ${trivialSeeds.length} seeds`,
      );
  }
  rec.pass("E_TRIVIAL", "no trivial policy succeeds on a majority of seeds");
  rec.pass("E_TIMEOUT", "every call finished within its deadline");
  rec.pass("E_MEMORY", "every call stayed within the memory cap");
  rec.pass("E_OUTPUT_SIZE", "every answer stayed within the size limit");
  rec.pass("E_TIME_BUDGET", "the validation finished within its time budget");
}
