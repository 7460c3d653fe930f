import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { floatRepr, formatFixed, roundFloat, roundFloatToInt, roundInt } from "./float.js";
import { PyJsonTypeError, pyJsonDumps, pyRepr, pyStr, strRepr, jsonString } from "./format.js";
import { PY_ELLIPSIS, PyTuple, pyDict, type PyValue } from "./value.js";
import { fromPyHex } from "./testing/pyhex.js";

interface FloatRow {
  x: string;
  repr: string;
  f2: string;
  f0: string;
  round2: string;
  round0: string;
  roundm1: string;
  roundint: string | null;
}

const fixture = JSON.parse(
  readFileSync(new URL("./testing/pyformat_fixture.json", import.meta.url), "utf8"),
) as {
  floats: FloatRow[];
  strings: Array<{ s: string; repr: string; json: string }>;
  values: Record<string, string>;
};

/** Equality that tells -0 from 0 and NaN from NaN, for bit-exact float checks. */
const same = (a: number, b: number) => Object.is(a, b);

describe("Python float text", () => {
  it(`repr, %.2f, %.0f match CPython on ${fixture.floats.length} doubles`, () => {
    for (const row of fixture.floats) {
      const x = fromPyHex(row.x);
      expect({ x: row.x, repr: floatRepr(x) }).toEqual({ x: row.x, repr: row.repr });
      expect({ x: row.x, f2: formatFixed(x, 2) }).toEqual({ x: row.x, f2: row.f2 });
      expect({ x: row.x, f0: formatFixed(x, 0) }).toEqual({ x: row.x, f0: row.f0 });
    }
  });

  it("round(x, n) and round(x) match CPython bit for bit", () => {
    for (const row of fixture.floats) {
      const x = fromPyHex(row.x);
      expect([row.x, same(roundFloat(x, 2), fromPyHex(row.round2))]).toEqual([row.x, true]);
      expect([row.x, same(roundFloat(x, 0), fromPyHex(row.round0))]).toEqual([row.x, true]);
      expect([row.x, same(roundFloat(x, -1), fromPyHex(row.roundm1))]).toEqual([row.x, true]);
      if (row.roundint !== null)
        expect([row.x, roundFloatToInt(x).toString()]).toEqual([row.x, row.roundint]);
    }
  });

  it("rounds ints to negative places half to even", () => {
    expect(roundInt(1250n, -2)).toBe(1200n);
    expect(roundInt(1350n, -2)).toBe(1400n);
    expect(roundInt(-1250n, -2)).toBe(-1200n);
    expect(roundInt(17n, 3)).toBe(17n);
    expect(roundInt(4999n, -4)).toBe(0n);
    expect(roundInt(5000n, -4)).toBe(0n);
    expect(roundInt(15000n, -4)).toBe(20000n);
    expect(roundInt(99999n, -5)).toBe(100000n);
    expect(roundInt(9999n, -5)).toBe(0n);
    expect(roundInt(-9999n, -5)).toBe(0n);
  });

  it("rounds an int to a huge negative number of places at once", () => {
    // Before the shortcut this built 10n ** 10n ** 9n: 30 s, then a RangeError.
    expect(roundInt(123456789n, -1e9)).toBe(0n);
    expect(roundInt(-(10n ** 5000n), -1e15)).toBe(0n);
  });

  it("prints special floats as Python does", () => {
    expect([floatRepr(NaN), floatRepr(Infinity), floatRepr(-Infinity), floatRepr(-0)]).toEqual([
      "nan",
      "inf",
      "-inf",
      "-0.0",
    ]);
    expect(pyJsonDumps([NaN, Infinity, -Infinity])).toBe("[NaN, Infinity, -Infinity]");
  });
});

describe("Python string text", () => {
  it("repr() and json.dumps() of strings match CPython", () => {
    for (const row of fixture.strings) {
      expect(strRepr(row.s)).toBe(row.repr);
      expect(jsonString(row.s)).toBe(row.json);
    }
  });
});

describe("Python container text", () => {
  it("repr of nested values", () => {
    const v = pyDict({
      a: [1n, 2.5, null, true],
      b: new PyTuple([1n]),
      c: new PyTuple([]),
      d: pyDict({ x: -0 }),
    });
    expect(pyRepr(v)).toBe(fixture.values.repr);
  });

  it("json.dumps of nested values with non-str keys", () => {
    const v = new Map<string | bigint | number, PyValue>([
      ["a", [1n, 2.5, null, true]],
      ["b", new PyTuple([1n, 2n])],
      [3n, "int key"],
      [2.5, "float key"],
      ["n", NaN],
      ["i", -Infinity],
    ]);
    expect(pyJsonDumps(v)).toBe(fixture.values.json);
  });

  it("json.dumps raises Python's TypeError for sets and objects", () => {
    expect(() => pyJsonDumps(pyDict({ s: new Set([1n]) }))).toThrowError(
      new PyJsonTypeError("Object of type set is not JSON serializable"),
    );
    expect(() => pyJsonDumps([PY_ELLIPSIS])).toThrowError(
      "Object of type ellipsis is not JSON serializable",
    );
  });

  it("str() keeps strings bare and reprs the rest", () => {
    expect(pyStr("it's")).toBe("it's");
    expect(pyStr(["it's"])).toBe(`["it's"]`);
    expect(pyStr(null)).toBe("None");
    expect(pyStr(new Set())).toBe("set()");
    expect(pyStr([PY_ELLIPSIS])).toBe("[Ellipsis]");
  });
});
