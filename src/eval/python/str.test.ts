import { describe, expect, it } from "vitest";
import { timed } from "../../../test/assert.js";
import { stripWhitespace } from "./str.js";

describe("stripWhitespace (Python's str.strip())", () => {
  it.each([
    ["  a b \u3000\n", "a b"],
    ["\x85x\x1c", "x"],
    [" \t\n", ""],
    ["x  y", "x  y"],
  ])("%j -> %j", (s, expected) => {
    expect(stripWhitespace(s)).toBe(expected);
  });

  // A generous bound: the regex replaced took about 16 s here (quadratic in the inner spaces).
  it("keeps a long inner run of spaces in linear time", () => {
    const s = `x${" ".repeat(131_072)}x`;
    const stripped = timed(() => stripWhitespace(s));
    expect(stripped.value).toBe(s);
    expect(stripped.ms).toBeLessThan(2000);
  });
});
