import { describe, expect, it } from "vitest";
import { ShingleTable } from "./dedupe-shingles.js";

/** The programs `table` lists for `key`, ascending; null when it does not hold the key. */
function programsOf(table: ShingleTable, key: number): number[] | null {
  const slot = table.find(key);
  if (slot < 0) return null;
  const programs: number[] = [];
  table.forEach(slot, (p) => programs.push(p));
  expect(table.count(slot)).toBe(programs.length);
  return programs.sort((a, b) => a - b);
}

describe("ShingleTable", () => {
  it("lists every program of a key across its chunks (1, 2, 3, 6, 7, 100 programs)", () => {
    const table = new ShingleTable();
    const sizes = [1, 2, 3, 6, 7, 100];
    for (let program = 0; program < 100; program++)
      sizes.forEach((size, key) => {
        if (program < size) table.add(Math.imul(key, 0x9e3779b1) >>> 0, program);
      });
    sizes.forEach((size, key) => {
      expect(programsOf(table, Math.imul(key, 0x9e3779b1) >>> 0), `key ${key}`).toEqual(
        Array.from({ length: size }, (_, p) => p),
      );
    });
    expect(table.find(12345)).toBe(-1);
    expect(table.count(-1)).toBe(0);
  });

  it("keeps every key and its programs when it grows (20,000 keys, hash 0 included)", () => {
    const table = new ShingleTable();
    for (let key = 0; key < 20_000; key++) {
      table.add(key, key % 7);
      if (key % 3 === 0) table.add(key, 7 + (key % 5));
    }
    for (const key of [0, 1, 2, 3, 2_867, 9_999, 19_998, 19_999])
      expect(programsOf(table, key), `key ${key}`).toEqual(
        key % 3 === 0 ? [key % 7, 7 + (key % 5)] : [key % 7],
      );
    expect(programsOf(table, 20_000)).toBeNull();
    expect(programsOf(table, 0xffffffff)).toBeNull();
  });
});
