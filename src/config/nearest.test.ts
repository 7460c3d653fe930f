import { describe, expect, it } from "vitest";
import { editDistance, nearestName } from "./nearest.js";

describe("editDistance", () => {
  it.each([
    ["prot", "port", 1],
    ["stepz", "steps", 1],
    ["concurency", "concurrency", 1],
    ["kitten", "sitting", 3],
    ["", "abc", 3],
    ["abc", "abc", 0],
  ])("editDistance(%s, %s) = %d", (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected);
  });
});

describe("nearestName", () => {
  const names = ["port", "poll", "max-sessions", "concurrency"];
  it("names the closest flag within two edits", () => {
    expect(nearestName("prot", names)).toBe("port");
    expect(nearestName("maxSesions", names)).toBe("max-sessions");
    expect(nearestName("concurency", names)).toBe("concurrency");
  });
  it("names none when every flag is further, or the word is too short to judge", () => {
    expect(nearestName("xyzzy", names)).toBeUndefined();
    expect(nearestName("po", names)).toBeUndefined();
  });
});
