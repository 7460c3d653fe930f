/**
 * @module eval/run/results
 * The output folder of a run: `run.json` (what was run), `items/<id>.json` (one file per
 * finished item, written atomically as it finishes) and `summary.json`. A run can be resumed
 * from whatever item files exist.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SpadeError } from "../../errors.js";
import { OUTAGE_CODES } from "../../policy/index.js";
import { storeIoError } from "../../store/index.js";
import type { ItemResult, RunInfo } from "./types.js";

/** The item files' folder inside an output folder. */
export function itemsDir(outDir: string): string {
  return join(outDir, "items");
}

/**
 * A file name for an item id: letters, digits, `.`, `_` and `-` kept, every other byte
 * percent-encoded (`gsm8k/17` -> `gsm8k%2F17.json`), so distinct ids never share a file. An
 * encoding longer than 160 characters (tau2's telecom ids) is cut and suffixed with a hash of the
 * id, keeping names under file systems' 255-byte limit.
 */
export function itemFileName(id: string): string {
  const safe = Array.from(new TextEncoder().encode(id), (b) => {
    const ch = String.fromCharCode(b);
    return /[A-Za-z0-9._-]/.test(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }).join("");
  if (safe.length <= 160) return `${safe}.json`;
  return `${safe.slice(0, 120)}~${createHash("sha256").update(id).digest("hex").slice(0, 32)}.json`;
}

/**
 * Writes JSON to `path` through a temporary file, so an interrupted write leaves no half file (a
 * failed one removes its temporary file). A full disk is E_DISK_FULL: finished items are kept.
 */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {});
    const full = storeIoError(
      err,
      path,
      "finished items are kept: free space and rerun the command with --resume",
    );
    if (full?.code === "E_DISK_FULL") throw full;
    throw new SpadeError("E_IO", `cannot write ${path}: ${(err as Error).message}`, {
      nextStep: "check --out points at a writable folder",
      cause: err,
    });
  }
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, "utf8"));
  } catch (err) {
    throw new SpadeError("E_IO", `cannot read ${path}: ${(err as Error).message}`, {
      nextStep: "delete the damaged file and resume again",
      cause: err,
    });
  }
}

/** Writes one finished item. */
export async function writeItemResult(outDir: string, item: ItemResult): Promise<void> {
  await writeJsonAtomic(join(itemsDir(outDir), itemFileName(item.id)), item);
}

/** The item files present, by id. */
export async function readItemResults(outDir: string): Promise<Map<string, ItemResult>> {
  const dir = itemsDir(outDir);
  const out = new Map<string, ItemResult>();
  if (!existsSync(dir)) return out;
  for (const name of (await readdir(dir)).filter((n) => n.endsWith(".json")).sort()) {
    const item = (await readJson(join(dir, name))) as ItemResult;
    if (typeof item?.id !== "string" || !Array.isArray(item.samples)) {
      throw new SpadeError("E_IO", `${join(dir, name)} is not an item results file`, {
        nextStep: "delete it and resume again",
      });
    }
    out.set(item.id, item);
  }
  return out;
}

/**
 * True when a sample of `item` failed because the model server did (an outage, a timeout): that
 * says nothing of the model, so a resumed run plays the item again.
 */
export function serverFailedItem(item: ItemResult): boolean {
  return item.samples.some((s) => s.failureCode !== null && OUTAGE_CODES.has(s.failureCode));
}

/**
 * Prepares the output folder. A fresh run refuses a folder that already holds item results (it
 * would mix two runs); a resumed run must be the same benchmark, model and sample count.
 * Returns the items already finished (empty for a fresh run).
 */
export async function prepareOutDir(
  outDir: string,
  info: RunInfo,
  resume: boolean,
): Promise<Map<string, ItemResult>> {
  try {
    await mkdir(itemsDir(outDir), { recursive: true });
  } catch (err) {
    throw new SpadeError("E_IO", `cannot create ${itemsDir(outDir)}: ${(err as Error).message}`, {
      cause: err,
      nextStep: "check --out points at a writable folder",
    });
  }
  const runFile = join(outDir, "run.json");
  const existing = await readItemResults(outDir);
  if (!resume) {
    if (existing.size > 0) {
      throw new SpadeError(
        "E_CONFIG",
        `${outDir} already holds results of ${existing.size} item(s)`,
        {
          nextStep: "pass --resume to continue that run, or choose another --out",
        },
      );
    }
  } else if (existsSync(runFile)) {
    const before = (await readJson(runFile)) as RunInfo;
    for (const key of ["benchmark", "model", "samples"] as const) {
      if (before[key] !== info[key]) {
        throw new SpadeError(
          "E_CONFIG",
          `--resume: ${outDir} holds a run with ${key} ${JSON.stringify(before[key])}, not ${JSON.stringify(info[key])}`,
          {
            nextStep: "resume with the same settings, or choose another --out",
          },
        );
      }
    }
  }
  await writeJsonAtomic(runFile, info);
  return existing;
}
