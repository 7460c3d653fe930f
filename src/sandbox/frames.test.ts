import { describe, expect, it } from "vitest";
import { codeAndMessageOf } from "../../test/assert.js";
import { encodeFrame, FRAME_HEADER_BYTES, FrameReader } from "./frames.js";

const BOUND = 1000;

function reader(bound = BOUND): FrameReader {
  return new FrameReader("the test sender", () => bound);
}

describe("frames", () => {
  it("encodes a frame as its UTF-8 byte length (4 bytes, little-endian) then the bytes", () => {
    const frame = encodeFrame('{"a":"é"}');
    expect([...frame]).toEqual([10, 0, 0, 0, ...Buffer.from('{"a":"é"}', "utf8")]);
    expect(encodeFrame("").equals(Buffer.from([0, 0, 0, 0]))).toBe(true);
  });

  it("reads several frames from one chunk, in order", () => {
    const r = reader();
    const chunk = Buffer.concat([encodeFrame("one"), encodeFrame(""), encodeFrame("three")]);
    expect(r.push(chunk)).toEqual(["one", "", "three"]);
    expect(r.pendingBytes).toBe(0);
  });

  it("reads frames split across reads at every byte, the length prefix included", () => {
    const texts = ['{"id":1,"reply":"R\\"ok\\""}', "ü€𝄞", '{"id":2}'];
    const stream = Buffer.concat(texts.map(encodeFrame));
    for (let cut = 0; cut <= stream.length; cut++) {
      for (let cut2 = cut; cut2 <= stream.length; cut2 += 7) {
        const r = reader();
        const got = [
          ...r.push(stream.subarray(0, cut)),
          ...r.push(stream.subarray(cut, cut2)),
          ...r.push(stream.subarray(cut2)),
        ];
        expect(got).toEqual(texts);
        expect(r.pendingBytes).toBe(0);
      }
    }
  });

  it("byte by byte: a frame is given only once complete, and its bytes are counted as pending", () => {
    const r = reader();
    const frame = encodeFrame("hello");
    for (let i = 0; i < frame.length - 1; i++) {
      expect(r.push(frame.subarray(i, i + 1))).toEqual([]);
      expect(r.pendingBytes).toBe(i + 1);
    }
    expect(r.push(frame.subarray(frame.length - 1))).toEqual(["hello"]);
    expect(r.pendingBytes).toBe(0);
  });

  it("refuses a frame over the bound as soon as its length arrives (E_SANDBOX_OUTPUT_SIZE)", () => {
    const r = reader();
    const header = Buffer.alloc(FRAME_HEADER_BYTES);
    header.writeUInt32LE(0xffff_fff0, 0);
    // The length alone is enough: nothing of the 4 GB body has come, nothing is buffered for it.
    expect(r.push(header.subarray(0, 2))).toEqual([]);
    expect(codeAndMessageOf(() => r.push(header.subarray(2)))).toEqual({
      code: "E_SANDBOX_OUTPUT_SIZE",
      message:
        "the test sender sent a 4294967280-byte frame, over the 1000-byte bound of its replies " +
        "(return smaller answers (outputBytes); a sandbox process that oversteps is ended)",
    });
  });

  it("accepts a frame of exactly the bound and refuses one byte more; the bound is read per frame", () => {
    let bound = 5;
    const r = new FrameReader("the test sender", () => bound);
    expect(r.push(encodeFrame("12345"))).toEqual(["12345"]);
    expect(() => r.push(encodeFrame("123456"))).toThrow(/6-byte frame, over the 5-byte bound/);
    bound = 6;
    const r2 = new FrameReader("the test sender", () => bound);
    expect(r2.push(encodeFrame("123456"))).toEqual(["123456"]);
  });

  it("a large frame in many chunks is put together once, whole", () => {
    const text = "x".repeat(300_000);
    const frame = encodeFrame(text);
    const r = reader(400_000);
    const got: string[] = [];
    for (let i = 0; i < frame.length; i += 65_536)
      got.push(...r.push(frame.subarray(i, i + 65_536)));
    expect(got).toEqual([text]);
  });
});
