/**
 * @module loop/run
 * The self-play orchestrator, read top to bottom as the recipe of one step:
 *   1. on a regeneration step (every R steps) the designer fills `designsPerStep` slots;
 *   2. every environment of the pool is played (ceil(agentBatch / pool size) unhinted, or `plays`;
 *      on its creation step also `hintedPlays` hinted, on paired seeds);
 *   3. the step is scored: environment stats, agent GRPO samples (filled and trimmed to the
 *      batch as the reference does), designer samples due (D steps after their design);
 *   4. both roles' samples go to the trainer in one batch (skipped with --no-train; truncated
 *      episodes stay out under --truncated-episodes mask);
 *   5. everything is committed and the step is marked done, with the trainer's new weights; the
 *      next step samples from them (on-policy). With `maxOffPolicy` K > 0 the next steps'
 *      designing and playing run while the step trains (sampling from weights up to K trainings
 *      old), and steps are still committed in order (`loop/pipeline.ts`).
 * Every unit (a design slot, an environment's group of plays, the step's scores) is one store
 * transaction and every random draw is keyed by its position, so a killed run resumes exactly.
 * A resumed run restores the weights of its last committed step (training state and sampler);
 * a step killed after its optimiser update but before its commit is trained again from them, so
 * no update is applied twice (the engine's uncommitted update is abandoned).
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunConfig } from "../config/index.js";
import { isOpenEnvRef, parseOpenEnvRef, remoteMeta } from "../envs/index.js";
import { createSampler, openCorpus, Sampler, type SamplerState } from "../grounding/index.js";
import { SpadeError } from "../errors.js";
import { Limiter } from "../policy/index.js";
import { guardIo, RunStore } from "../store/index.js";
import type { Trainer, TrainerCheckpoint, TrainResult, TrainSample } from "../trainer/index.js";
import { readPool } from "../envs/pool.js";
import { isRlvePool, parseRlvePool, readRlveCheckout } from "../envs/rlve.js";
import { designStep } from "./design.js";
import { poolOrder, poolWindow, stepPool } from "./env-pool.js";
import { episodeOfRef } from "./keys.js";
import { loadLibrary, type LibraryProgram } from "./library.js";
import { isMaskedTruncation } from "./outcome.js";
import { playStep, playsPerEnv } from "./play.js";
import { StepPipeline, weightsVersion, type PhaseSpan, type ScoredStep } from "./pipeline.js";
import type { LoopPolicy } from "./policy.js";
import { formatProgress, type StepWork } from "./progress.js";
import {
  controllerOptions,
  DIFFICULTY_STATE,
  rlveWindow,
  updateDifficulty,
  type DifficultyState,
  type RlvePick,
} from "./rlve-pool.js";
import { scoreStep, type StepMetrics } from "./score.js";
import { readScoreInput, scoreWindowStart } from "./score-input.js";

/** `Omit` applied to each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** File of per-step metrics, one JSON object per line, beside the store. */
export const METRICS_FILE = "metrics.jsonl";

/** What the loop is given from outside. */
export interface LoopDeps {
  /** The model both roles sample from. */
  policy: LoopPolicy;
  /** The training engine; null runs inference-only self-play (--no-train). */
  trainer: Trainer | null;
  /** Receives one progress line per step (the CLI prints it on stderr). */
  progress: (line: string) => void;
  /** Receives the progress of the step's designing and playing as it goes (the CLI shows it as a live line; see `formatWork`). */
  onWork?: (work: StepWork) => void;
  /** Milliseconds clock, for throughput only (never stored). */
  now: () => number;
  signal?: AbortSignal;
  /** Receives each completed step's metrics with its `seconds`, after they are stored (a metrics sink, e.g. `--log tensorboard:DIR`). */
  onStep?: (metrics: Record<string, unknown>) => void;
  /** Opens the run's store; `RunStore.open` unless a test wraps it (store/fault-injection.ts). */
  openStore?: (dir: string, mode: "create" | "resume") => RunStore;
  /** Receives each stage of each step as it ends, timed with `now` (benchmarks; see `PhaseSpan`). */
  onPhase?: (span: PhaseSpan) => void;
}

/**
 * The remote OpenEnv environments of `--env-pool openenv+ws://...` (comma-separated), their meta
 * read once; null when the pool names none. The row's code is the reference (loop/play.ts opens it).
 */
async function remotePool(config: RunConfig): Promise<LibraryProgram[] | null> {
  const refs = (config.envPool ?? "")
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);
  // (--designer on with a pool is refused when the settings are read: config/load.ts.)
  if (refs.length === 0 || !refs.every(isOpenEnvRef)) return null;
  return Promise.all(
    refs.map(async (ref, i) => ({
      name: `remote-${i}-${parseOpenEnvRef(ref).name}`,
      source: ref,
      meta: await remoteMeta(parseOpenEnvRef(ref)),
    })),
  );
}

/**
 * The samples of a step with the rows they were computed from, for the trainer. Agent samples of
 * truncated episodes under `truncatedEpisodes: mask` are left out: scored and stored, not trained.
 */
function trainSamples(
  config: RunConfig,
  store: RunStore,
  step: number,
  fromStep: number,
  samples: ReturnType<typeof scoreStep>["samples"],
): TrainSample[] {
  const episodes = new Map(store.episodes({ step }).map((e) => [`${e.envId}/${e.idx}`, e]));
  const designs = new Map(
    store.designs({ fromStep }).map((d) => [`${d.step}/${d.slot}/${d.seq}`, d]),
  );
  return samples.flatMap((s): TrainSample[] => {
    if (s.role !== "agent") return [{ ...s, design: designs.get(s.ref) }];
    const episode = episodes.get(episodeOfRef(s.ref));
    return episode && isMaskedTruncation(config, episode) ? [] : [{ ...s, episode }];
  });
}

/** The document sampler, restored from the store when resuming; null with `--corpus none` (designs are not grounded). */
async function openSampler(config: RunConfig, store: RunStore): Promise<Sampler | null> {
  if (config.corpus === "none") return null;
  const corpus = await openCorpus(config.corpus, { textField: config.corpusField });
  const saved = store.getState<SamplerState>("sampler");
  return saved
    ? Sampler.fromState(corpus, saved, config.maxWords)
    : createSampler(corpus, { seed: config.seed, maxWords: config.maxWords });
}

/** Rewrites the metrics file from the store (after a resume, lines of lost steps are dropped). */
function rewriteMetrics(dir: string, store: RunStore): void {
  const lines = store
    .steps()
    .filter((s) => s.status === "done")
    .map((s) => JSON.stringify(s.metrics));
  const path = join(dir, METRICS_FILE);
  guardIo(path, () => writeFileSync(path, lines.length ? `${lines.join("\n")}\n` : ""));
}

/** Writes a trained step in one transaction (its scores, samples, sampler position, weights, `done`), then reports it. */
function commitStep(
  dir: string,
  config: RunConfig,
  store: RunStore,
  deps: LoopDeps,
  { step, started, score, samplerState, states }: ScoredStep,
  trained: TrainResult | null,
): void {
  const checkpoint = trained?.checkpoint ?? null;
  const metrics: StepMetrics & {
    train?: Record<string, number>;
    checkpoint?: TrainerCheckpoint;
  } = trained
    ? { ...score.metrics, train: trained.metrics, ...(checkpoint ? { checkpoint } : {}) }
    : score.metrics;
  store.transaction(() => {
    for (const [id, stats] of score.stats) store.updateStats(id, stats);
    for (const sample of score.samples) store.insertSample(sample);
    if (samplerState) store.setState("sampler", samplerState);
    for (const [key, value] of Object.entries(states)) store.setState(key, value);
    store.setState("lp", score.lpState);
    if (checkpoint) store.setState("trainer", checkpoint);
    store.completeStep(step, metrics);
  });
  const seconds = (deps.now() - started) / 1000;
  const metricsPath = join(dir, METRICS_FILE);
  store.checkInPlace(); // appended by name: a folder made again for another run is not this one's
  guardIo(metricsPath, () =>
    appendFileSync(metricsPath, `${JSON.stringify({ ...metrics, seconds })}\n`),
  );
  deps.onStep?.({ ...metrics, seconds });
  deps.progress(formatProgress(metrics, config.steps, seconds));
}

/**
 * Runs (or resumes) self-play in `dir` until `config.steps` steps are done. A new run stores its
 * config; a resumed one must be given the stored config (the CLI does that).
 */
export async function runSelfPlay(
  dir: string,
  config: RunConfig,
  deps: LoopDeps,
  options: { resume: boolean },
): Promise<void> {
  const store = (deps.openStore ?? RunStore.open)(dir, options.resume ? "resume" : "create");
  try {
    if (!options.resume) store.setMeta("config", JSON.stringify(config));
    const sampler = await openSampler(config, store);
    const library = await loadLibrary(config.sandbox);
    // --designer off --env-pool: remote OpenEnv environments (openenv+ws://...), or a pool folder in the
    // reference's layout, read (and verified) once.
    const remote = await remotePool(config);
    const fixedPool =
      remote === null && config.designer === "off" && (config.envPool ?? "library") !== "library";
    // --env-pool rlve:DIR: RLVE's environments from a checkout, with the difficulty controller.
    const rlve =
      fixedPool && isRlvePool(config.envPool)
        ? readRlveCheckout(parseRlvePool(config.envPool))
        : null;
    const rlveUnusable = new Set<string>();
    const envPool =
      fixedPool && rlve === null ? poolOrder(readPool(config.envPool), config.seed) : null;
    const limiter = new Limiter(config.concurrency);
    rewriteMetrics(dir, store);
    const restored = store.getState<TrainerCheckpoint>("trainer");
    if (restored) await deps.trainer?.restore?.(restored);
    const pipeline = new StepPipeline({
      store,
      trainer: deps.trainer,
      // Runs stored before the setting existed read as undefined: the synchronous order.
      maxOffPolicy: config.maxOffPolicy ?? 0,
      commit: (scored, trained) => commitStep(dir, config, store, deps, scored, trained),
      now: deps.now,
      onPhase: deps.onPhase,
    });
    // The RLVE controller's windows as the next step sees them (pending steps' first).
    const difficultyWindows = () => pipeline.state<DifficultyState>(DIFFICULTY_STATE) ?? {};
    // A stage's live progress, with the seconds since the stage began.
    const work = (since: number, w: DistributiveOmit<StepWork, "seconds">) =>
      deps.onWork?.({ ...w, seconds: (deps.now() - since) / 1000 });
    // Stages are timed only for an `onPhase` listener (the clock is read no more often otherwise).
    const timed = async <T>(phase: PhaseSpan["phase"], step: number, run: () => Promise<T>) => {
      if (!deps.onPhase) return run();
      const start = deps.now();
      const result = await run();
      deps.onPhase?.({ phase, step, start, end: deps.now() });
      return result;
    };

    try {
      for (let step = store.doneSteps(); step < config.steps; step++) {
        // The steps whose weights this one samples from are committed first (all before it when K = 0).
        await pipeline.commitBefore(step - (config.maxOffPolicy ?? 0));
        const started = deps.now();
        const weights = pipeline.weightsFor(step);
        if (weights) deps.policy.useWeights?.(weights.samplerPath);
        store.beginStep(step);
        // What both sampling stages share: the run, its store, the model and the weights it samples from.
        const stage = {
          config,
          store,
          policy: deps.policy,
          weightsVersion: weightsVersion(weights),
          signal: deps.signal,
        };
        if (config.designer === "on" && step % config.regenerateEvery === 0) {
          const designing = deps.now();
          await timed("design", step, () =>
            designStep(
              {
                ...stage,
                library,
                sampler,
                pendingStats: () => pipeline.pendingStats(),
                onAttempts: (attempts, attemptsTotal, valid) =>
                  work(designing, { stage: "design", step, attempts, attemptsTotal, valid }),
                validating: (run) => timed("validate", step, run),
              },
              step,
            ),
          );
        }
        // --env-pool rlve:DIR: this step's environments at difficulties drawn from the controller's windows.
        const picks: RlvePick[] | null = rlve
          ? await rlveWindow(config, store, rlve, step, rlveUnusable, difficultyWindows())
          : null;
        if (picks?.length === 0)
          throw new SpadeError(
            "E_CONFIG",
            `no RLVE environment of ${config.envPool} loads in the Python sandbox (${[...rlveUnusable].join(", ")})`,
            {
              nextStep:
                "choose environments that use only the standard library, numpy and networkx (docs/sandbox.md, RLVE)",
            },
          );
        const pool = pipeline.withPendingStats(
          picks
            ? picks.map((p) => p.row)
            : envPool
              ? await poolWindow(config, store, envPool, step)
              : stepPool(config, store, remote ?? library, step),
        );
        const playing = deps.now();
        await timed("play", step, () =>
          playStep(
            {
              ...stage,
              limiter,
              sameProblem: picks !== null,
              onEpisodes: (episodes, episodesTotal) =>
                work(playing, { stage: "play", step, episodes, episodesTotal }),
            },
            step,
            pool,
          ),
        );

        // Scoring reads the plays of the pool's window and of the designs whose reward is due, up to this step
        // (a resumed pipelined run may already hold rows of the steps after it).
        const scoring = deps.onPhase ? deps.now() : 0;
        const fromStep = scoreWindowStart(config, step);
        const score = scoreStep(
          readScoreInput(store, config, step, pool, playsPerEnv(config, pool.length), pipeline),
        );
        // --train-designer off: designer samples are scored and stored, only the agent's are trained.
        const toTrain =
          config.trainDesigner === "on"
            ? score.samples
            : score.samples.filter((s) => s.role === "agent");
        const samples = deps.trainer ? trainSamples(config, store, step, fromStep, toTrain) : [];
        if (deps.onPhase) deps.onPhase({ phase: "score", step, start: scoring, end: deps.now() });
        // The controller's windows after this step's plays, saved with the step.
        const states = picks
          ? {
              [DIFFICULTY_STATE]: updateDifficulty(
                difficultyWindows(),
                picks,
                store.episodes({ step }),
                controllerOptions(config),
              ),
            }
          : {};
        const samplerState = sampler?.state() ?? null;
        // The step's batch counts the samples left out with a zero loss mask (--truncated-episodes
        // mask), as Slime's does: the divisor of --loss-aggregation sample-mean.
        pipeline.train({ step, started, score, samplerState, states }, samples, {
          batchSize: toTrain.length,
        });
      }
      await pipeline.commitBefore(config.steps);
    } finally {
      await pipeline.settle();
    }
  } finally {
    store.close();
  }
}
