import { describe, expect, it } from "vitest";
import { timed } from "../../../../test/assert.js";
import { extractCode, fenceCode } from "./extract.js";

describe("extractCode", () => {
  it("takes the last fenced block and keeps its indentation", () => {
    const text =
      "First try:\n```python\nx = 1\n```\nBetter:\n```python\n    return a + b\n```\nDone.";
    expect(extractCode(text)).toBe("    return a + b\n");
  });

  it("accepts a fence without a language and an unclosed final fence", () => {
    expect(extractCode("```\ndef f():\n    return 1\n```")).toBe("def f():\n    return 1\n");
    expect(extractCode("Here:\n```py\ndef f():\n    return 1\n")).toBe("def f():\n    return 1\n");
  });

  it("uses the whole text when there is no fence", () => {
    expect(extractCode("def f():\n    return 2\n")).toBe("def f():\n    return 2\n");
  });

  it("round-trips fenceCode", () => {
    expect(extractCode(fenceCode("    return 1"))).toBe("    return 1\n");
    expect(fenceCode("x = 1\n")).toBe("```python\nx = 1\n```");
  });
});

describe("extractCode on adversarial answers", () => {
  // A generous bound: the regexes replaced took about 25 s here (quadratic in the spaces).
  it("reads a fence followed by 64K spaces and no newline in linear time", () => {
    const text = `\`\`\`${" ".repeat(65_536)}x`;
    const extracted = timed(() => extractCode(text));
    expect(extracted.value).toBe(text);
    expect(extracted.ms).toBeLessThan(2000);
  });
});
