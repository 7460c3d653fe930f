/**
 * @module grounding/parquet
 * Parquet corpora through hyparquet (pure JS). Opening reads only the footer (row count, columns);
 * a document is read by row number, which decodes only the needed columns of one row group.
 */
import {
  asyncBufferFromFile,
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema,
} from "hyparquet";
import type { AsyncBuffer, FileMetaData } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { orIoError, SpadeError } from "../errors.js";
import { DEFAULT_ID_FIELDS, checkIndex, documentFromRecord } from "./record.js";
import type { CorpusDocument, ResolvedCorpusOptions } from "./types.js";

/** An indexed Parquet file, before it is dressed as a `Corpus`. */
export interface ParquetIndex {
  size: number;
  /** Always 0: rows without text are only found when read (they read as null). */
  skipped: number;
  read(index: number): Promise<CorpusDocument | null>;
}

/**
 * Opens the Parquet file at `filePath`: reads its footer and checks that the text column exists.
 * Throws E_IO (unreadable), E_PARSE (not Parquet) or E_CONFIG (no such text column).
 */
export async function indexParquet(
  filePath: string,
  options: ResolvedCorpusOptions,
  label: string,
): Promise<ParquetIndex> {
  const file: AsyncBuffer = await orIoError(
    () => asyncBufferFromFile(filePath),
    `cannot read corpus file ${label}`,
    "check the path and its permissions",
  );
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (cause) {
    throw new SpadeError("E_PARSE", `${label} is not a readable Parquet file`, {
      cause,
      nextStep: "check the download, or convert the corpus to JSONL",
    });
  }
  const columnNames = parquetSchema(metadata).children.map((child) => child.element.name);
  if (!columnNames.includes(options.textField)) {
    throw new SpadeError(
      "E_CONFIG",
      `${label} has no column "${options.textField}" (columns: ${columnNames.join(", ")})`,
      {
        nextStep: "set the corpus text field to the column that holds the documents",
      },
    );
  }
  const wanted = [
    options.textField,
    "title",
    ...(options.idField === null ? DEFAULT_ID_FIELDS : [options.idField]),
  ];
  const columns = [...new Set(wanted)].filter((name) => columnNames.includes(name));
  const size = Number(metadata.num_rows);

  return {
    size,
    skipped: 0,
    async read(index: number): Promise<CorpusDocument | null> {
      checkIndex(index, size, label);
      let rows: Record<string, unknown>[];
      try {
        rows = await parquetReadObjects({
          file,
          metadata,
          columns,
          rowStart: index,
          rowEnd: index + 1,
          compressors,
        });
      } catch (cause) {
        throw new SpadeError("E_PARSE", `cannot decode row ${index} of ${label}`, {
          cause,
          nextStep:
            "check the file is intact and its codec is one of snappy, gzip, zstd, brotli, lz4",
        });
      }
      const row = rows[0];
      return row === undefined
        ? null
        : documentFromRecord(row, options, index, `${label}#${index}`);
    },
  };
}
