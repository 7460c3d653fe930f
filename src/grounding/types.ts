/**
 * @module grounding/types
 * What a corpus is to the rest of SPADE: a fixed, indexed list of documents read one at a time.
 */

/** How a corpus is stored on disk. `folder` is a folder of text files or of data files. */
export type CorpusFormat = "jsonl" | "jsonl.gz" | "parquet" | "folder";

/** One document of a corpus. */
export interface CorpusDocument {
  /**
   * Stable id: the record's id field when it has one (see `CorpusOptions.idField`), else
   * `FILE:LINE` for JSONL (1-based line), `FILE#ROW` for Parquet (0-based row), or the path of
   * a text file, FILE being relative to the corpus path (its base name for a single file).
   */
  docId: string;
  /** The full text, untruncated. */
  text: string;
  /** Position in the corpus, 0-based: what the sampler draws. */
  index: number;
  /** The record's `title` field, when it has a non-empty string one. */
  title?: string;
}

/**
 * A corpus opened for reading: its documents are indexed (counted and located) once when it is
 * opened, and each is read from disk only when asked for, so a large corpus is never held in
 * memory.
 */
export interface Corpus {
  /** The path it was opened from (`"default"` resolves to the shipped corpus's path). */
  readonly path: string;
  readonly format: CorpusFormat;
  /** Number of documents that can be read. */
  readonly size: number;
  /** Records left out while indexing (bad JSON, no text), when `onInvalid` is `"skip"`. */
  readonly skipped: number;
  /**
   * Reads document `index` (0 <= index < size). Resolves to null when the document has no usable
   * text and that could not be known while indexing (a Parquet row with a null or blank text);
   * the sampler then draws again. Rejects with E_CONFIG for an index out of range.
   */
  read(index: number): Promise<CorpusDocument | null>;
}

/** Options for opening a corpus. Every field is optional. */
export interface CorpusOptions {
  /** Field (JSONL key or Parquet column) that holds the text. Default `"text"`. */
  textField?: string;
  /**
   * Field that holds a document's id. Default: `"id"`, else `"doc_id"`, whichever a record has
   * (the team's OpenStax sample uses `doc_id`).
   */
  idField?: string;
  /**
   * What to do with a JSONL line that is not a JSON object or has no non-blank string in the text
   * field: `"skip"` it and count it in `Corpus.skipped` (default; the reference does this), or
   * `"fail"` with E_PARSE naming the file and line. Blank lines are always ignored.
   */
  onInvalid?: "skip" | "fail";
  /**
   * Folder for the decompressed copies of `.jsonl.gz` files (gzip has no random access, so each
   * is inflated once to `<cacheDir>/<hash>.jsonl` and read from there; the hash covers the
   * file's path, size and modification time, so a changed file gets a new copy).
   * Default `<os.tmpdir()>/spade-corpus-cache`.
   */
  cacheDir?: string;
}

/** `CorpusOptions` with the defaults filled in. */
export interface ResolvedCorpusOptions {
  textField: string;
  /** null means "`id`, else `doc_id`". */
  idField: string | null;
  onInvalid: "skip" | "fail";
  cacheDir: string;
}
