import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { parquetWriteBuffer } from "hyparquet-writer";
import { parquetMetadata, type CompressionCodec } from "hyparquet";
import { beforeAll, describe, expect, it } from "vitest";
import { fileTempDir } from "../../test/cleanup.js";
import { openCorpus } from "./open.js";

// Five rows in row groups of two; row 3 has a null text and row 4 a blank one.
const IDS = ["p0", "p1", "p2", "p3", "p4"];
const TEXTS = [
  "First row text.",
  "Second row, ünïcode ✓.",
  "Third row\nwith a line break.",
  null,
  "  ",
];
const TITLES = ["One", "Two", "Three", "Four", "Five"];

/**
 * Test double for a zstd compressor (Node 20 has none): a valid zstd frame made of raw
 * (stored) blocks, which exercises the reader's zstd decoder without compressing.
 */
function zstdStored(input: Uint8Array): Uint8Array {
  const blocks: Buffer[] = [];
  const maxBlock = 128 * 1024;
  for (let at = 0; at < input.length || blocks.length === 0; at += maxBlock) {
    const part = input.subarray(at, at + maxBlock);
    const last = at + maxBlock >= input.length ? 1 : 0;
    const header = (part.length << 3) | last; // block type 0 = raw
    blocks.push(
      Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]),
      Buffer.from(part),
    );
  }
  const frameHeader = Buffer.alloc(9);
  frameHeader.writeUInt32LE(0xfd2fb528, 0); // magic
  frameHeader[4] = 0xa0; // 4-byte content size, single segment, no checksum, no dictionary
  frameHeader.writeUInt32LE(input.length, 5);
  return new Uint8Array(Buffer.concat([frameHeader, ...blocks]));
}

function fixture(
  codec: CompressionCodec,
  columns: { id?: boolean; textName?: string } = {},
): ArrayBuffer {
  return parquetWriteBuffer({
    columnData: [
      ...(columns.id === false ? [] : [{ name: "id", data: IDS, type: "STRING" as const }]),
      { name: columns.textName ?? "text", data: TEXTS, type: "STRING" as const, nullable: true },
      { name: "title", data: TITLES, type: "STRING" as const },
    ],
    rowGroupSize: 2,
    codec,
    compressors: {
      GZIP: (input) => gzipSync(input),
      BROTLI: (input) => brotliCompressSync(input),
      ZSTD: zstdStored,
    },
  });
}

const dir = fileTempDir("spade-grounding-parquet-");
beforeAll(async () => {
  for (const codec of ["UNCOMPRESSED", "SNAPPY", "GZIP", "BROTLI", "ZSTD"] as const) {
    await writeFile(join(dir, `${codec.toLowerCase()}.parquet`), Buffer.from(fixture(codec)));
  }
  await writeFile(join(dir, "noid.parquet"), Buffer.from(fixture("SNAPPY", { id: false })));
  await writeFile(join(dir, "body.parquet"), Buffer.from(fixture("SNAPPY", { textName: "body" })));
});

describe("Parquet corpus", () => {
  it("fixtures really use their codec and three row groups", () => {
    for (const codec of ["UNCOMPRESSED", "SNAPPY", "GZIP", "BROTLI", "ZSTD"] as const) {
      const metadata = parquetMetadata(fixture(codec));
      expect(metadata.row_groups.length).toBe(3);
      expect(metadata.row_groups[0]!.columns[1]!.meta_data?.codec).toBe(codec);
    }
  });

  for (const codec of ["uncompressed", "snappy", "gzip", "brotli", "zstd"]) {
    it(`reads rows by number across row groups (${codec})`, async () => {
      const corpus = await openCorpus(join(dir, `${codec}.parquet`));
      expect(corpus).toMatchObject({ format: "parquet", size: 5, skipped: 0 });
      expect(await corpus.read(2)).toEqual({
        docId: "p2",
        text: "Third row\nwith a line break.",
        index: 2,
        title: "Three",
      });
      expect(await corpus.read(0)).toEqual({
        docId: "p0",
        text: "First row text.",
        index: 0,
        title: "One",
      });
      expect(await corpus.read(1)).toEqual({
        docId: "p1",
        text: "Second row, ünïcode ✓.",
        index: 1,
        title: "Two",
      });
      expect(await corpus.read(3)).toBeNull();
      expect(await corpus.read(4)).toBeNull();
      await expect(corpus.read(5)).rejects.toMatchObject({ code: "E_CONFIG" });
    });
  }

  it("falls back to FILE#ROW ids without an id column", async () => {
    const corpus = await openCorpus(join(dir, "noid.parquet"));
    expect(await corpus.read(1)).toEqual({
      docId: "noid.parquet#1",
      text: "Second row, ünïcode ✓.",
      index: 1,
      title: "Two",
    });
  });

  it("E_CONFIG when the text column is missing, naming the columns", async () => {
    await expect(openCorpus(join(dir, "body.parquet"))).rejects.toMatchObject({
      code: "E_CONFIG",
      message: expect.stringContaining(
        'body.parquet has no column "text" (columns: id, body, title)',
      ),
    });
    const corpus = await openCorpus(join(dir, "body.parquet"), { textField: "body" });
    expect((await corpus.read(0))?.text).toBe("First row text.");
  });

  it("E_PARSE for a file that is not Parquet", async () => {
    await writeFile(join(dir, "fake.parquet"), "definitely not parquet");
    await expect(openCorpus(join(dir, "fake.parquet"))).rejects.toMatchObject({ code: "E_PARSE" });
  });
});
