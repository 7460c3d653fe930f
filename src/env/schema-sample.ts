/**
 * @module env/schema-sample
 * Generates a value that satisfies a JSON Schema (the subset tool parameters use), so the
 * validator can probe every declared tool with schema-valid arguments. Deterministic.
 */
import type { Json, JsonObject, JsonSchema } from "./types.js";

/** How deep nested schemas are followed before giving up with `null`. */
const MAX_DEPTH = 8;

function firstType(schema: JsonSchema): string | undefined {
  const t = schema.type;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) return (t.find((x) => x !== "null") ?? t[0]) as string | undefined;
  if (schema.properties !== undefined) return "object";
  if (schema.items !== undefined) return "array";
  return undefined;
}

function sampleNumber(schema: JsonSchema, integer: boolean): number {
  const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const exclusiveMin = typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  let value = 0;
  if (min !== undefined) value = min;
  else if (exclusiveMin !== undefined) value = integer ? Math.floor(exclusiveMin) + 1 : exclusiveMin + 1;
  else if (max !== undefined && max < 0) value = max;
  return integer ? Math.ceil(value) : value;
}

function sampleString(schema: JsonSchema): string {
  const minLength = typeof schema.minLength === "number" ? schema.minLength : 1;
  if (schema.format === "date") return "2024-01-01";
  if (schema.format === "date-time") return "2024-01-01T00:00:00Z";
  if (schema.format === "email") return "x@example.com";
  return "x".repeat(Math.max(1, minLength));
}

/**
 * A value valid under `schema`: `const`/`enum` give their first value, `anyOf`/`oneOf` their first
 * branch, objects their required properties (all properties when none are required), arrays
 * `max(1, minItems)` items, strings `"x"` (padded to `minLength`), numbers the lower bound or 0.
 */
export function sampleFromSchema(schema: JsonSchema, depth = 0): Json {
  if (depth > MAX_DEPTH) return null;
  if ("const" in schema) return schema.const ?? null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] ?? null;
  const branch = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : [])[0];
  if (branch && typeof branch === "object" && !Array.isArray(branch)) return sampleFromSchema(branch, depth + 1);
  switch (firstType(schema)) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(props);
      const out: JsonObject = {};
      for (const key of required) out[key] = sampleFromSchema(props[key] ?? {}, depth + 1);
      return out;
    }
    case "array": {
      const items = (schema.items ?? {}) as JsonSchema;
      const n = Math.max(1, typeof schema.minItems === "number" ? schema.minItems : 1);
      return Array.from({ length: n }, () => sampleFromSchema(items, depth + 1));
    }
    case "integer":
      return sampleNumber(schema, true);
    case "number":
      return sampleNumber(schema, false);
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
    default:
      return sampleString(schema);
  }
}
