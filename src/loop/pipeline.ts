/**
 * @module loop/pipeline
 * Pipelined steps (`maxOffPolicy` K): the trainings in flight, the order their steps are
 * committed in, the weights each step samples from, and the view of the store a step reads
 * while the steps before it are scored but not committed.
 *
 * Step s samples from the weights of the newest committed step at most s - K - 1 (K = 0: the step
 * before, the reference's order). Trainings run one at a time, in step order; a step is committed
 * (its scores, samples, sampler position and weights, then `done`) once its training returns,
 * always in step order. Designs and plays of steps after the last committed one are stored as
 * they finish, keyed by position like every row; a resumed run restarts at the first step not
 * committed, skips those rows, samples what is missing from the same weights (they are stored
 * with every committed step) and trains the uncommitted steps again, so it writes exactly the
 * rows an uninterrupted run would.
 */
import type { SamplerState } from "../grounding/index.js";
import type { LpState } from "../rl/index.js";
import type { EnvStats, RunStore } from "../store/index.js";
import type {
  Trainer,
  TrainerCheckpoint,
  TrainOptions,
  TrainResult,
  TrainSample,
} from "../trainer/index.js";
import type { StepScore } from "./score.js";
import { committedView, designerRefs, type PendingView } from "./score-input.js";

/** A step scored and handed to the trainer, not committed yet. */
export interface ScoredStep {
  step: number;
  /** Clock reading when the step began (throughput only, never stored). */
  started: number;
  score: StepScore;
  /** The document sampler's position after the step's designs (null: `--corpus none`). */
  samplerState: SamplerState | null;
  /** Other named state saved with the step (e.g. the RLVE difficulty controller's windows). */
  states: Readonly<Record<string, unknown>>;
}

/** One stage of a step, timed with the loop's clock (for benchmarks; never stored). */
export interface PhaseSpan {
  phase: "design" | "validate" | "play" | "score" | "train" | "commit";
  step: number;
  /** Clock readings (milliseconds) when the stage began and ended. */
  start: number;
  end: number;
}

/** The weights version of a checkpoint: v = the weights after step v - 1's training; 0 = the run's initial weights (null). */
export function weightsVersion(checkpoint: TrainerCheckpoint | null): number {
  return checkpoint === null ? 0 : checkpoint.step + 1;
}

/** What the pipeline is given. */
export interface PipelineOptions {
  store: RunStore;
  /** Null: inference-only self-play (nothing trains, every step samples the initial weights). */
  trainer: Trainer | null;
  /** K: how many trainings a step's sampling may run behind (0 = on-policy). */
  maxOffPolicy: number;
  /** Writes one step with what its training returned (null: not trained); called in step order. */
  commit: (scored: ScoredStep, trained: TrainResult | null) => void;
  /** Milliseconds clock for `onPhase`. */
  now: () => number;
  onPhase?: (span: PhaseSpan) => void;
}

/** Pipelined steps over one store (see the module comment); its view is the store's with the pending steps laid over it. */
export class StepPipeline implements PendingView {
  readonly #options: PipelineOptions;
  /** The store as committed, under what is pending. */
  readonly #committed: PendingView;
  /** Steps scored and not committed, in step order, each with its training. */
  readonly #pending: Array<ScoredStep & { training: Promise<TrainResult | null> }> = [];
  /** Committed steps' checkpoints, in step order (from the store when resuming). */
  readonly #checkpoints: Array<{ step: number; checkpoint: TrainerCheckpoint }>;
  /** The last training handed over (the next one starts after it). */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(options: PipelineOptions) {
    this.#options = options;
    this.#committed = committedView(options.store);
    this.#checkpoints = options.store
      .steps()
      .filter((s) => s.status === "done")
      .flatMap((s) => {
        const checkpoint = (s.metrics as { checkpoint?: TrainerCheckpoint } | null)?.checkpoint;
        return checkpoint ? [{ step: s.step, checkpoint }] : [];
      });
  }

  /** The weights `step` samples from: the newest checkpoint committed by a step at most step - K - 1; null: the initial weights. */
  weightsFor(step: number): TrainerCheckpoint | null {
    const last = step - this.#options.maxOffPolicy - 1;
    let found: TrainerCheckpoint | null = null;
    for (const c of this.#checkpoints) if (c.step <= last) found = c.checkpoint;
    return found;
  }

  /** The stats of the steps scored but not committed, by environment (the latest step's win). */
  pendingStats(): Map<string, EnvStats> {
    return new Map(this.#pending.flatMap((p) => [...p.score.stats]));
  }

  /** `rows` with the stats of the steps scored but not committed. */
  withPendingStats<R extends { id: string; stats: EnvStats }>(rows: readonly R[]): R[] {
    const stats = this.pendingStats();
    return rows.map((e) => {
      const pending = stats.get(e.id);
      return pending ? { ...e, stats: pending } : e;
    });
  }

  /** The learning-potential trackers after the last step scored. */
  lpState(): Record<string, LpState> {
    return this.#pending.at(-1)?.score.lpState ?? this.#committed.lpState();
  }

  /** Named state `key` as of the last step scored (its `states`), else as stored; null: never set. */
  state<T>(key: string): T | null {
    for (let i = this.#pending.length - 1; i >= 0; i--) {
      const states = (this.#pending[i] as ScoredStep).states;
      if (key in states) return states[key] as T;
    }
    return this.#options.store.getState<T>(key) ?? null;
  }

  /** Refs of design attempts trained (or handed to the trainer) by steps from `fromStep` on. */
  trainedDesigns(fromStep: number): Set<string> {
    const trained = this.#committed.trainedDesigns(fromStep);
    for (const p of this.#pending)
      for (const ref of designerRefs(p.score.samples, fromStep)) trained.add(ref);
    return trained;
  }

  /**
   * Hands `scored`'s samples to the trainer, to run after the trainings handed over before;
   * `options.batchSize` counts the samples of the step's batch left out of `samples` too.
   */
  train(scored: ScoredStep, samples: readonly TrainSample[], options?: TrainOptions): void {
    const { trainer, now, onPhase } = this.#options;
    const training = this.#tail.then(async () => {
      if (!trainer) return null;
      if (!onPhase) return trainer.train(scored.step, samples, options);
      const start = now();
      const trained = await trainer.train(scored.step, samples, options);
      onPhase({ phase: "train", step: scored.step, start, end: now() });
      return trained;
    });
    // A failed training is reported when its step is committed (or settled); the next waits for it either way.
    training.catch(() => {});
    this.#tail = training.catch(() => {});
    this.#pending.push({ ...scored, training });
  }

  /** Commits, in step order, every scored step before `step`, waiting for their trainings. */
  async commitBefore(step: number): Promise<void> {
    const { commit, now, onPhase } = this.#options;
    while (this.#pending.length > 0 && (this.#pending[0] as ScoredStep).step < step) {
      const next = this.#pending[0] as ScoredStep & { training: Promise<TrainResult | null> };
      const trained = await next.training;
      const start = onPhase ? now() : 0;
      commit(next, trained);
      this.#pending.shift();
      if (trained?.checkpoint)
        this.#checkpoints.push({ step: next.step, checkpoint: trained.checkpoint });
      if (onPhase) onPhase({ phase: "commit", step: next.step, start, end: now() });
    }
  }

  /** Waits until no training is left running (after a failure, before the store closes). */
  async settle(): Promise<void> {
    await this.#tail;
  }
}
