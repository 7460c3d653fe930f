import { describe, expect, it } from "vitest";
import { visibleText } from "./guest-text.js";

describe("visibleText", () => {
  // Issue 16 item 5: these sequences reached the terminal raw from observations and messages.
  it("shows terminal control sequences as escapes", () => {
    expect(visibleText("\u001b]52;c;ZXZpbA==\u0007clipboard")).toBe(
      "\\x1b]52;c;ZXZpbA==\\x07clipboard",
    );
    expect(visibleText("\u001b]0;title\u0007")).toBe("\\x1b]0;title\\x07");
    expect(visibleText("x\u001b[1A\u001b[2K\r  ok   E_ORACLE")).toBe(
      "x\\x1b[1A\\x1b[2K\\r  ok   E_ORACLE",
    );
    expect(visibleText("\u009b2J\u007f\u0000")).toBe("\\x9b2J\\x7f\\x00");
    expect(visibleText("abc\u202edcba\u2066")).toBe("abc\\u202edcba\\u2066");
  });

  it("keeps tabs, newlines and ordinary text, unless one line is asked for", () => {
    expect(visibleText("a\tb\nc — é 𝑥")).toBe("a\tb\nc — é 𝑥");
    expect(visibleText("a\nb\r\n", { oneLine: true })).toBe("a\\nb\\r\\n");
  });
});
