import { describe, expect, it } from "vitest";
import { codeOf } from "../../test/assert.js";
import { metaProblems } from "./shape.js";
import { TEST_META } from "./testing/test-env.js";
import type { JsonObject } from "./types.js";
import { MAX_SAMPLE_BYTES, sampleFromSchema, sampleProblem } from "./schema-sample.js";

/** `levels` arrays, each of `minItems` items, around a string. */
function nestedArrays(levels: number, minItems: number): JsonObject {
  let schema: JsonObject = { type: "string" };
  for (let i = 0; i < levels; i++) schema = { type: "array", minItems, items: schema };
  return schema;
}

describe("sampleFromSchema", () => {
  it("fills nested required objects and arrays of objects", () => {
    const schema = {
      type: "object",
      properties: {
        customer: {
          type: "object",
          properties: {
            id: { type: "integer", minimum: 3 },
            address: {
              type: "object",
              properties: { city: { type: "string" }, zip: { type: "string", minLength: 5 } },
              required: ["city", "zip"],
            },
            note: { type: "string" },
          },
          required: ["id", "address"],
        },
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { sku: { type: "string" }, qty: { type: "number", exclusiveMinimum: 0 } },
            required: ["sku", "qty"],
          },
        },
        mode: { type: "string", enum: ["fast", "slow"] },
      },
      required: ["customer", "items", "mode"],
    };
    expect(sampleFromSchema(schema)).toEqual({
      customer: { id: 3, address: { city: "x", zip: "xxxxx" } },
      items: [{ sku: "x", qty: 1 }],
      mode: "fast",
    });
  });

  it("uses const, anyOf, type lists and all properties when none are required", () => {
    expect(sampleFromSchema({ const: 7 })).toBe(7);
    expect(sampleFromSchema({ anyOf: [{ type: "boolean" }, { type: "string" }] })).toBe(false);
    expect(sampleFromSchema({ type: ["null", "integer"], maximum: -2 })).toBe(-2);
    expect(
      sampleFromSchema({
        type: "object",
        properties: {
          a: { type: "integer" },
          b: { type: "array", minItems: 2, items: { type: "string", format: "date" } },
        },
      }),
    ).toEqual({
      a: 0,
      b: ["2024-01-01", "2024-01-01"],
    });
  });

  // Issue 16 item 1: these schemas aborted the host with "heap out of memory" (5.7 GB, 3.25 GB).
  it("refuses schemas whose sample would be huge, before building it", () => {
    const before = process.memoryUsage().heapUsed;
    expect(
      codeOf(() => sampleFromSchema({ type: "array", minItems: 1e8, items: { type: "string" } })),
    ).toBe("E_ENV_CONTRACT");
    expect(codeOf(() => sampleFromSchema({ type: "string", minLength: 4e8 }))).toBe(
      "E_ENV_CONTRACT",
    );
    expect(codeOf(() => sampleFromSchema(nestedArrays(6, 40)))).toBe("E_ENV_CONTRACT");
    expect(codeOf(() => sampleFromSchema({ type: "array", minItems: Infinity }))).toBe(
      "E_ENV_CONTRACT",
    );
    // One const used many times is charged each time it is copied.
    const big = { const: "z".repeat(1000) };
    expect(codeOf(() => sampleFromSchema({ type: "array", minItems: 100, items: big }))).toBe(
      "E_ENV_CONTRACT",
    );
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(32 * 1024 * 1024);
    expect(sampleProblem({ type: "string", minLength: 4e8 })).toBe(
      `a sample of this schema would exceed ${MAX_SAMPLE_BYTES} bytes of JSON (minLength 400000000) (keep minItems, minLength and nested sizes of tool parameters small)`,
    );
  });

  it("builds samples up to the bound exactly", () => {
    // 2 brackets + 1000 one-character strings ("x" costs 1, the array charges 2 + n): 3002 bytes.
    const value = sampleFromSchema({
      type: "array",
      minItems: 1000,
      items: { type: "string" },
    }) as string[];
    expect(value).toHaveLength(1000);
    expect(sampleProblem({ type: "string", minLength: MAX_SAMPLE_BYTES })).toBe(null);
    expect(sampleProblem({ type: "string", minLength: MAX_SAMPLE_BYTES + 1 })).toMatch(
      /minLength 65537/,
    );
    expect(sampleFromSchema(nestedArrays(3, 10))).toHaveLength(10);
  });

  it("makes the validator's meta check refuse such a tool", () => {
    const meta = {
      ...TEST_META,
      tools: [
        {
          type: "function",
          function: {
            name: "f",
            description: "d",
            parameters: {
              type: "object",
              properties: { a: { type: "array", minItems: 1e8 } },
              required: ["a"],
            },
          },
        },
      ],
    };
    expect(metaProblems(meta)).toEqual([
      `meta.tools[0].function.parameters: a sample of this schema would exceed ${MAX_SAMPLE_BYTES} bytes of JSON (minItems 100000000) (keep minItems, minLength and nested sizes of tool parameters small)`,
    ]);
  });
});
