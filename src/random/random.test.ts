// Hashing and seeded streams: published FNV-1a vectors, and values pinned from before the move.
import { describe, expect, it } from "vitest";
import { fnv1a32, indexAt, mulberry32, seedOf, uniformAt } from "./index.js";

describe("fnv1a32", () => {
  it("gives the published 32-bit FNV-1a values", () => {
    expect([fnv1a32(""), fnv1a32("a"), fnv1a32("foobar")]).toEqual([
      0x811c9dc5, 0xe40c292c, 0xbf9cf968,
    ]);
  });
});

describe("seedOf", () => {
  it("gives the seeds runs were written with (31 bits, parts joined by NUL)", () => {
    expect([seedOf(7, "play", 3, "d1-0", 2), seedOf(), seedOf("a")]).toEqual([
      1226274129, 1436499461, 222320857,
    ]);
    expect(seedOf("ab", "c")).not.toBe(seedOf("a", "bc"));
  });
});

describe("mulberry32", () => {
  it("is a fixed stream per seed, in [0, 1)", () => {
    const next = mulberry32(42);
    expect([next(), next(), next()]).toEqual([
      0.6011037519201636, 0.44829055899754167, 0.8524657934904099,
    ]);
    const again = mulberry32(42);
    expect(again()).toBe(0.6011037519201636);
  });
});

describe("uniformAt / indexAt", () => {
  it("depend only on (seed, draw, attempt)", () => {
    expect(uniformAt(5, 10, 1)).toBe(uniformAt(5, 10, 1));
    expect(uniformAt(5, 10, 1)).not.toBe(uniformAt(5, 10, 2));
    expect(indexAt(7, 5, 10, 1)).toBe(Math.floor(uniformAt(5, 10, 1) * 7));
  });
});
