import { describe, expect, it } from "vitest";
import {
  PyException,
  pyAdd,
  pyFloat,
  pyInt,
  pyLen,
  pyLt,
  pyMod,
  pyMul,
  pyPow,
  MAX_INT_POW_BITS,
  pySub,
  pyTrueDiv,
  truthy,
} from "./ops.js";
import {
  formatNamed,
  lstrip,
  rstrip,
  sortedStrings,
  splitWhitespace,
  splitlines,
  strip,
  utf8Length,
} from "./str.js";
import { PyTuple, dictGet, pyDict, pyEquals } from "./value.js";

// The Python type and message raised; not test/assert's codeOf, as a PyException has no code.
const pyError = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof PyException) return `${err.pyType}: ${err.message}`;
    throw err;
  }
  return "no error";
};

describe("Python arithmetic", () => {
  it("keeps int arithmetic exact and switches to float like Python", () => {
    expect(pyAdd(2n ** 64n, 1n)).toBe(18446744073709551617n);
    expect(pyAdd(1n, 0.5)).toBe(1.5);
    expect(pyAdd(true, 2n)).toBe(3n);
    expect(pySub(5n, 7.5)).toBe(-2.5);
    expect(pyMul(3n, 4n)).toBe(12n);
    expect(pyTrueDiv(1n, 3n)).toBe(1 / 3);
    expect(pyTrueDiv(10n ** 30n, 3n)).toBe(3.333333333333333e29);
    expect(pyPow(2n, 10n)).toBe(1024n);
    expect(pyPow(2n, -1n)).toBe(0.5);
    expect(pyMod(-7n, 3n)).toBe(2n);
    expect(pyMod(7.5, -2n)).toBe(-0.5);
    expect(pyAdd("a", "b")).toBe("ab");
  });

  it("refuses int powers past MAX_INT_POW_BITS instead of blocking, and keeps those below", () => {
    // Before the bound, 10 ** 10 ** 9 ran 31 s and then threw V8's RangeError.
    expect(pyError(() => pyPow(10n, 10n ** 9n))).toBe(
      "OverflowError: int power results above 1048576 bits are not supported by this port",
    );
    expect(pyError(() => pyPow(-2n, BigInt(MAX_INT_POW_BITS) + 1n))).toBe(
      "OverflowError: int power results above 1048576 bits are not supported by this port",
    );
    expect((pyPow(2n, BigInt(MAX_INT_POW_BITS)) as bigint).toString(2).length).toBe(1048577);
    expect(pyPow(1n, 10n ** 18n)).toBe(1n);
    expect(pyPow(-1n, 10n ** 18n + 1n)).toBe(-1n);
    expect(pyPow(0n, 10n ** 18n)).toBe(0n);
  });

  it("raises Python's exceptions with Python's messages", () => {
    expect(pyError(() => pyAdd(1n, "b"))).toBe(
      "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
    );
    expect(pyError(() => pyAdd("a", 1n))).toBe(
      'TypeError: can only concatenate str (not "int") to str',
    );
    expect(pyError(() => pyTrueDiv(1n, 0n))).toBe("ZeroDivisionError: division by zero");
    expect(pyError(() => pyTrueDiv(1.0, 0n))).toBe("ZeroDivisionError: float division by zero");
    expect(pyError(() => pyLt("a", 1n))).toBe(
      "TypeError: '<' not supported between instances of 'str' and 'int'",
    );
    expect(pyError(() => pyFloat("abc"))).toBe(
      "ValueError: could not convert string to float: 'abc'",
    );
    expect(pyError(() => pyInt("1.5"))).toBe(
      "ValueError: invalid literal for int() with base 10: '1.5'",
    );
    expect(pyError(() => pyLen(5n))).toBe("TypeError: object of type 'int' has no len()");
  });

  it("compares and tests truth like Python", () => {
    expect(pyLt(1n, 1.5)).toBe(true);
    expect(pyLt(2n ** 60n, 2 ** 60 + 1)).toBe(false);
    expect(pyLt(NaN, 1n)).toBe(false);
    expect(pyLt("Z", "a")).toBe(true);
    expect(pyLt("\uffff", "\u{10000}")).toBe(true);
    expect(pyLt([1n, 2n], [1n, 3n])).toBe(true);
    expect([
      truthy(0n),
      truthy(0.0),
      truthy(""),
      truthy([]),
      truthy(new Map()),
      truthy(new PyTuple([])),
      truthy(null),
    ]).toEqual([false, false, false, false, false, false, false]);
    expect(pyEquals(1n, 1.0)).toBe(true);
    expect(pyEquals(true, 1n)).toBe(true);
    expect(pyEquals([1n], new PyTuple([1n]))).toBe(false);
    expect(dictGet(pyDict([[1n, "one"]]), 1.0)).toBe("one");
  });

  it("converts with float() and int()", () => {
    expect([pyFloat(" 1e3 "), pyFloat("-inf"), pyFloat(3n), pyFloat(true)]).toEqual([
      1000,
      -Infinity,
      3,
      1,
    ]);
    expect([pyInt(-2.9), pyInt(" 42 "), pyInt("1_000")]).toEqual([-2n, 42n, 1000n]);
  });
});

describe("Python str methods", () => {
  it("splitlines on every Unicode boundary, without a trailing empty line", () => {
    expect(splitlines("a\nb\r\nc\rd\x0be\x0cf\x1cg\x85h\u2028i\n")).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
      "f",
      "g",
      "h",
      "i",
    ]);
    expect(splitlines("")).toEqual([]);
    expect(splitlines("\n\n")).toEqual(["", ""]);
  });

  it("splits on whitespace runs, strips character sets, sorts by code point", () => {
    expect(splitWhitespace("  a\tb\u00a0c\x1fd \u3000")).toEqual(["a", "b", "c", "d"]);
    expect([strip("//a/b//", "/"), lstrip("xxa", "x"), rstrip("a..", ".")]).toEqual([
      "a/b",
      "a",
      "a",
    ]);
    expect(sortedStrings(["b", "B", "a", "\u00e9", "\u{1F600}", "\uffff"])).toEqual([
      "B",
      "a",
      "b",
      "\u00e9",
      "\uffff",
      "\u{1F600}",
    ]);
    expect(utf8Length("caf\u00e9\u4e2d")).toBe(8);
  });

  it("formats named fields like str.format", () => {
    expect(formatNamed("{symbol} is {{up}}", { symbol: "AAPL" })).toBe("AAPL is {up}");
    expect(pyError(() => formatNamed("{price}", { symbol: "AAPL" }))).toBe("KeyError: 'price'");
  });
});
