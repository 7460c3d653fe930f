/**
 * @module grounding/jsonl
 * JSONL corpora: one streaming pass records the byte offset and length of every usable line;
 * afterwards a document is one positioned read of its line.
 */
import { createReadStream } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { SpadeError } from "../errors.js";
import { checkIndex, documentFromRecord, isRecord, textOf } from "./record.js";
import type { CorpusDocument, ResolvedCorpusOptions } from "./types.js";

/** An indexed JSONL file, before it is dressed as a `Corpus`. */
export interface JsonlIndex {
  size: number;
  skipped: number;
  read(index: number): Promise<CorpusDocument>;
}

/**
 * Growable columns of numbers: byte offset, byte length and 1-based line number of each usable
 * line. 24 bytes a document, so ten million documents index in about 240 MB.
 */
class LineTable {
  size = 0;
  private columns = [new Float64Array(1024), new Float64Array(1024), new Float64Array(1024)];

  push(offset: number, length: number, line: number): void {
    if (this.size === this.columns[0]!.length) {
      this.columns = this.columns.map((old) => {
        const grown = new Float64Array(old.length * 2);
        grown.set(old);
        return grown;
      });
    }
    this.columns[0]![this.size] = offset;
    this.columns[1]![this.size] = length;
    this.columns[2]![this.size] = line;
    this.size += 1;
  }

  get(index: number): { offset: number; length: number; line: number } {
    return {
      offset: this.columns[0]![index]!,
      length: this.columns[1]![index]!,
      line: this.columns[2]![index]!,
    };
  }
}

/** Parses one line; undefined when it is not JSON. Drops a leading byte-order mark. */
function parseLine(bytes: Buffer): unknown {
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Indexes the JSONL file at `filePath` in one streaming pass. `label` names the file in fallback
 * ids (`label:LINE`) and in error messages. Lines that are blank are ignored; lines that are not
 * a JSON object or have no usable text are skipped and counted, or throw E_PARSE when
 * `options.onInvalid` is `"fail"`. Throws E_IO when the file cannot be read.
 */
export async function indexJsonl(
  filePath: string,
  options: ResolvedCorpusOptions,
  label: string,
): Promise<JsonlIndex> {
  const table = new LineTable();
  let skipped = 0;
  let lineNumber = 0;

  const consider = (bytes: Buffer, offset: number): void => {
    lineNumber += 1;
    if (!/\S/.test(bytes.toString("latin1"))) return;
    const record = parseLine(bytes);
    if (isRecord(record) && textOf(record, options.textField) !== null) {
      table.push(offset, bytes.length, lineNumber);
      return;
    }
    if (options.onInvalid === "fail") {
      const why = isRecord(record)
        ? `has no text in field "${options.textField}"`
        : "is not a JSON object";
      throw new SpadeError("E_PARSE", `${label} line ${lineNumber} ${why}`, {
        nextStep:
          'fix the line, set the right text field, or use onInvalid "skip" to leave such lines out',
      });
    }
    skipped += 1;
  };

  let chunkOffset = 0; // file offset of the current chunk's first byte
  let lineOffset = 0; // file offset of the current line's first byte
  let pending: Buffer[] = []; // the current line's bytes from earlier chunks
  try {
    for await (const chunk of createReadStream(filePath, {
      highWaterMark: 1 << 20,
    }) as AsyncIterable<Buffer>) {
      let from = 0;
      for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, from)) {
        const tail = chunk.subarray(from, newline);
        consider(pending.length === 0 ? tail : Buffer.concat([...pending, tail]), lineOffset);
        pending = [];
        from = newline + 1;
        lineOffset = chunkOffset + from;
      }
      if (from < chunk.length) pending.push(chunk.subarray(from));
      chunkOffset += chunk.length;
    }
  } catch (cause) {
    if (cause instanceof SpadeError) throw cause;
    throw new SpadeError("E_IO", `cannot read corpus file ${label}`, {
      cause,
      nextStep: "check the path and its permissions",
    });
  }
  if (pending.length > 0) consider(Buffer.concat(pending), lineOffset);

  return {
    size: table.size,
    skipped,
    async read(index: number): Promise<CorpusDocument> {
      checkIndex(index, table.size, label);
      const { offset, length, line } = table.get(index);
      const bytes = Buffer.alloc(length);
      let handle: FileHandle | undefined;
      try {
        handle = await open(filePath, "r");
        await handle.read(bytes, 0, length, offset);
      } catch (cause) {
        throw new SpadeError("E_IO", `cannot read ${label} line ${line}`, {
          cause,
          nextStep: "check the file is still there",
        });
      } finally {
        await handle?.close();
      }
      const record = parseLine(bytes);
      const doc = isRecord(record)
        ? documentFromRecord(record, options, index, `${label}:${line}`)
        : null;
      if (doc === null) {
        throw new SpadeError(
          "E_PARSE",
          `${label} line ${line} changed since the corpus was opened`,
          {
            nextStep: "do not edit a corpus file during a run; open the corpus again",
          },
        );
      }
      return doc;
    },
  };
}
