import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { describeError, ERROR_CODES, isSpadeError, SpadeError } from "./errors.js";

describe("SpadeError", () => {
  it("carries its code and appends the next step to the message", () => {
    const err = new SpadeError("E_CONFIG", "--episodes must be an integer", {
      nextStep: "pass a number",
    });
    expect(err.code).toBe("E_CONFIG");
    expect(err.message).toBe("--episodes must be an integer (pass a number)");
    expect(isSpadeError(err, "E_CONFIG")).toBe(true);
    expect(isSpadeError(err, "E_IO")).toBe(false);
    expect(describeError(err)).toBe("E_CONFIG: --episodes must be an integer (pass a number)");
    expect(describeError("plain")).toBe("plain");
  });

  it("every code is documented in docs/errors.md", () => {
    const doc = readFileSync(new URL("../docs/errors.md", import.meta.url), "utf8");
    const undocumented = Object.keys(ERROR_CODES).filter((code) => !doc.includes(`\`${code}\``));
    expect(undocumented).toEqual([]);
  });
});
