/**
 * @module grounding/record
 * Turning one record (a JSONL object or a Parquet row) into a document: the text, id and title
 * rules shared by every reader.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpadeError } from "../errors.js";
import type { CorpusDocument, CorpusOptions, ResolvedCorpusOptions } from "./types.js";

/** Id fields tried, in order, when `idField` is not set. */
export const DEFAULT_ID_FIELDS = ["id", "doc_id"] as const;

/** Fills in the defaults of `CorpusOptions` and checks the values. Throws E_CONFIG. */
export function resolveCorpusOptions(options: CorpusOptions = {}): ResolvedCorpusOptions {
  const textField = options.textField ?? "text";
  if (typeof textField !== "string" || textField === "") {
    throw new SpadeError("E_CONFIG", "the corpus text field must be a non-empty string", {
      nextStep: 'leave it unset for "text", or name the field that holds each document',
    });
  }
  const onInvalid = options.onInvalid ?? "skip";
  if (onInvalid !== "skip" && onInvalid !== "fail") {
    throw new SpadeError(
      "E_CONFIG",
      `onInvalid must be "skip" or "fail", got ${JSON.stringify(onInvalid)}`,
    );
  }
  return {
    textField,
    idField: options.idField === undefined || options.idField === "" ? null : options.idField,
    onInvalid,
    cacheDir: options.cacheDir ?? join(tmpdir(), "spade-corpus-cache"),
  };
}

/** The record's text when it is a string with at least one non-whitespace character, else null. */
export function textOf(record: Record<string, unknown>, textField: string): string | null {
  const text = record[textField];
  return typeof text === "string" && /\S/.test(text) ? text : null;
}

/** The record's id as a string (strings, numbers and bigints count), else null. */
export function idOf(record: Record<string, unknown>, idField: string | null): string | null {
  for (const field of idField === null ? DEFAULT_ID_FIELDS : [idField]) {
    const value = record[field];
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number" || typeof value === "bigint") return String(value);
  }
  return null;
}

/**
 * The document for a record, or null when it has no usable text. `fallbackId` is used when the
 * record has no id.
 */
export function documentFromRecord(
  record: Record<string, unknown>,
  options: ResolvedCorpusOptions,
  index: number,
  fallbackId: string,
): CorpusDocument | null {
  const text = textOf(record, options.textField);
  if (text === null) return null;
  const doc: CorpusDocument = { docId: idOf(record, options.idField) ?? fallbackId, text, index };
  const title = record["title"];
  if (typeof title === "string" && title.trim() !== "") doc.title = title;
  return doc;
}

/** True for a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Throws E_CONFIG unless `index` is an integer in [0, size). */
export function checkIndex(index: number, size: number, path: string): void {
  if (!Number.isInteger(index) || index < 0 || index >= size) {
    throw new SpadeError("E_CONFIG", `document index ${index} is outside [0, ${size}) in ${path}`, {
      nextStep: "read indices below corpus.size",
    });
  }
}
