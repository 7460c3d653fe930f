/**
 * @module eval/acebench/testing/bench-dir
 * Where tests find the benchmark data: `$SPADE_BENCHMARKS`, else `../shared/benchmarks` next to
 * the repository root (resolved from this file, so the working directory does not matter).
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The benchmarks root folder. */
export function benchmarksDir(): string {
  return process.env.SPADE_BENCHMARKS ?? resolve(dirname(fileURLToPath(import.meta.url)), "../../../../../shared/benchmarks");
}

/** The ACEBench folder inside it. */
export function acebenchDir(): string {
  return join(benchmarksDir(), "acebench");
}
