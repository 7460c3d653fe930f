// The single-turn AST checker on hand-made entries: exact verdicts and error types.
import { describe, expect, it } from "vitest";
import { parseJsonPy, type PyDict, type PyValue } from "../../python/index.js";
import {
  astCheck,
  relevanceCheck,
  standardizeString,
  type SingleFunctionDoc,
} from "./ast-checker.js";

const DOCS: SingleFunctionDoc[] = [
  {
    name: "book",
    parameters: {
      required: ["city", "nights"],
      properties: {
        city: { type: "string" },
        nights: { type: "integer" },
        rate: { type: "float" },
        tags: { type: "array", items: { type: "string" } },
      },
    },
  },
];
const ANSWER = parseJsonPy(
  '[{"book": {"city": ["New York", "NYC"], "nights": [2], "rate": ["", 1.5], "tags": ["", ["a", "b"]]}}]',
) as PyDict[];
const out = (json: string) => parseJsonPy(json) as PyValue[];
const verdict = (json: string, category = "simple_python") => {
  const v = astCheck(DOCS, out(json), ANSWER, category);
  return v.valid ? "valid" : v.errorType;
};

describe("astCheck", () => {
  it("accepts the answer up to case and punctuation, and int for float", () => {
    expect(verdict('[{"book": {"city": "new-york", "nights": 2}}]')).toBe("valid");
    expect(
      verdict('[{"book": {"city": "NYC", "nights": 2, "rate": 1.5, "tags": ["A", "b"]}}]'),
    ).toBe("valid");
    expect(verdict('[{"book": {"city": "NYC", "nights": 2, "rate": 1.5}}]', "live_parallel")).toBe(
      "valid",
    );
  });
  it("names upstream's error for each kind of wrong call", () => {
    expect(verdict('[{"book": {"city": "Boston", "nights": 2}}]')).toBe("value_error:string");
    expect(verdict('[{"book": {"city": "NYC", "nights": 2.0}}]')).toBe("type_error:simple");
    expect(verdict('[{"book": {"city": "NYC", "nights": 3}}]')).toBe("value_error:others");
    expect(verdict('[{"book": {"city": "NYC"}}]')).toBe("simple_function_checker:missing_required");
    expect(verdict('[{"book": {"city": "NYC", "nights": 2, "pets": 1}}]')).toBe(
      "simple_function_checker:unexpected_param",
    );
    expect(verdict('[{"book": {"city": "NYC", "nights": 2, "tags": ["c"]}}]')).toBe(
      "value_error:list/tuple",
    );
    expect(verdict('[{"rent": {"city": "NYC", "nights": 2}}]')).toBe(
      "simple_function_checker:wrong_func_name",
    );
    expect(verdict("[]")).toBe("simple_function_checker:wrong_count");
    expect(verdict("[]", "multiple")).toBe("multiple_function_checker:wrong_count");
    expect(verdict('[{"rent": {}}]', "parallel")).toBe(
      "parallel_function_checker_no_order:cannot_find_match",
    );
  });
});

describe("relevanceCheck and standardizeString", () => {
  it("passes irrelevance without a call and relevance with one", () => {
    expect(relevanceCheck(out("[]"), "irrelevance")).toEqual({ valid: true });
    expect(relevanceCheck(out("[{}]"), "live_irrelevance")).toEqual({ valid: true });
    expect(relevanceCheck(out('[{"f": {}}]'), "irrelevance")).toEqual({
      valid: false,
      errorType: "irrelevance_error:decoder_success",
    });
    expect(relevanceCheck(null, "live_relevance")).toEqual({
      valid: false,
      errorType: "relevance_error:decoder_failed",
    });
    expect(relevanceCheck(out('[{"f": {}}]'), "live_relevance")).toEqual({ valid: true });
  });
  it("drops spaces and ,./-_*^, lower-cases and turns ' into \"", () => {
    expect(standardizeString("April 1, 2024 -_*^/.'X'")).toBe('april12024"x"');
  });
});
