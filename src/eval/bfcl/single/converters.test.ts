// Java and JavaScript argument conversion: upstream's own converter examples, exact values.
import { describe, expect, it } from "vitest";
import { PyException } from "../../python/index.js";
import { timed } from "../../../../test/assert.js";
import { javaTypeConverter } from "./java-types.js";
import { jsTypeConverter } from "./js-types.js";

describe("jsTypeConverter", () => {
  it("reads scalars, arrays and objects as upstream does", () => {
    expect(jsTypeConverter("true", "Boolean")).toBe(true);
    expect(jsTypeConverter("123n", "Bigint")).toBe(123n);
    expect(jsTypeConverter("-3.14", "float")).toBe(-3.14);
    expect(jsTypeConverter("'abc'", "String")).toBe("abc");
    expect(jsTypeConverter("12.5", "integer")).toBe("12.5");
    expect(jsTypeConverter("new Array(4n, 5n, 6n)", "array", "Bigint")).toEqual([4n, 5n, 6n]);
    expect(jsTypeConverter("[1, 'two', true]", "array")).toEqual([1n, "two", true]);
    expect(jsTypeConverter(" [ [ 1, 2 ], [ 3,   4], [5, 6]]", "array", "array")).toEqual([
      [1n, 2n],
      [3n, 4n],
      [5n, 6n],
    ]);
    expect(jsTypeConverter("{'key1': 123, 'key2': 'value', 'key3': false}", "dict")).toEqual(
      new Map<string, unknown>([
        ["key1", 123n],
        ["key2", "value"],
        ["key3", false],
      ]),
    );
    expect(() => jsTypeConverter("1", "Number")).toThrow(PyException);
  });
});

describe("javaTypeConverter", () => {
  it("reads literals and collections as upstream does", () => {
    expect(javaTypeConverter("3e-3F", "float")).toBe(0.003);
    expect(javaTypeConverter("-9223372036854775808L", "long")).toBe(-9223372036854775808n);
    expect(javaTypeConverter("3.14", "float")).toBe("3.14");
    expect(javaTypeConverter("'a'", "char")).toBe("'a'");
    expect(javaTypeConverter('new Object[]{1, "abc", true}', "Array")).toEqual([1n, "abc", true]);
    expect(
      javaTypeConverter('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "String"),
    ).toEqual(["a", "b"]);
    expect(
      javaTypeConverter("new ArrayList<Integer>() {{ add(1); add(2); }}", "ArrayList", "integer"),
    ).toEqual([1n, 2n]);
    expect(
      javaTypeConverter('new HashMap<String, String>() {{ put("key", "value"); }}', "HashMap"),
    ).toEqual(new Map([["key", "value"]]));
    expect(javaTypeConverter("new HashMap<>()", "HashMap")).toEqual(new Map());
    expect(() => javaTypeConverter("x", "Set")).toThrow(/Set conversion is not implemented/);
  });
});

// Upstream's patterns backtrack exponentially (nested arrays) or with a high power (HashMap
// bodies) on short unclosed values. The bounds are generous: these inputs took 20-45 s before.
describe("converters on adversarial values", () => {
  it("reads 32 unclosed nested arrays without exponential backtracking", () => {
    const converted = timed(() => jsTypeConverter(`[${"[1],".repeat(32)}`, "array"));
    expect(converted.value).toEqual(["[1"]);
    expect(converted.ms).toBeLessThan(2000);
    const closed = `[${"[1],".repeat(1000)}[2]]`;
    expect(jsTypeConverter(closed, "array")).toEqual([...Array(1000).fill([1n]), [2n]]);
  });

  it("reads object bodies without a colon ahead, or spaces after a comma, in linear time", () => {
    const noColon = timed(() => jsTypeConverter(`{a:1,${"b".repeat(131_072)}}`, "dict"));
    expect(noColon.value).toEqual(new Map([["a", `1,${"b".repeat(131_072)}`]]));
    expect(noColon.ms).toBeLessThan(2000);
    const spaces = timed(() => jsTypeConverter(`{a:1,${" ".repeat(65_536)}b}`, "dict"));
    expect(spaces.value).toEqual(new Map([["a", `1,${" ".repeat(65_536)}b`]]));
    expect(spaces.ms).toBeLessThan(2000);
    expect(jsTypeConverter("{a: 1, b: 'x', c:  :d}", "dict")).toEqual(
      new Map<string, unknown>([
        ["a", 1n],
        ["b", "x"],
        ["c", ":d"],
      ]),
    );
  });

  it("reads ArrayList bodies of spaces or unclosed add( without super-linear backtracking", () => {
    const spaces = timed(() =>
      javaTypeConverter(`new ArrayList<>(){{${" ".repeat(4096)}`, "ArrayList"),
    );
    expect(spaces.value).toEqual([]);
    expect(spaces.ms).toBeLessThan(2000);
    const adds = `new ArrayList<>() {{ add(1);\n${"add(".repeat(65_536)}\nadd(2); }}`;
    const added = timed(() => javaTypeConverter(adds, "ArrayList"));
    expect(added.value).toEqual([1n, 2n]);
    expect(added.ms).toBeLessThan(2000);
    expect(javaTypeConverter("new ArrayList<>(){{ }}", "ArrayList")).toEqual([]);
  });

  it("reads a HashMap body of 256 spaces and no close in linear time", () => {
    const converted = timed(() =>
      javaTypeConverter(`new HashMap<>(){${" ".repeat(256)}`, "HashMap"),
    );
    expect(converted.value).toEqual(new Map());
    expect(converted.ms).toBeLessThan(2000);
    expect(
      javaTypeConverter('new HashMap<String, Integer>() {\n  { put("a", 1); }\n}', "HashMap"),
    ).toEqual(new Map([["a", 1n]]));
    const puts = `new HashMap<>() {{ put("a", 1);\n${'put("b",'.repeat(2048)}\nput("c",\n 2); }}`;
    const put = timed(() => javaTypeConverter(puts, "HashMap"));
    expect(put.value).toEqual(
      new Map([
        ["a", 1n],
        ["c", 2n],
      ]),
    );
    expect(put.ms).toBeLessThan(2000);
  });

  it.each([
    ["ArrayList", "new ArrayList<>(Arrays.asList("],
    ["Array", "new x[]{"],
    ["HashMap", "new HashMap<"],
  ])("reads half a megabyte of unclosed %s openings in linear time", (type, opening) => {
    const value = opening.repeat(Math.floor(524_288 / opening.length));
    const converted = timed(() => javaTypeConverter(value, type));
    expect(converted.value).toBe(value);
    expect(converted.ms).toBeLessThan(2000);
  });

  it("finds a one-line body after an unclosed one on an earlier line", () => {
    expect(javaTypeConverter("new int[]{1, 2\nnew int[]{3, 4}", "Array")).toEqual([3n, 4n]);
    expect(javaTypeConverter("new HashMap<a\nnew HashMap<b>()", "HashMap")).toEqual(new Map());
  });
});
