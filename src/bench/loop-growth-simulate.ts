/**
 * @module bench/loop-growth-simulate
 * The growth benchmark's simulated run: each step's stages against a real RunStore, timed by
 * phase, with the step's CPU time and the memory kept after it.
 */
import { statSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { stepPool } from "../loop/env-pool.js";
import type { LibraryProgram } from "../loop/library.js";
import { playsPerEnv } from "../loop/play.js";
import { scoreStep } from "../loop/score.js";
import { readScoreInput, scoreWindowStart } from "../loop/score-input.js";
import { RunStore } from "../store/index.js";
import { type DedupeTally, design, type GrowthRun, play } from "./loop-growth-stages.js";

/** The phases of a step, timed apart. */
export const PHASES = ["design", "pool", "play", "score", "train", "commit"] as const;
/** One phase of a step. */
export type Phase = (typeof PHASES)[number];

/** What one simulated run measured, step by step. */
export interface Measured extends DedupeTally {
  msByStep: Array<Record<Phase, number>>;
  /** CPU time (user + system) of each step, ms: unlike wall time, not stretched by other processes on a shared machine. */
  cpuMsByStep: number[];
  compareMsByStep: number[];
  /** Resident set and V8 heap in use after each step, bytes. */
  memoryByStep: Array<{ rss: number; heapUsed: number }>;
  storeMiB: number;
}

/** Simulates `count` steps of `run` into a new store in `dir` (see bench/loop-growth's module comment). */
export function simulate(
  run: GrowthRun,
  dir: string,
  library: readonly LibraryProgram[],
  count: number,
): Measured {
  const { config } = run;
  const store = RunStore.open(dir, "create");
  const measured: Measured = {
    msByStep: [],
    cpuMsByStep: [],
    compareMsByStep: [],
    memoryByStep: [],
    storeMiB: 0,
    flagged: 0,
    searchMsByStep: [],
  };
  const { msByStep, compareMsByStep } = measured;
  try {
    store.setMeta("config", JSON.stringify(config));
    for (let step = 0; step < count; step++) {
      const ms = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
      const cpu = process.cpuUsage();
      let mark = performance.now();
      const lap = (phase: Phase) => {
        const now = performance.now();
        ms[phase] += now - mark;
        mark = now;
      };
      store.beginStep(step);
      compareMsByStep[step] = 0;
      if (step % config.regenerateEvery === 0)
        compareMsByStep[step] = design(run, store, library, step, measured);
      lap("design");
      // The dedupe comparison is the design stage's own work (designer/dedupe.ts), not a store read: reported apart.
      ms.design -= compareMsByStep[step] ?? 0;
      const pool = stepPool(config, store, library, step);
      lap("pool");
      const plays = playsPerEnv(config, pool.length);
      play(config, store, step, pool, plays);
      lap("play");
      const score = scoreStep(readScoreInput(store, config, step, pool, plays));
      lap("score");
      // The rows the trainer is given (loop/run.ts trainSamples): the step's episodes and the window's designs.
      const fromStep = scoreWindowStart(config, step);
      store.episodes({ step });
      store.designs({ fromStep });
      lap("train");
      store.transaction(() => {
        for (const [id, stats] of score.stats) store.updateStats(id, stats);
        for (const sample of score.samples) store.insertSample(sample);
        store.setState("lp", score.lpState);
        store.completeStep(step, score.metrics);
      });
      lap("commit");
      const cpuUsed = process.cpuUsage(cpu);
      // The dedupe comparison's CPU is left out too (its wall time is, above; it runs on this thread).
      measured.cpuMsByStep.push(
        (cpuUsed.user + cpuUsed.system) / 1000 - (compareMsByStep[step] ?? 0),
      );
      msByStep.push(ms);
      // At the two steps reported, the heap is collected first (outside the step's time), so heap used is what is kept.
      if (step === 9 || step === count - 1) (globalThis as { gc?: () => void }).gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      measured.memoryByStep.push({ rss, heapUsed });
      if ((step + 1) % 50 === 0) {
        const total = PHASES.reduce((sum, p) => sum + ms[p], 0);
        console.error(
          `step ${step + 1}: ${total.toFixed(0)} ms (${JSON.stringify(ms, (_, v) => (typeof v === "number" ? Math.round(v) : v))})`,
        );
      }
    }
    store.close();
    measured.storeMiB = statSync(store.path).size / 2 ** 20;
    return measured;
  } finally {
    store.close();
  }
}
