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
  it.each([
    ['[{"book": {"city": "Boston", "nights": 2}}]', "simple_python", "value_error:string"],
    ['[{"book": {"city": "NYC", "nights": 2.0}}]', "simple_python", "type_error:simple"],
    ['[{"book": {"city": "NYC", "nights": 3}}]', "simple_python", "value_error:others"],
    ['[{"book": {"city": "NYC"}}]', "simple_python", "simple_function_checker:missing_required"],
    [
      '[{"book": {"city": "NYC", "nights": 2, "pets": 1}}]',
      "simple_python",
      "simple_function_checker:unexpected_param",
    ],
    [
      '[{"book": {"city": "NYC", "nights": 2, "tags": ["c"]}}]',
      "simple_python",
      "value_error:list/tuple",
    ],
    [
      '[{"rent": {"city": "NYC", "nights": 2}}]',
      "simple_python",
      "simple_function_checker:wrong_func_name",
    ],
    ["[]", "simple_python", "simple_function_checker:wrong_count"],
    ["[]", "multiple", "multiple_function_checker:wrong_count"],
    ['[{"rent": {}}]', "parallel", "parallel_function_checker_no_order:cannot_find_match"],
  ])("names upstream's error for a wrong call: %s in %s is %s", (output, category, error) => {
    expect(verdict(output, category)).toBe(error);
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
