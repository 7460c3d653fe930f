/**
 * @module eval/fetch
 * Downloading datasets into the data folder: each file streamed to a temporary file beside its
 * destination, hashed on the way, checked (length, sha256), converted if needed, then renamed
 * into place; `manifest.json` in the data folder records every file's sha256 so later runs can
 * tell an intact file from a changed one. `fetch` is injected; where the network fails the
 * error names the file to fetch by hand and where to put it.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, type Dirent } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable, Transform } from "node:stream";
import { SpadeError } from "../errors.js";
import type { Dataset, DatasetFile } from "./datasets.js";

/** The manifest's file name in the data folder. */
export const MANIFEST_FILE = "manifest.json";

/** What the manifest records of one file. */
export interface ManifestEntry {
  sha256: string;
  bytes: number;
  url: string;
  fetchedAt: string;
}

/** The manifest: data-folder-relative path -> entry. */
export type Manifest = Record<string, ManifestEntry>;

/** The outside world of a fetch. */
export interface FetchDeps {
  fetch: typeof globalThis.fetch;
  /** The environment (for a dataset's token variable). */
  env: Record<string, string | undefined>;
  /** The clock (ISO time recorded in the manifest). */
  now: () => Date;
  /** Bytes received so far of a file (`total` null when the server did not say). */
  onProgress?: (file: DatasetFile, received: number, total: number | null) => void;
}

/** What happened to one file. */
export interface FileOutcome {
  path: string;
  status: "downloaded" | "verified";
  sha256: string;
  bytes: number;
}

/** Reads the manifest (an empty one when there is none yet). */
export async function readManifest(root: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(join(root, MANIFEST_FILE), "utf8");
  } catch {
    return {};
  }
  try {
    return JSON.parse(text) as Manifest;
  } catch (err) {
    throw new SpadeError("E_IO", `${join(root, MANIFEST_FILE)} is not valid JSON`, {
      nextStep: "delete it; `spade data fetch all` records the checksums again",
      cause: err,
    });
  }
}

async function writeAtomic(path: string, data: string | Buffer): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

/** sha256 and size of a file, or null when it is not there. */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number } | null> {
  try {
    await stat(path);
  } catch {
    return null;
  }
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest("hex"), bytes };
}

/** The raw download of a converted file, put beside it by hand when the network is not there. */
export function rawDownloadPath(root: string, file: DatasetFile): string {
  return join(root, dirname(file.path), decodeURIComponent(basename(new URL(file.url).pathname)));
}

function byHand(root: string, file: DatasetFile): string {
  return file.convert
    ? `download ${file.url} yourself, save it as ${rawDownloadPath(root, file)}, and run \`spade data fetch\` again (it converts it to ${join(root, file.path)})`
    : `download ${file.url} yourself, save it as ${join(root, file.path)}, and run \`spade data fetch\` again to check and record it`;
}

function fetchError(root: string, file: DatasetFile, what: string, cause?: unknown): SpadeError {
  return new SpadeError("E_DATA_FETCH", `${file.path}: ${what}`, {
    nextStep: byHand(root, file),
    cause,
  });
}

/** Streams `url` to `tmp`, hashing it; rejects on HTTP errors, a dropped connection or a short body. */
async function download(
  root: string,
  dataset: Dataset,
  file: DatasetFile,
  tmp: string,
  deps: FetchDeps,
): Promise<{ sha256: string; bytes: number }> {
  const headers: Record<string, string> = {};
  const token = dataset.tokenEnv ? deps.env[dataset.tokenEnv] : undefined;
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await deps.fetch(file.url, { headers, redirect: "follow" });
  } catch (err) {
    throw fetchError(
      root,
      file,
      `cannot reach ${file.url} (${(err as Error).cause ?? (err as Error).message})`,
      err,
    );
  }
  if (!res.ok || res.body === null) {
    const gated = (res.status === 401 || res.status === 403) && dataset.tokenEnv;
    const why = gated
      ? `; ${dataset.name} is gated: accept its terms on the dataset page and set ${dataset.tokenEnv} to a token${token ? " (the one set was refused)" : ""}`
      : "";
    throw fetchError(root, file, `${file.url} answered HTTP ${res.status}${why}`);
  }
  const totalHeader = res.headers.get("content-length");
  const total = totalHeader !== null && /^\d+$/.test(totalHeader) ? Number(totalHeader) : null;
  const hash = createHash("sha256");
  let received = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      received += chunk.length;
      deps.onProgress?.(file, received, total);
      done(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(res.body as import("node:stream/web").ReadableStream<Uint8Array>),
      meter,
      createWriteStream(tmp),
    );
  } catch (err) {
    throw fetchError(
      root,
      file,
      `the download from ${file.url} broke off after ${received} bytes`,
      err,
    );
  }
  if (total !== null && received !== total)
    throw fetchError(
      root,
      file,
      `the download from ${file.url} broke off after ${received} of ${total} bytes`,
    );
  return { sha256: hash.digest("hex"), bytes: received };
}

/**
 * Puts one file in place: a file already there that matches its known or recorded sha256 is
 * verified; otherwise it is downloaded (or, for a converted file, its raw download is taken
 * from beside it when present), checked and renamed into place. Nothing half-written is ever
 * left at the destination.
 */
export async function fetchFile(
  root: string,
  dataset: Dataset,
  file: DatasetFile,
  manifest: Manifest,
  deps: FetchDeps,
): Promise<FileOutcome> {
  const dest = join(root, file.path);
  const expected = file.sha256 ?? manifest[file.path]?.sha256;
  const existing = await hashFile(dest);
  if (existing && (expected === undefined || existing.sha256 === expected)) {
    manifest[file.path] = {
      sha256: existing.sha256,
      bytes: existing.bytes,
      url: file.url,
      fetchedAt: manifest[file.path]?.fetchedAt ?? deps.now().toISOString(),
    };
    return { path: file.path, status: "verified", ...existing };
  }
  await mkdir(dirname(dest), { recursive: true });
  const tmp = `${dest}.part-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    let got: { sha256: string; bytes: number };
    if (file.convert) {
      const raw = rawDownloadPath(root, file);
      let bytes: Buffer;
      if (await hashFile(raw)) bytes = await readFile(raw);
      else {
        await download(root, dataset, file, tmp, deps);
        bytes = await readFile(tmp);
      }
      const converted = await file.convert(bytes);
      await writeFile(tmp, converted);
      got = {
        sha256: createHash("sha256").update(converted).digest("hex"),
        bytes: converted.length,
      };
    } else {
      got = await download(root, dataset, file, tmp, deps);
    }
    if (file.sha256 !== undefined && got.sha256 !== file.sha256) {
      throw fetchError(
        root,
        file,
        `checksum mismatch: expected sha256 ${file.sha256}, got ${got.sha256} (the file was not kept)`,
      );
    }
    await rename(tmp, dest);
    manifest[file.path] = {
      sha256: got.sha256,
      bytes: got.bytes,
      url: file.url,
      fetchedAt: deps.now().toISOString(),
    };
    return { path: file.path, status: "downloaded", ...got };
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * The files a `sha256sum` listing names (`<sha256>  <path>` or `<sha256> *<path>` lines), each
 * placed beside the listing and fetched from beside its URL, with its sha256. E_DATA_FETCH for a
 * path that would leave the dataset's folder.
 */
export function listedFiles(listing: DatasetFile, text: string): DatasetFile[] {
  const files: DatasetFile[] = [];
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{64}) [ *](.+)$/i.exec(line.trim());
    if (!m) continue;
    const path = m[2]!.replace(/^\.\//, "");
    if (path.startsWith("/") || path.split("/").some((part) => part === ".." || part === ""))
      throw new SpadeError(
        "E_DATA_FETCH",
        `${listing.path} names ${path}, outside the dataset's folder (nothing of it was fetched)`,
        { nextStep: `check ${listing.url}: the source is not the expected one` },
      );
    files.push({
      path: join(dirname(listing.path), path),
      url: new URL(path.split("/").map(encodeURIComponent).join("/"), listing.url).href,
      sha256: m[1]!.toLowerCase(),
    });
  }
  return files;
}

/** Fetches every file of `dataset` (a listing's files first), recording the manifest after each file. */
export async function fetchDataset(
  root: string,
  dataset: Dataset,
  deps: FetchDeps,
): Promise<FileOutcome[]> {
  if (dataset.files.length === 0 && !dataset.listing) {
    throw new SpadeError(
      "E_DATA_FETCH",
      `${dataset.name} has no single download: it comes from ${dataset.source}`,
      {
        nextStep: `copy its folder to ${join(root, dataset.dir)} (the shared benchmarks folder's layout; see docs/eval-suites.md)`,
      },
    );
  }
  await mkdir(root, { recursive: true });
  const outcomes: FileOutcome[] = [];
  if (dataset.listing) {
    const manifest = await readManifest(root);
    outcomes.push(await fetchFile(root, dataset, dataset.listing, manifest, deps));
    await writeAtomic(join(root, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    const text = await readFile(join(root, dataset.listing.path), "utf8");
    // Their sha256 is in the listing: a manifest of their own is not kept.
    for (const file of listedFiles(dataset.listing, text))
      outcomes.push(await fetchFile(root, dataset, file, {}, deps));
  }
  for (const file of dataset.files) {
    const manifest = await readManifest(root);
    outcomes.push(await fetchFile(root, dataset, file, manifest, deps));
    await writeAtomic(join(root, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return outcomes;
}

/** How one dataset stands in the data folder. */
export interface DatasetStatus {
  name: string;
  dir: string;
  present: boolean;
  /** Bytes of its folder's files. */
  bytes: number;
  /** Files whose sha256 differs from the known or recorded one. */
  changed: string[];
}

async function folderBytes(path: string): Promise<number> {
  let total = 0;
  let entries: Dirent[];
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(path, e.name);
    if (e.isDirectory()) total += await folderBytes(p);
    else if (e.isFile()) total += (await stat(p)).size;
  }
  return total;
}

/** Whether each dataset is present, its size, and which of its files no longer match their checksum. */
export async function datasetStatus(
  root: string,
  dataset: Dataset,
  manifest: Manifest,
): Promise<DatasetStatus> {
  const present = await stat(join(root, dataset.marker)).then(
    () => true,
    () => false,
  );
  const changed: string[] = [];
  if (present) {
    for (const file of dataset.files) {
      const expected = file.sha256 ?? manifest[file.path]?.sha256;
      if (expected === undefined) continue;
      const got = await hashFile(join(root, file.path));
      if (got && got.sha256 !== expected) changed.push(file.path);
    }
  }
  return {
    name: dataset.name,
    dir: join(root, dataset.dir),
    present,
    bytes: present ? await folderBytes(join(root, dataset.dir)) : 0,
    changed,
  };
}
