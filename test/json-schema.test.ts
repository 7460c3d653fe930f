// The tests' schema check (ajv): exact problem lines for arguments that do not fit.
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../src/env/index.js";
import { schemaProblems } from "./json-schema.js";

const schema: JsonSchema = {
  type: "object",
  properties: {
    city: { type: "string", enum: ["Paris", "Rome"] },
    days: { type: "integer" },
    tags: { type: "array", items: { type: "string" }, maxItems: 2 },
  },
  required: ["city"],
  additionalProperties: false,
};

describe("schemaProblems", () => {
  it("is empty for arguments that fit", () => {
    expect(schemaProblems({ city: "Rome", days: 3, tags: ["a"] }, schema)).toEqual([]);
  });

  it("names each problem with its path", () => {
    expect(schemaProblems({ days: 1.5, tags: ["a", 2, "c"], extra: true }, schema)).toEqual([
      "$: must have required property 'city'",
      "$: must NOT have additional properties",
      "$.days: must be integer",
      "$.tags: must NOT have more than 2 items",
      "$.tags.1: must be string",
    ]);
  });
});
