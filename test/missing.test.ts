// The missing-data rule: fail under CI, skip with a printed reason elsewhere; optional
// cross-checks skip with the reason printed everywhere.
import { describe, expect, it } from "vitest";
import { isCI, skipOptional, skipWithout } from "./missing.js";

describe("skipWithout", () => {
  it("runs a suite whose needs are there, in CI or not", () => {
    const printed: string[] = [];
    expect(skipWithout(null, { CI: "true" }, (l) => printed.push(l))).toBe(false);
    expect(skipWithout(null, {}, (l) => printed.push(l))).toBe(false);
    expect(printed).toEqual([]);
  });

  it("skips with the reason printed outside CI", () => {
    const printed: string[] = [];
    expect(
      skipWithout("no data at /x (run npm run data)", { CI: "false" }, (l) => printed.push(l)),
    ).toBe(true);
    expect(printed).toEqual(["skipped: no data at /x (run npm run data)"]);
  });

  it("throws under CI, naming what is missing", () => {
    expect(() => skipWithout("no data at /x", { CI: "1" })).toThrow(
      "missing under CI, where it must be present: no data at /x",
    );
  });

  it("reads CI as set unless empty, 0 or false", () => {
    expect(
      [
        { CI: "true" },
        { CI: "1" },
        { CI: "yes" },
        { CI: "" },
        { CI: "0" },
        { CI: "FALSE" },
        {},
      ].map((e) => isCI(e)),
    ).toEqual([true, true, true, false, false, false, false]);
  });
});

describe("skipOptional", () => {
  it("runs a check whose source is there and skips, printing why, one whose source is not", () => {
    const printed: string[] = [];
    expect(skipOptional(null, (l) => printed.push(l))).toBe(false);
    expect(skipOptional("SPADE_X_SRC is not set", (l) => printed.push(l))).toBe(true);
    expect(printed).toEqual(["skipped (optional): SPADE_X_SRC is not set"]);
  });
});
