import { describe, expect, it } from "vitest";
import {
  countWords,
  DEFAULT_MAX_WORDS,
  TOOL_USE_MAX_WORDS,
  truncateWords,
  truncationMarker,
} from "./truncate.js";
import { codeOf } from "../../test/assert.js";

describe("truncateWords", () => {
  it("keeps the first N words and appends the reference's marker", () => {
    expect(truncateWords("a b c d e", 3)).toBe("a b c\n[Document truncated at ~3 words]");
    expect(truncationMarker(4000)).toBe("\n[Document truncated at ~4000 words]");
  });

  it("keeps the kept part's own whitespace and line breaks", () => {
    expect(truncateWords("  one\ttwo\n\nthree four", 3)).toBe(
      "  one\ttwo\n\nthree\n[Document truncated at ~3 words]",
    );
  });

  it("returns text within budget unchanged, trailing whitespace included", () => {
    expect(truncateWords("a b c  \n", 3)).toBe("a b c  \n");
    expect(truncateWords("a b", 3)).toBe("a b");
    expect(truncateWords("", 3)).toBe("");
  });

  it("defaults to 6,000 words (4,000 is the tool-use budget)", () => {
    expect(DEFAULT_MAX_WORDS).toBe(6000);
    expect(TOOL_USE_MAX_WORDS).toBe(4000);
    const text = Array.from({ length: 6001 }, (_, i) => `w${i}`).join(" ");
    const cut = truncateWords(text);
    expect(cut.endsWith(" w5999\n[Document truncated at ~6000 words]")).toBe(true);
    expect(countWords(cut.slice(0, -truncationMarker(6000).length))).toBe(6000);
    expect(truncateWords(text, 6001)).toBe(text);
  });

  it("rejects a budget that is not a positive integer with E_CONFIG", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(codeOf(() => truncateWords("a b", bad))).toBe("E_CONFIG");
    }
  });
});

describe("countWords", () => {
  it("counts maximal runs of non-whitespace", () => {
    expect(countWords("  Hello,  world!\n42 ")).toBe(3);
    expect(countWords(" \n\t")).toBe(0);
  });
});
