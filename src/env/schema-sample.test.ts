import { describe, expect, it } from "vitest";
import { sampleFromSchema } from "./schema-sample.js";

describe("sampleFromSchema", () => {
  it("fills nested required objects and arrays of objects", () => {
    const schema = {
      type: "object",
      properties: {
        customer: {
          type: "object",
          properties: {
            id: { type: "integer", minimum: 3 },
            address: { type: "object", properties: { city: { type: "string" }, zip: { type: "string", minLength: 5 } }, required: ["city", "zip"] },
            note: { type: "string" },
          },
          required: ["id", "address"],
        },
        items: { type: "array", items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "number", exclusiveMinimum: 0 } }, required: ["sku", "qty"] } },
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
    expect(sampleFromSchema({ type: "object", properties: { a: { type: "integer" }, b: { type: "array", minItems: 2, items: { type: "string", format: "date" } } } })).toEqual({
      a: 0,
      b: ["2024-01-01", "2024-01-01"],
    });
  });
});
