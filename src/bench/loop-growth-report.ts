/**
 * @module bench/loop-growth-report
 * How the growth benchmark reports a step: the median, over the regeneration cycles around it, of
 * each cycle's mean, by phase, with its CPU time, dedupe comparison and memory, as one line.
 */
import { median } from "./cpu.js";
import { PHASES, type Measured } from "./loop-growth-simulate.js";
import type { GrowthRun } from "./loop-growth-stages.js";

/** Regeneration cycles whose median a reported step's figures are (step 10: steps 0-19). */
const CYCLES = 5;

/** A reported step's typical figures: wall and CPU ms per step, and the dedupe comparison's ms per step. */
export interface StepFigures {
  ms: number;
  cpuMs: number;
  compare: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The `CYCLES` whole regeneration cycles (of `R` steps) around `step` in a run of `steps` steps.
 * A step's cost depends on its place in the regeneration cycle, so compare whole cycles: the
 * median, over the CYCLES cycles around a step, of each cycle's mean. One cycle alone moved
 * the ratio between 0.73 and 1.35 from run to run on the shared machine (a slow moment of a
 * few steps); the growth over CYCLES * R steps is nothing beside that of 400.
 */
function cyclesAround(step: number, steps: number, R: number): number[][] {
  const last = steps - (steps % R) - R;
  const first = Math.max(0, Math.min(step - (step % R) - 2 * R, last - (CYCLES - 1) * R));
  return Array.from({ length: CYCLES }, (_, c) =>
    Array.from({ length: R }, (_, i) => first + c * R + i),
  ).filter((cycle) => cycle[R - 1]! < steps);
}

/** The median over the cycles of `of(step)`'s mean over each cycle. */
const typical = (cycles: number[][], of: (step: number) => number) =>
  median(cycles.map((cycle) => mean(cycle.map(of))));

/**
 * Prints the line of step `label` (1-based) of a run of `steps` steps that measured `measured`,
 * and returns its typical figures.
 */
export function reportStep(
  run: GrowthRun,
  measured: Measured,
  steps: number,
  label: number,
): StepFigures {
  const { config, dedupe } = run;
  const { msByStep, cpuMsByStep, compareMsByStep, memoryByStep, searchMsByStep } = measured;
  const R = config.regenerateEvery;
  const total = (s: number) => PHASES.reduce((sum, p) => sum + (msByStep[s]?.[p] ?? 0), 0);
  const cycles = cyclesAround(label - 1, steps, R);
  const phases = PHASES.map(
    (p) => `${p} ${typical(cycles, (s) => msByStep[s]?.[p] ?? 0).toFixed(1)}`,
  ).join(", ");
  const memory = memoryByStep[label - 1] ?? { rss: 0, heapUsed: 0 };
  const compareMs = typical(cycles, (s) => compareMsByStep[s] ?? 0);
  // One step of each cycle designs, `designsPerStep` compares.
  const perDesignMs = (compareMs * R) / config.designsPerStep;
  const searchMs = (typical(cycles, (s) => searchMsByStep[s] ?? 0) * R) / config.designsPerStep;
  const compare = dedupe
    ? `; dedupe compare ${compareMs.toFixed(1)} ms/step (${perDesignMs.toFixed(3)} ms per design, ${searchMs.toFixed(3)} of it the archive search)`
    : "";
  const cpuMs = typical(cycles, (s) => cpuMsByStep[s] ?? 0);
  const ms = typical(cycles, total);
  const span = `${cycles[0]![0]}-${cycles.at(-1)![R - 1]}`;
  console.log(
    `step ${label} (median of the ${cycles.length} cycles' means, steps ${span}): ${ms.toFixed(1)} ms/step wall (${phases}), ${cpuMs.toFixed(1)} ms/step CPU${compare}; rss ${(memory.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB`,
  );
  return { ms, cpuMs, compare: compareMs };
}
