import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PyRandom } from "./random.js";

interface Case {
  seed: string;
  uint32: number[];
  random: string[];
  getrandbits: Record<string, string>;
  randint: number[];
  randrange: number[];
  uniform: string[];
  choice: string[];
  shuffle: number[];
  sample_small: number[];
  sample_large: number[];
}

const fixture = JSON.parse(
  readFileSync(new URL("./testing/pyrandom_fixture.json", import.meta.url), "utf8"),
) as { cases: Case[] };

/** Parses Python's `float.hex()` text exactly (normal numbers only). */
function fromHex(text: string): number {
  const m = /^(-?)0x([01])\.([0-9a-f]{13})p([+-]\d+)$/.exec(text);
  if (!m) throw new Error(`bad hex float ${text}`);
  const mantissa = Number(m[2]) * 2 ** 52 + parseInt(m[3]!, 16);
  const value = mantissa * 2 ** (Number(m[4]) - 52);
  return m[1] === "-" ? -value : value;
}

describe("PyRandom matches CPython random.Random", () => {
  for (const c of fixture.cases) {
    it(`seed ${c.seed}`, () => {
      const r = new PyRandom(BigInt(c.seed));
      expect(c.uint32.map(() => r.genrandUint32())).toEqual(c.uint32);
      expect(c.random.map(() => r.random())).toEqual(c.random.map(fromHex));
      for (const k of [1, 7, 31, 33, 53, 64, 100]) {
        expect(r.getrandbitsBig(k).toString()).toBe(c.getrandbits[String(k)]);
      }
      expect([
        r.randint(0, 1),
        r.randint(10000, 99999),
        r.randint(1000000, 9999999),
        r.randint(100000000000, 999999999999),
        r.randint(-50, 50),
      ]).toEqual(c.randint);
      expect([r.randrange(10), r.randrange(5, 100, 7), r.randrange(100, 0, -3)]).toEqual(
        c.randrange,
      );
      expect([r.uniform(-10.0, 40.0), r.uniform(0.0, 120.0)]).toEqual(c.uniform.map(fromHex));
      const letters = "abcdefghij".split("");
      expect([0, 1, 2, 3].map(() => r.choice(letters))).toEqual(c.choice);
      const items = Array.from({ length: 20 }, (_, i) => i);
      r.shuffle(items);
      expect(items).toEqual(c.shuffle);
      expect(
        r.sample(
          Array.from({ length: 10 }, (_, i) => i),
          4,
        ),
      ).toEqual(c.sample_small);
      expect(
        r.sample(
          Array.from({ length: 1000 }, (_, i) => i),
          8,
        ),
      ).toEqual(c.sample_large);
    });
  }

  it("draws the booking id the BFCL ground truth expects from seed 141053", () => {
    expect(new PyRandom(141053).randint(1000000, 9999999)).toBe(3426812);
  });

  it("a number seed equals the same bigint seed", () => {
    expect(new PyRandom(200191).random()).toBe(new PyRandom(200191n).random());
  });

  it("rejects unsafe or empty ranges with E_CONFIG", () => {
    const r = new PyRandom(1);
    expect(() => r.randint(5, 4)).toThrowError(expect.objectContaining({ code: "E_CONFIG" }));
    expect(() => r.randbelow(2 ** 60)).toThrowError(expect.objectContaining({ code: "E_CONFIG" }));
    expect(() => r.choice([])).toThrowError(expect.objectContaining({ code: "E_CONFIG" }));
    expect(() => r.sample([1, 2], 3)).toThrowError(expect.objectContaining({ code: "E_CONFIG" }));
  });
});
