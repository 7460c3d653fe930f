/**
 * @module grounding/open
 * `openCorpus`: from a path (or `"default"`) to an indexed `Corpus`, the format chosen by the
 * file's extension.
 */
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { SpadeError } from "../errors.js";
import { dataKind, indexDataFile, indexFolder, type DocumentIndex } from "./folder.js";
import { resolveCorpusOptions } from "./record.js";
import type { Corpus, CorpusFormat, CorpusOptions } from "./types.js";

/**
 * The project's own corpus (original short documents across many domains), used when a run
 * configures none. Resolved from this module so it works from `src/` (tests) and from `dist/`
 * (the built command), both two levels below the package root.
 */
export const DEFAULT_CORPUS_PATH = fileURLToPath(
  new URL("../../src/grounding/corpus/default.jsonl", import.meta.url),
);

/** What `openCorpus` accepts: the spec, with the name of the shipped corpus. */
export const DEFAULT_CORPUS_SPEC = "default";

/**
 * Opens a corpus. `spec` is `"default"` (the shipped corpus), a `.jsonl`, `.jsonl.gz` or
 * `.parquet` file, or a folder (see grounding/folder). Every document is indexed now; texts are
 * read later, one at a time.
 * Throws E_IO (missing or unreadable path), E_CONFIG (unsupported extension, bad options, no
 * usable documents, no such Parquet column) or E_PARSE (a bad line with `onInvalid: "fail"`,
 * broken gzip or Parquet).
 */
export async function openCorpus(spec: string, options: CorpusOptions = {}): Promise<Corpus> {
  const resolved = resolveCorpusOptions(options);
  const path = spec === DEFAULT_CORPUS_SPEC ? DEFAULT_CORPUS_PATH : spec;
  const info = await stat(path).catch((cause: unknown) => {
    throw new SpadeError("E_IO", `corpus not found: ${path}`, {
      cause,
      nextStep:
        'give a .jsonl, .jsonl.gz or .parquet file, a folder of them or of .txt/.md files, or "default"',
    });
  });

  let format: CorpusFormat;
  let index: DocumentIndex;
  if (info.isDirectory()) {
    format = "folder";
    index = await indexFolder(path, resolved);
  } else {
    const kind = dataKind(path);
    if (kind === null) {
      throw new SpadeError("E_CONFIG", `unsupported corpus format: ${path}`, {
        nextStep: 'use .jsonl, .jsonl.gz or .parquet, a folder of .txt/.md files, or "default"',
      });
    }
    format = kind;
    index = await indexDataFile(path, resolved, basename(path));
  }

  if (index.size === 0) {
    throw new SpadeError(
      "E_CONFIG",
      `corpus ${path} has no usable documents (${index.skipped} records skipped)`,
      {
        nextStep: `check that records hold their text in the field "${resolved.textField}" (set textField otherwise)`,
      },
    );
  }
  return { path, format, size: index.size, skipped: index.skipped, read: (i) => index.read(i) };
}
