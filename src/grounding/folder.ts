/**
 * @module grounding/folder
 * Folder corpora. A folder holding any data file (`.jsonl`, `.jsonl.gz`, `.parquet`) is those
 * files concatenated; otherwise every `.txt` / `.md` file in it is one document.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { orIoError, SpadeError } from "../errors.js";
import { indexJsonlGz } from "./gzip.js";
import { indexJsonl } from "./jsonl.js";
import { indexParquet } from "./parquet.js";
import { checkIndex } from "./record.js";
import type { CorpusDocument, ResolvedCorpusOptions } from "./types.js";

/** What every reader produces: a count and a way to read one document. */
export interface DocumentIndex {
  size: number;
  skipped: number;
  read(index: number): Promise<CorpusDocument | null>;
}

/** The data-file kind of a path by its extension, or null. */
export function dataKind(path: string): "jsonl" | "jsonl.gz" | "parquet" | null {
  const lower = path.toLowerCase();
  if (lower.endsWith(".jsonl")) return "jsonl";
  if (lower.endsWith(".jsonl.gz")) return "jsonl.gz";
  if (lower.endsWith(".parquet")) return "parquet";
  return null;
}

/** Indexes one data file, naming it `label` in ids and messages. */
export function indexDataFile(
  path: string,
  options: ResolvedCorpusOptions,
  label: string,
): Promise<DocumentIndex> {
  const kind = dataKind(path);
  if (kind === "jsonl") return indexJsonl(path, options, label);
  if (kind === "jsonl.gz") return indexJsonlGz(path, options, label);
  if (kind === "parquet") return indexParquet(path, options, label);
  throw new SpadeError("E_CONFIG", `unsupported corpus file ${label}`, {
    nextStep: 'give a .jsonl, .jsonl.gz or .parquet file, a folder, or "default"',
  });
}

/**
 * Relative paths (with `/`) of the files under `dir`, recursively, sorted by code unit. Hidden
 * entries (a leading dot) are left out; symbolic links to files are followed (model hubs store
 * datasets as links), links to folders are not (no cycles).
 */
export async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await listFiles(dir, rel)));
    else if (entry.isFile()) found.push(rel);
    else if (
      entry.isSymbolicLink() &&
      (await stat(join(dir, rel)).then(
        (s) => s.isFile(),
        () => false,
      ))
    )
      found.push(rel);
  }
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Joins indexed parts end to end; document i of the whole is found by binary search. */
export function concatIndexes(parts: DocumentIndex[], label: string): DocumentIndex {
  const starts: number[] = [];
  let size = 0;
  for (const part of parts) {
    starts.push(size);
    size += part.size;
  }
  return {
    size,
    skipped: parts.reduce((sum, part) => sum + part.skipped, 0),
    async read(index: number): Promise<CorpusDocument | null> {
      checkIndex(index, size, label);
      let low = 0;
      let high = parts.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >> 1;
        if (starts[mid]! <= index) low = mid;
        else high = mid - 1;
      }
      const doc = await parts[low]!.read(index - starts[low]!);
      return doc === null ? null : { ...doc, index };
    },
  };
}

/** A folder of `.txt` / `.md` files: one document each, id = its relative path. */
function textFilesIndex(dir: string, paths: string[]): DocumentIndex {
  return {
    size: paths.length,
    skipped: 0,
    async read(index: number): Promise<CorpusDocument | null> {
      checkIndex(index, paths.length, dir);
      const rel = paths[index]!;
      const text = await orIoError(
        () => readFile(join(dir, rel), "utf8"),
        `cannot read ${rel} in ${dir}`,
        "check the file is still there",
      );
      return /\S/.test(text) ? { docId: rel, text, index } : null;
    },
  };
}

/**
 * Indexes a folder (see the module comment). Data files are indexed one after another, in path
 * order; in a data folder `.txt` / `.md` files (a README) are not documents. Other files are
 * ignored. Throws E_CONFIG when the folder holds no supported file.
 */
export async function indexFolder(
  dir: string,
  options: ResolvedCorpusOptions,
): Promise<DocumentIndex> {
  const files = await orIoError(
    () => listFiles(dir),
    `cannot list the corpus folder ${dir}`,
    "check the folder's permissions",
  );
  const dataFiles = files.filter((rel) => dataKind(rel) !== null);
  if (dataFiles.length > 0) {
    const parts: DocumentIndex[] = [];
    for (const rel of dataFiles) parts.push(await indexDataFile(join(dir, rel), options, rel));
    return concatIndexes(parts, dir);
  }
  const textFiles = files.filter((rel) => /\.(txt|md)$/i.test(rel));
  const sized = await Promise.all(
    textFiles.map(async (rel) => ((await stat(join(dir, rel))).size > 0 ? rel : null)),
  );
  const nonEmpty = sized.filter((rel): rel is string => rel !== null);
  if (textFiles.length === 0) {
    throw new SpadeError(
      "E_CONFIG",
      `${dir} holds no .jsonl, .jsonl.gz, .parquet, .txt or .md files`,
      {
        nextStep: "point the corpus at a folder of documents or at one data file",
      },
    );
  }
  return { ...textFilesIndex(dir, nonEmpty), skipped: textFiles.length - nonEmpty.length };
}
