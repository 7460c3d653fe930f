/**
 * @module eval/suites/data
 * Where the benchmark files are and how to read them (JSON, JSON Lines, gzipped JSON Lines).
 * The data are never copied into the project: they are read from the shared benchmarks folder.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { SpadeError } from "../../errors.js";

/** Environment variable naming the benchmarks folder. */
export const BENCHMARKS_ENV = "SPADE_BENCHMARKS";

/** The default benchmarks folder, relative to the working directory. */
export const DEFAULT_BENCHMARKS_DIR = "../shared/benchmarks";

/**
 * The benchmarks folder: `flag` (e.g. `--data`) if given, else `env.SPADE_BENCHMARKS`, else
 * `../shared/benchmarks`, resolved against `cwd`. The caller passes the environment in.
 */
export function benchmarksRoot(options: { flag?: string; env?: Record<string, string | undefined>; cwd?: string } = {}): string {
  const cwd = options.cwd ?? process.cwd();
  const chosen = options.flag ?? options.env?.[BENCHMARKS_ENV] ?? DEFAULT_BENCHMARKS_DIR;
  return resolve(cwd, chosen);
}

const NEXT_STEP = `pass --data DIR or set ${BENCHMARKS_ENV} to the benchmarks folder (default ${DEFAULT_BENCHMARKS_DIR})`;

async function readBytes(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new SpadeError("E_IO", `cannot read benchmark file ${path}`, { nextStep: NEXT_STEP, cause: err });
  }
}

function parseJson(text: string, path: string, where = ""): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SpadeError("E_IO", `benchmark file ${path}${where} is not valid JSON`, { nextStep: NEXT_STEP, cause: err });
  }
}

/** Reads a JSON file. */
export async function readJson(path: string): Promise<unknown> {
  return parseJson((await readBytes(path)).toString("utf8"), path);
}

/** Reads a JSON Lines file (gunzipped first when the name ends in `.gz`); blank lines are skipped. */
export async function readJsonl(path: string): Promise<unknown[]> {
  let bytes = await readBytes(path);
  if (path.endsWith(".gz")) {
    try {
      bytes = gunzipSync(bytes);
    } catch (err) {
      throw new SpadeError("E_IO", `benchmark file ${path} is not valid gzip`, { nextStep: NEXT_STEP, cause: err });
    }
  }
  const rows: unknown[] = [];
  bytes
    .toString("utf8")
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() !== "") rows.push(parseJson(line, path, ` (line ${i + 1})`));
    });
  return rows;
}

/** Reads a string field of a record, or throws E_IO naming the file and field. */
export function field(row: unknown, name: string, path: string): string {
  const value = typeof row === "object" && row !== null ? (row as Record<string, unknown>)[name] : undefined;
  if (typeof value !== "string") throw new SpadeError("E_IO", `benchmark file ${path}: a record lacks the string field "${name}"`);
  return value;
}

/** The first `limit` items (all when undefined). */
export function takeLimit<T>(items: readonly T[], limit: number | undefined): T[] {
  return limit === undefined ? [...items] : items.slice(0, Math.max(0, limit));
}
