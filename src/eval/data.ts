/**
 * @module eval/data
 * Benchmark data plumbing, in one place: where the data folder is (a flag, else $SPADE_DATA_DIR,
 * else a user-level cache folder), which subfolder a dataset lives in, and one reader for JSON
 * and JSON Lines files (gzipped too) whose every failure is E_IO naming the file.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { SpadeError } from "../errors.js";

/** Environment variable naming the data folder. */
export const DATA_DIR_ENV = "SPADE_DATA_DIR";

/** Where the data folder is looked for: `--data`, the environment, the cwd and home (all passed in). */
export interface DataDirOptions {
  /** A `--data` flag, resolved against `cwd`. */
  flag?: string;
  /** The environment (`SPADE_DATA_DIR`, `XDG_CACHE_HOME`). */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** The home folder (default the user's). */
  home?: string;
}

/**
 * The data folder: `flag` if given, else `$SPADE_DATA_DIR`, else `$XDG_CACHE_HOME/spade/data`,
 * else `~/.cache/spade/data`. Its layout is that of the shared benchmarks folder (see
 * docs/eval-suites.md, "Benchmark data"): one subfolder per dataset.
 */
export function dataRoot(options: DataDirOptions = {}): string {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? {};
  if (options.flag) return resolve(cwd, options.flag);
  if (env[DATA_DIR_ENV]) return resolve(cwd, env[DATA_DIR_ENV] as string);
  const cache = env.XDG_CACHE_HOME
    ? resolve(cwd, env.XDG_CACHE_HOME)
    : join(options.home ?? homedir(), ".cache");
  return join(cache, "spade", "data");
}

/**
 * A dataset's folder given either the data folder or the dataset's own folder: `dir` itself when
 * it holds `marker` (a file or folder only the dataset has), else `dir/name`.
 */
export function datasetDir(
  dir: string,
  name: string,
  marker: string,
  exists: (path: string) => boolean,
): string {
  return exists(join(dir, marker)) || !exists(join(dir, name)) ? dir : join(dir, name);
}

/** What to do when a data file is missing or bad. */
export const DATA_NEXT_STEP = `run \`spade data list\` to see where each dataset is looked for; pass --data DIR or set ${DATA_DIR_ENV}`;

function ioError(message: string, cause?: unknown): SpadeError {
  return new SpadeError("E_IO", message, { nextStep: DATA_NEXT_STEP, cause });
}

function decode(bytes: Buffer, path: string): string {
  if (!path.endsWith(".gz")) return bytes.toString("utf8");
  try {
    return gunzipSync(bytes).toString("utf8");
  } catch (err) {
    throw ioError(`benchmark file ${path} is not valid gzip`, err);
  }
}

function parseJson(text: string, path: string, where = ""): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw ioError(`benchmark file ${path}${where} is not valid JSON`, err);
  }
}

/** Parses JSON Lines text: one value per non-blank line (E_IO names the file and line). */
export function parseJsonl(text: string, path: string): unknown[] {
  const rows: unknown[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() !== "") rows.push(parseJson(line, path, ` line ${i + 1}`));
  });
  return rows;
}

async function readBytes(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw ioError(`cannot read benchmark file ${path}`, err);
  }
}

function readBytesSync(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw ioError(`cannot read benchmark file ${path}`, err);
  }
}

/** The text of a data file (gunzipped when the name ends in `.gz`). */
export async function readText(path: string): Promise<string> {
  return decode(await readBytes(path), path);
}

/** The text of a data file, synchronously (for loaders that are synchronous). */
export function readTextSync(path: string): string {
  return decode(readBytesSync(path), path);
}

/** Reads a JSON file. */
export async function readJson(path: string): Promise<unknown> {
  return parseJson(await readText(path), path);
}

/** Reads a JSON file, synchronously. */
export function readJsonSync(path: string): unknown {
  return parseJson(readTextSync(path), path);
}

/** Reads a JSON Lines file (gunzipped first when the name ends in `.gz`); blank lines are skipped. */
export async function readJsonl(path: string): Promise<unknown[]> {
  return parseJsonl(await readText(path), path);
}

/** Reads a JSON Lines file, synchronously. */
export function readJsonlSync(path: string): unknown[] {
  return parseJsonl(readTextSync(path), path);
}

/** Reads a string field of a record, or throws E_IO naming the file and field. */
export function field(row: unknown, name: string, path: string): string {
  const value =
    typeof row === "object" && row !== null ? (row as Record<string, unknown>)[name] : undefined;
  if (typeof value !== "string")
    throw ioError(`benchmark file ${path}: a record lacks the string field "${name}"`);
  return value;
}

/** The first `limit` items (all when undefined). */
export function takeLimit<T>(items: readonly T[], limit: number | undefined): T[] {
  return limit === undefined ? [...items] : items.slice(0, Math.max(0, limit));
}
