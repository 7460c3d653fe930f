/**
 * @module grounding/gzip
 * `.jsonl.gz` corpora. Gzip cannot be read from the middle, so each file is inflated once into a
 * cache folder and indexed there as plain JSONL; memory stays flat however large the file is.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { SpadeError } from "../errors.js";
import { indexJsonl, type JsonlIndex } from "./jsonl.js";
import type { ResolvedCorpusOptions } from "./types.js";

/**
 * Path of the inflated copy of `gzPath` in `cacheDir`: named by a hash of the absolute path, size
 * and modification time, so an edited or replaced file never reuses a stale copy.
 */
export async function inflatedCachePath(gzPath: string, cacheDir: string): Promise<string> {
  const info = await stat(gzPath);
  const key = createHash("sha256")
    .update(`${resolve(gzPath)}\0${info.size}\0${info.mtimeMs}`)
    .digest("hex");
  return join(cacheDir, `${key.slice(0, 32)}.jsonl`);
}

/**
 * Inflates `gzPath` into the cache unless a copy is already there, and returns the copy's path.
 * The copy is written under a temporary name and renamed, so a crash or a concurrent open never
 * leaves a half-written copy under the final name. Throws E_IO (unreadable file, cache not
 * writable) or E_PARSE (not valid gzip).
 */
export async function inflateToCache(
  gzPath: string,
  cacheDir: string,
  label: string,
): Promise<string> {
  const target = await inflatedCachePath(gzPath, cacheDir);
  if (
    await stat(target).then(
      () => true,
      () => false,
    )
  )
    return target;
  try {
    await mkdir(cacheDir, { recursive: true });
  } catch (cause) {
    throw new SpadeError("E_IO", `cannot create the corpus cache folder ${cacheDir}`, {
      cause,
      nextStep: "set cacheDir to a writable folder",
    });
  }
  const partial = `${target}.${process.pid}.${Date.now()}.partial`;
  try {
    await pipeline(createReadStream(gzPath), createGunzip(), createWriteStream(partial));
    await rename(partial, target);
  } catch (cause) {
    await rm(partial, { force: true });
    const code = (cause as { code?: string }).code;
    if (typeof code === "string" && code.startsWith("Z_")) {
      throw new SpadeError("E_PARSE", `${label} is not a valid gzip file`, {
        cause,
        nextStep: "check the download, or give the uncompressed .jsonl",
      });
    }
    throw new SpadeError("E_IO", `cannot inflate ${label} into ${cacheDir}`, {
      cause,
      nextStep: "check the file's permissions and the cache folder's free space",
    });
  }
  return target;
}

/** Indexes a `.jsonl.gz` file through its inflated copy (see `inflateToCache`). */
export async function indexJsonlGz(
  gzPath: string,
  options: ResolvedCorpusOptions,
  label: string,
): Promise<JsonlIndex> {
  const inflated = await inflateToCache(gzPath, options.cacheDir, label);
  return indexJsonl(inflated, options, label);
}
