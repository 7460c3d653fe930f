// The guest prelude's date-string patterns, read back from the source the guest runs.
import { describe, expect, it } from "vitest";
import { PRELUDE_SOURCE } from "./prelude.js";

function guestPatterns(): { DATE_ONLY: RegExp; HAS_ZONE: RegExp } {
  const line = PRELUDE_SOURCE.split("\n").find((l) => l.startsWith("var DATE_ONLY"));
  if (line === undefined) throw new Error("the prelude no longer declares DATE_ONLY");
  return new Function(`${line}\nreturn { DATE_ONLY, HAS_ZONE };`)();
}

describe("prelude date patterns as the guest sees them", () => {
  it("DATE_ONLY matches a date without a time, and nothing else", () => {
    const { DATE_ONLY } = guestPatterns();
    expect(["2024-03-10", " 2024-03 ", "+002024"].map((s) => DATE_ONLY.test(s))).toEqual([
      true,
      true,
      true,
    ]);
    expect(["2024-03-10 12:00", "ssss", "dddd"].map((s) => DATE_ONLY.test(s))).toEqual([
      false,
      false,
      false,
    ]);
  });

  it("HAS_ZONE matches an explicit zone, and not a local time", () => {
    const { HAS_ZONE } = guestPatterns();
    const zoned = [
      "2024-03-10T12:00:00Z",
      "2024-03-10T12:00:00+05:00",
      "Sun Mar 10 2024 12:00:00 GMT+0100 (CET)",
    ];
    expect(zoned.map((s) => HAS_ZONE.test(s))).toEqual([true, true, true]);
    expect(["2024-03-10 12:00", "Zanzibar 2024-03-10 12:00"].map((s) => HAS_ZONE.test(s))).toEqual([
      false,
      false,
    ]);
  });
});
