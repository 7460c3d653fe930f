/**
 * @module envs/pool
 * A fixed-environment pool folder in the layout of the reference's released GPT-5.5 pool
 * (`cmd/games/_download_gpt55_pool.sh`): `games/game_*.py` beside `manifest.jsonl`,
 * `validation_manifest.jsonl` and `checksums.sha256`. Checksums are verified when present, and
 * games the pool's own validation failed are left out, as `--designer off --env-pool DIR` needs.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { SpadeError } from "../errors.js";
import { readProgramFile } from "./program-file.js";

/** One game of a pool folder. */
export interface PoolProgram {
  /** Stable id in a run's store: `pool-<game id or file stem>`. */
  id: string;
  /** The file's name inside `games/`. */
  file: string;
  source: string;
  /** The manifest's skill in the project's form (`mathematical_reasoning` -> `Mathematical Reasoning`), else null. */
  skill: string | null;
}

/** A loaded pool folder. */
export interface Pool {
  /** The folder holding `games/`. */
  root: string;
  /** Games kept, sorted by file name. */
  programs: PoolProgram[];
  /** How many files `checksums.sha256` or the manifest's `sha256` verified. */
  verified: number;
  /** Games the pool's validation manifest marks as failed, left out. */
  excluded: string[];
}

function poolError(problem: string, nextStep: string): SpadeError {
  return new SpadeError("E_IO", `env pool: ${problem}`, { nextStep });
}

/** `mathematical_reasoning` or `Mathematical Reasoning` -> `Mathematical Reasoning`. */
export function skillTitle(skill: string): string {
  return skill
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(" ");
}

/** The JSON objects of a JSONL file; E_IO naming the line that is not one. */
function readJsonl(path: string): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim()) return;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        throw poolError(`${path} line ${i + 1} is not JSON`, "download the pool again");
      }
      if (typeof row !== "object" || row === null || Array.isArray(row))
        throw poolError(`${path} line ${i + 1} is not a JSON object`, "download the pool again");
      rows.push(row as Record<string, unknown>);
    });
  return rows;
}

/** The file name a manifest row is about (`file_name`, `file`, `filename` or `path`), or null. */
function rowFile(row: Record<string, unknown>): string | null {
  for (const key of ["file_name", "file", "filename", "path", "game_file"]) {
    if (typeof row[key] === "string") return basename(row[key] as string);
  }
  return null;
}

/** Whether a validation row says the game passed: `valid`/`passed`/`ok` booleans or a `status` word. */
function rowPassed(row: Record<string, unknown>): boolean | null {
  for (const key of ["valid", "passed", "ok", "is_valid"]) {
    if (typeof row[key] === "boolean") return row[key] as boolean;
  }
  if (typeof row.status === "string")
    return ["valid", "passed", "pass", "ok"].includes(row.status.toLowerCase());
  return null;
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** The folder holding `games/`: `dir` itself, or its parent when `dir` is the games folder. */
function poolRoot(dir: string): string {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw poolError(
      `${dir} is not a folder`,
      "give the folder that holds games/ and manifest.jsonl",
    );
  if (existsSync(join(dir, "games"))) return dir;
  if (basename(dir) === "games") return join(dir, "..");
  throw poolError(
    `${dir} has no games/ folder`,
    "give the folder that holds games/game_*.py and manifest.jsonl (the GPT-5.5 pool's layout)",
  );
}

/**
 * Reads the pool folder `dir` (the one holding `games/`, or `games/` itself). Every line of
 * `checksums.sha256` and every manifest `sha256` must match its file (E_IO naming the first
 * mismatch: a damaged or edited pool is not trained on); games whose row in
 * `validation_manifest.jsonl` says they failed are left out. E_IO too when no game is left.
 */
export function readPool(dir: string): Pool {
  const root = poolRoot(dir);
  const gamesDir = join(root, "games");
  const files = readdirSync(gamesDir)
    .filter((f) => /^game_.*\.py$/.test(f))
    .sort();
  if (files.length === 0)
    throw poolError(`${gamesDir} has no game_*.py files`, "download the pool again");
  const manifestPath = join(root, "manifest.jsonl");
  const manifest = new Map<string, Record<string, unknown>>();
  if (existsSync(manifestPath))
    for (const row of readJsonl(manifestPath)) {
      const file = rowFile(row);
      if (file) manifest.set(file, row);
    }
  let verified = 0;
  const mismatch = (file: string) =>
    poolError(
      `the checksum of ${file} does not match`,
      "the pool is damaged or was edited: download it again (hf download, as the reference's cmd/games/_download_gpt55_pool.sh)",
    );
  const checksumsPath = join(root, "checksums.sha256");
  const checked = new Set<string>();
  if (existsSync(checksumsPath)) {
    for (const line of readFileSync(checksumsPath, "utf8").split("\n")) {
      const m = /^([0-9a-f]{64}) [ *](.+)$/i.exec(line.trim());
      if (!m) continue;
      const path = join(root, m[2]!);
      if (relative(root, path).startsWith(".."))
        throw poolError(
          `checksums.sha256 names ${m[2]} outside the pool`,
          "download the pool again",
        );
      if (!existsSync(path))
        throw poolError(
          `checksums.sha256 names ${m[2]}, which is missing`,
          "download the pool again",
        );
      if (sha256(path) !== m[1]!.toLowerCase()) throw mismatch(m[2]!);
      checked.add(relative(root, path));
      verified++;
    }
  }
  for (const [file, row] of manifest) {
    const path = join(gamesDir, file);
    if (typeof row.sha256 !== "string" || checked.has(relative(root, path)) || !existsSync(path))
      continue;
    if (sha256(path) !== row.sha256.toLowerCase()) throw mismatch(`games/${file}`);
    verified++;
  }
  const validationPath = join(root, "validation_manifest.jsonl");
  const failed = new Set<string>();
  if (existsSync(validationPath))
    for (const row of readJsonl(validationPath)) {
      const file = rowFile(row);
      if (file && rowPassed(row) === false) failed.add(file);
    }
  const programs = files
    .filter((f) => !failed.has(f))
    .map((file) => {
      const row = manifest.get(file);
      const id = typeof row?.game_id === "string" ? row.game_id : file.slice(0, -3);
      return {
        id: `pool-${id}`,
        file,
        source: readProgramFile(join(gamesDir, file)),
        skill: typeof row?.skill === "string" ? skillTitle(row.skill) : null,
      };
    });
  if (programs.length === 0)
    throw poolError(
      `every game in ${gamesDir} failed the pool's validation`,
      "use a pool with valid games",
    );
  return { root, programs, verified, excluded: files.filter((f) => failed.has(f)) };
}
