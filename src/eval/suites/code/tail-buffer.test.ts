import { describe, expect, it } from "vitest";
import { TailBuffer } from "./tail-buffer.js";

/** What a TailBuffer of `max` bytes gives after `chunks` were pushed in order. */
const tailOf = (max: number, chunks: string[]) => {
  const tail = new TailBuffer(max);
  for (const chunk of chunks) tail.push(Buffer.from(chunk));
  return tail.text();
};

describe("TailBuffer", () => {
  it("keeps the last max bytes across chunks, and all of a shorter stream", () => {
    expect(tailOf(5, ["abc", "def", "gh"])).toBe("defgh");
    expect(tailOf(5, ["ab", "c"])).toBe("abc");
    expect(tailOf(5, [])).toBe("");
  });

  it("cuts a chunk longer than max, and a character cut in two reads as U+FFFD", () => {
    expect(tailOf(3, ["abcdefg"])).toBe("efg");
    expect(tailOf(3, ["x", "é!!"])).toBe("\uFFFD!!");
  });
});
