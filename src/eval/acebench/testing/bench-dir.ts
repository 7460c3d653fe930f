/**
 * @module eval/acebench/testing/bench-dir
 * Where tests find the benchmark data: the data folder of `dataRoot` (vitest.config.ts sets
 * SPADE_DATA_DIR to ../shared/benchmarks), so tests and the CLI resolve it the same way.
 */
import { join } from "node:path";
import { dataRoot } from "../../data.js";

/** The benchmarks root folder. */
export function benchmarksDir(): string {
  return dataRoot({ env: process.env });
}

/** The ACEBench folder inside it. */
export function acebenchDir(): string {
  return join(benchmarksDir(), "acebench");
}
