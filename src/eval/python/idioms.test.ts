// The merged Python idioms: the behaviours where the two former copies differed.
import { describe, expect, it } from "vitest";
import { contains, getItem, getOr, getOrMake, hashKey, iterate } from "./idioms.js";
import { PyException } from "./ops.js";
import { PyTuple, pyDict } from "./value.js";

// The Python type and message raised; not test/assert's codeOf, as a PyException has no code.
const raised = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof PyException ? `${e.pyType}: ${e.message}` : String(e);
  }
};

describe("Python idioms", () => {
  it("iterate returns a new array, so a loop may change the list", () => {
    const list = [1n, 2n];
    const items = iterate(list);
    list.push(3n);
    expect(items).toEqual([1n, 2n]);
    expect(iterate("ab")).toEqual(["a", "b"]);
    expect(iterate(new Set([1n, "x"]))).toEqual([1n, "x"]);
  });

  it("contains finds numerically equal keys in dicts and sets (1 == 1.0 == True)", () => {
    expect(contains(new Set([1n]), 1)).toBe(true);
    expect(
      contains(
        pyDict([
          ["1", 1n],
          [true, 2n],
        ]),
        1n,
      ),
    ).toBe(true);
    expect(raised(() => contains(new Set([1n]), [1n]))).toBe("TypeError: unhashable type: 'list'");
  });

  it("getItem takes int and bool list indices, negative from the end", () => {
    const list = ["a", "b", "c"];
    expect([getItem(list, -1n), getItem(list, true)]).toEqual(["c", "b"]);
    expect(raised(() => getItem(list, 3n))).toBe("IndexError: list index out of range");
    expect(raised(() => getItem(list, "0"))).toBe(
      "TypeError: list indices must be integers or slices, not str",
    );
    expect(raised(() => getItem(pyDict([["a", 1n]]), "b"))).toBe("KeyError: 'b'");
  });

  it("getOr takes a default value, getOrMake builds one only when the key is absent", () => {
    const d = pyDict([["a", 1n]]);
    let made = 0;
    const make = () => {
      made++;
      return [];
    };
    expect([getOr(d, "a"), getOr(d, "b"), getOr(d, "b", 0n)]).toEqual([1n, null, 0n]);
    expect([getOrMake(d, "a", make), getOrMake(d, "b", make)]).toEqual([1n, []]);
    expect(made).toBe(1);
    expect(hashKey("k")).toBe("k");
    expect(raised(() => hashKey(new PyTuple([])))).toBe(
      "TypeError: tuple keys are not supported by this port",
    );
  });
});
