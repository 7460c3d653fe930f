import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseJsonPy, parsePythonCall, parsePythonCalls, parsePythonLiteral } from "./call.js";
import { pyRepr } from "./format.js";
import { skipWithout } from "../../../test/missing.js";
import { codeOf } from "../../../test/assert.js";
import { PyTuple, pyDict, toJson } from "./value.js";

describe("parsePythonCalls", () => {
  it("reads keyword calls as ground truth writes them", () => {
    expect(parsePythonCalls("cd(folder='document')")).toEqual([
      { name: "cd", args: [], kwargs: { folder: "document" } },
    ]);
    expect(parsePythonCalls('mkdir(dir_name = "temp")')).toEqual([
      { name: "mkdir", args: [], kwargs: { dir_name: "temp" } },
    ]);
  });

  it("reads positional arguments, nested literals, True/None and negative numbers", () => {
    const [call] = parsePythonCalls(
      "f(1, x=[1, 2.5, {'a': None}], y=True, z=-3, w=-0.5, t=(1,), s={1, 2}, e=1e-3)",
    );
    expect(call!.name).toBe("f");
    expect(call!.args).toEqual([1n]);
    expect(call!.kwargs).toEqual({
      x: [1n, 2.5, pyDict({ a: null })],
      y: true,
      z: -3n,
      w: -0.5,
      t: new PyTuple([1n]),
      s: new Set([1n, 2n]),
      e: 0.001,
    });
  });

  it("reads a list of calls and dotted names", () => {
    expect(parsePythonCalls("[f(a=1), obj.g(b='x'),]").map((c) => c.name)).toEqual(["f", "obj.g"]);
    expect(parsePythonCalls("[]")).toEqual([]);
  });

  it("keeps ints beyond 2^53 exact and tells 1 from 1.0", () => {
    const call = parsePythonCall(
      "f(a=123456789012345678901234567890, b=1.0, c=1, d=0x1F, e=1_000)",
    );
    expect(call.kwargs).toEqual({
      a: 123456789012345678901234567890n,
      b: 1,
      c: 1n,
      d: 31n,
      e: 1000n,
    });
    expect(typeof call.kwargs.b).toBe("number");
    expect(typeof call.kwargs.c).toBe("bigint");
  });

  it("decodes string escapes, raw strings, triple quotes and adjacent literals", () => {
    expect(parsePythonLiteral(String.raw`'a\'b\n\t\\ \x41\u00e9\U0001F600\101'`)).toBe(
      "a'b\n\t\\ A\u00e9\u{1F600}A",
    );
    expect(parsePythonLiteral(String.raw`r'C:\new'`)).toBe("C:\\new");
    expect(parsePythonLiteral("'''one\ntwo'''")).toBe("one\ntwo");
    expect(parsePythonLiteral(`'ab' "cd"`)).toBe("abcd");
    expect(parsePythonLiteral(String.raw`'\d'`)).toBe("\\d");
  });

  it("rejects malformed input with E_PARSE", () => {
    for (const bad of [
      "cd(folder='document'",
      "cd(folder='doc)",
      "cd folder",
      "f(a=1, a=2)",
      "f(a=1, 2)",
      "f(x=g(1))",
      "f(x=foo)",
      "f(1) extra",
      "f(x=007)",
      "f(x=1j)",
      "",
    ]) {
      expect([bad, codeOf(() => parsePythonCalls(bad))]).toEqual([bad, "E_PARSE"]);
    }
  });

  it("refuses nesting past MAX_NESTING with E_PARSE instead of overflowing the stack", () => {
    // Before the bound, 20,000 opening brackets threw V8's RangeError out of the parser.
    const nested = (open: string, close: string, depth: number, inner = "") =>
      open.repeat(depth) + inner + close.repeat(depth);
    for (const bad of [
      `f(x=${nested("[", "]", 20000)})`,
      `f(x=${nested("(", ")", 20000, "1")})`,
      `f(x=${nested("{'a': ", "}", 20000, "1")})`,
      `f(x=${"-".repeat(20000)}1)`,
      `f(x=${nested("[", "]", 1001)})`,
    ]) {
      expect([bad.slice(0, 12), codeOf(() => parsePythonCall(bad))]).toEqual([
        bad.slice(0, 12),
        "E_PARSE",
      ]);
    }
    expect(codeOf(() => parseJsonPy(nested("[", "]", 20000)))).toBe("E_PARSE");
    // 1,000 levels (the argument itself is one) still read.
    let v = parsePythonCall(`f(x=${nested("[", "]", 999, "7")})`).kwargs.x;
    let depth = 0;
    while (Array.isArray(v)) {
      v = v[0]!;
      depth++;
    }
    expect([depth, v]).toEqual([999, 7n]);
    expect(parsePythonCall(`f(x=${"-".repeat(999)}1)`).kwargs.x).toBe(-1n);
  });

  const dir = new URL(
    "../../../../shared/benchmarks/bfcl/bfcl_eval/data/possible_answer/",
    import.meta.url,
  );
  it.skipIf(skipWithout(existsSync(dir) ? null : `BFCL data not found at ${fileURLToPath(dir)}`))(
    "round-trips every ground-truth call string of the four BFCL multi-turn files",
    () => {
      let count = 0;
      for (const cat of ["base", "miss_func", "miss_param", "long_context"]) {
        const text = readFileSync(new URL(`BFCL_v4_multi_turn_${cat}.json`, dir), "utf8");
        for (const line of text.split("\n")) {
          if (!line.trim()) continue;
          for (const turn of (JSON.parse(line) as { ground_truth: string[][] }).ground_truth) {
            for (const src of turn) {
              const call = parsePythonCall(src);
              expect(call.name).toMatch(/^[A-Za-z_]\w*$/);
              count++;
            }
          }
        }
      }
      expect(count).toBe(4625);
    },
  );
});

describe("parseJsonPy", () => {
  it("types JSON numbers as Python's json.loads does", () => {
    const v = parseJsonPy(
      '{"a": 1, "b": 1.0, "c": [true, null, "x\\u00e9\\/"], "d": -2e3, "e": NaN}',
    );
    expect(pyRepr(v)).toBe("{'a': 1, 'b': 1.0, 'c': [True, None, 'xé/'], 'd': -2000.0, 'e': nan}");
  });

  it("rejects Python-only syntax in JSON", () => {
    expect(codeOf(() => parseJsonPy("{'a': 1}"))).toBe("E_PARSE");
    expect(codeOf(() => parseJsonPy("(1, 2)"))).toBe("E_PARSE");
    expect(codeOf(() => parseJsonPy('{"a": True}'))).toBe("E_PARSE");
  });

  it("converts back to plain JSON and refuses to lose digits", () => {
    expect(toJson(parsePythonLiteral("{'a': (1, 2.5), 3: {None}}"))).toEqual({
      a: [1, 2.5],
      "3": [null],
    });
    expect(codeOf(() => toJson(18446744073709551616n))).toBe("E_PARSE");
  });
});
