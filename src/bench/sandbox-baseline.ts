/**
 * @module bench/sandbox-baseline
 * The sandbox benchmark's `--baseline DIR`: another built checkout's loader and validator, and the
 * light rows and `checkEnv` measured on both trees alternately, with their speedup lines.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { oracleTurn } from "../env/oracle.js";
import { SpadeError } from "../errors.js";
import { loadProgram, SANDBOX_BACKENDS } from "../sandbox/index.js";
import { median } from "./cpu.js";
import { type Checker, checkEnvTimes, THIS_TREE, type Tree } from "./sandbox-checkenv.js";
import {
  CONCURRENT_EPISODES,
  lastCpuPerStepUs,
  type ProgramLoader,
  programStepsPerSecond,
} from "./sandbox-play.js";
import { LIGHT_JS } from "./sandbox-programs.js";

/** The export `name` of `DIR/dist/<path>` in another built checkout. */
export async function baselineExport<T>(dir: string, path: string, name: string): Promise<T> {
  const entry = join(resolve(dir), "dist", path);
  if (!existsSync(entry)) {
    throw new SpadeError("E_CONFIG", `--baseline: ${entry} does not exist`, {
      nextStep: "give a checkout of SPADE built with `npm run build`",
    });
  }
  const value = ((await import(pathToFileURL(entry).href)) as Record<string, unknown>)[name];
  if (typeof value !== "function") {
    throw new SpadeError("E_CONFIG", `--baseline: ${entry} exports no ${name}`, {
      nextStep: `give a checkout of SPADE (its dist/${path})`,
    });
  }
  return value as T;
}

/** The `loadProgram` and `checkEnv` of another built checkout. */
export async function baselineTree(dir: string): Promise<Tree> {
  return {
    load: await baselineExport<ProgramLoader>(dir, "sandbox/index.js", "loadProgram"),
    check: await baselineExport<Checker>(dir, "env/check.js", "checkEnv"),
  };
}

/**
 * Runs `measure` on both trees, `rounds` times; the tree measured first alternates, so neither
 * gains from going second (warm caches).
 */
async function alternately(
  rounds: number,
  measure: (tree: "baseline" | "this") => Promise<void>,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const order =
      round % 2 === 0 ? (["baseline", "this"] as const) : (["this", "baseline"] as const);
    for (const tree of order) await measure(tree);
  }
}

/**
 * The light environment on this tree and on the baseline, alternately, `rounds` times per backend
 * and episode count; prints every measurement, the medians and the two ratio lines. Then
 * `checkEnv` over the library per backend, the trees alternately, `rounds` times, and
 * `checkenv_speedup_<backend>=` (the baseline's median time over this tree's) and
 * `checkenv_cpu_ratio_<backend>=` (the same for the median CPU time of one validation).
 */
export async function compareWithBaseline(
  baseline: Tree,
  dir: string,
  seconds: number,
  rounds: number,
): Promise<void> {
  process.stdout.write(
    `light (echo) against the baseline ${dir}, alternately, ${rounds} rounds per row\n`,
  );
  for (const backend of SANDBOX_BACKENDS) {
    for (const episodes of [1, CONCURRENT_EPISODES]) {
      const rates = { baseline: [] as number[], this: [] as number[] };
      const cpu = { baseline: [] as number[], this: [] as number[] };
      await alternately(rounds, async (tree) => {
        const rate = await programStepsPerSecond(
          LIGHT_JS,
          backend,
          episodes,
          seconds,
          oracleTurn,
          tree === "baseline" ? baseline.load : loadProgram,
        );
        rates[tree].push(rate);
        cpu[tree].push(lastCpuPerStepUs);
        process.stdout.write(
          `  ${backend}, ${episodes} concurrent, ${tree === "this" ? "this tree" : "baseline"}: ${rate.toFixed(0)} steps/s, ${lastCpuPerStepUs.toFixed(0)} µs CPU/step\n`,
        );
      });
      const row = `${backend.replace("-", "")}_${episodes}`;
      process.stdout.write(
        `${backend}, light (echo), ${episodes} concurrent, medians: baseline ${median(rates.baseline).toFixed(0)} steps/s ${median(cpu.baseline).toFixed(0)} µs CPU/step, this tree ${median(rates.this).toFixed(0)} steps/s ${median(cpu.this).toFixed(0)} µs CPU/step\n` +
          `light_speedup_${row}=${(median(rates.this) / median(rates.baseline)).toFixed(2)}\n` +
          `light_cpu_ratio_${row}=${(median(cpu.baseline) / median(cpu.this)).toFixed(2)}\n`,
      );
    }
  }
  for (const backend of SANDBOX_BACKENDS) {
    const medians = { baseline: [] as number[], this: [] as number[] };
    const cpu = { baseline: [] as number[], this: [] as number[] };
    await alternately(rounds, async (tree) => {
      const t = await checkEnvTimes(backend, tree === "this" ? THIS_TREE : baseline);
      medians[tree].push(t.medianMs);
      cpu[tree].push(t.cpuMs);
      process.stdout.write(
        `  ${backend}, checkEnv over the library, ${tree === "this" ? "this tree" : "baseline"}: median ${t.medianMs.toFixed(1)} ms (CPU ${t.cpuMs.toFixed(1)} ms), max ${t.maxMs.toFixed(0)} ms${t.failed.length ? `; failed: ${t.failed.join("; ")}` : ""}\n`,
      );
    });
    const row = backend.replace("-", "");
    process.stdout.write(
      `${backend}, checkEnv over the library, medians of the rounds' medians: baseline ${median(medians.baseline).toFixed(1)} ms (CPU ${median(cpu.baseline).toFixed(1)} ms), this tree ${median(medians.this).toFixed(1)} ms (CPU ${median(cpu.this).toFixed(1)} ms)\n` +
        `checkenv_speedup_${row}=${(median(medians.baseline) / median(medians.this)).toFixed(2)}\n` +
        `checkenv_cpu_ratio_${row}=${(median(cpu.baseline) / median(cpu.this)).toFixed(2)}\n`,
    );
  }
}
