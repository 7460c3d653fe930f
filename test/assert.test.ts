// The shared assertion helpers: what a call throws and what a promise rejects with come back as
// they are, and a call that returns or a promise that resolves fails the test.
import { describe, expect, it } from "vitest";
import { SpadeError } from "../src/errors.js";
import {
  codeAndMessageOf,
  codeAndMessageOfAsync,
  codeOfAsync,
  rejected,
  thrown,
} from "./assert.js";

/** A call that throws `err`. */
const throwing = (err: unknown) => (): never => {
  throw err;
};

describe("thrown and rejected", () => {
  it("give back the very error, coded or not", async () => {
    const coded = new SpadeError("E_CONFIG", "bad flag");
    expect(thrown(throwing(coded))).toBe(coded);
    expect(await rejected(Promise.reject(coded))).toBe(coded);
    expect(await rejected(Promise.reject("a plain string"))).toBe("a plain string");
  });

  it("fail when the call returns or the promise resolves", async () => {
    expect(() => thrown(() => 1)).toThrow("expected the call to throw; it returned");
    await expect(rejected(Promise.resolve(1))).rejects.toThrow(
      "expected the promise to reject; it resolved",
    );
  });
});

describe("codeOfAsync", () => {
  it("names the code, a resolution, or an uncoded rejection", async () => {
    expect(
      await Promise.all([
        codeOfAsync(Promise.reject(new SpadeError("E_IO", "no such file"))),
        codeOfAsync(Promise.resolve(1)),
        codeOfAsync(Promise.reject(new Error("boom"))),
      ]),
    ).toEqual(["E_IO", "resolved", "uncoded: Error: boom"]);
  });
});

describe("codeAndMessageOf and codeAndMessageOfAsync", () => {
  it("give a SpadeError's code and message, and name a return, a resolution or an uncoded failure", async () => {
    const coded = new SpadeError("E_IO", "no such file");
    expect(codeAndMessageOf(throwing(coded))).toEqual({ code: "E_IO", message: "no such file" });
    expect(codeAndMessageOf(() => 1)).toEqual({ code: "returned", message: "" });
    expect(codeAndMessageOf(throwing(new Error("boom")))).toEqual({
      code: "not a SpadeError",
      message: "Error: boom",
    });
    expect(
      await Promise.all([
        codeAndMessageOfAsync(Promise.reject(coded)),
        codeAndMessageOfAsync(Promise.resolve(1)),
        codeAndMessageOfAsync(Promise.reject("a plain string")),
      ]),
    ).toEqual([
      { code: "E_IO", message: "no such file" },
      { code: "resolved", message: "" },
      { code: "not a SpadeError", message: "a plain string" },
    ]);
  });
});
