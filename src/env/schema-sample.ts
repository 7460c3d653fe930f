/**
 * @module env/schema-sample
 * Generates a value that satisfies a JSON Schema (the subset tool parameters use), so the
 * validator can probe every declared tool with schema-valid arguments. Deterministic, and bounded:
 * the schema comes from an untrusted program, so every allocation is charged to a byte budget
 * before it is made (`minItems: 1e8` or `minLength: 4e8` fail at once, not after the host's heap).
 */
import { SpadeError } from "../errors.js";
import type { Json, JsonObject, JsonSchema } from "./types.js";

/** How deep nested schemas are followed before giving up with `null`. */
export const MAX_SAMPLE_DEPTH = 8;
/** Largest sample, counted as the length of its JSON text (UTF-16 units). */
export const MAX_SAMPLE_BYTES = 64 * 1024;

/** The bytes a sample may still use; charged before anything is built. */
class Budget {
  used = 0;
  charge(bytes: number, what: string): void {
    this.used += bytes;
    if (!(this.used <= MAX_SAMPLE_BYTES)) {
      throw new SpadeError(
        "E_ENV_CONTRACT",
        `a sample of this schema would exceed ${MAX_SAMPLE_BYTES} bytes of JSON (${what})`,
        {
          nextStep: "keep minItems, minLength and nested sizes of tool parameters small",
        },
      );
    }
  }
}

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
  const exclusiveMin =
    typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  let value = 0;
  if (min !== undefined) value = min;
  else if (exclusiveMin !== undefined)
    value = integer ? Math.floor(exclusiveMin) + 1 : exclusiveMin + 1;
  else if (max !== undefined && max < 0) value = max;
  return integer ? Math.ceil(value) : value;
}

function sampleString(schema: JsonSchema, budget: Budget): string {
  if (schema.format === "date") return "2024-01-01";
  if (schema.format === "date-time") return "2024-01-01T00:00:00Z";
  if (schema.format === "email") return "x@example.com";
  const minLength = typeof schema.minLength === "number" ? schema.minLength : 1;
  const length = Math.max(1, Math.ceil(minLength));
  budget.charge(length, `minLength ${minLength}`);
  return "x".repeat(length);
}

/** Charges a value copied from the schema (`const`, `enum`); the schema itself is bounded by meta's size. */
function copied(value: Json | undefined, budget: Budget, what: string): Json {
  budget.charge(JSON.stringify(value ?? null).length, what);
  return value ?? null;
}

function sample(schema: JsonSchema, depth: number, budget: Budget): Json {
  if (depth > MAX_SAMPLE_DEPTH) return null;
  if ("const" in schema) return copied(schema.const as Json, budget, "const");
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return copied(schema.enum[0] as Json, budget, "enum");
  const branch = (
    Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : []
  )[0];
  if (branch && typeof branch === "object" && !Array.isArray(branch))
    return sample(branch as JsonSchema, depth + 1, budget);
  switch (firstType(schema)) {
    case "object": {
      budget.charge(2, "an object");
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = Array.isArray(schema.required)
        ? (schema.required as unknown[]).filter((k): k is string => typeof k === "string")
        : Object.keys(props);
      const out: JsonObject = {};
      for (const key of required) {
        budget.charge(key.length + 4, `property "${key.slice(0, 40)}"`);
        const sub = Object.hasOwn(props, key) ? props[key] : undefined;
        out[key] = sample(sub && typeof sub === "object" ? sub : {}, depth + 1, budget);
      }
      return out;
    }
    case "array": {
      const items = (schema.items ?? {}) as JsonSchema;
      const minItems = typeof schema.minItems === "number" ? schema.minItems : 1;
      const n = Math.max(1, Math.ceil(minItems));
      // Every item costs at least one byte and a comma: refuse before allocating n slots.
      budget.charge(2 + n, `minItems ${minItems}`);
      const out: Json[] = [];
      for (let i = 0; i < n; i++) out.push(sample(items, depth + 1, budget));
      return out;
    }
    case "integer":
    case "number": {
      const value = sampleNumber(schema, firstType(schema) === "integer");
      budget.charge(String(value).length, "a number");
      return value;
    }
    case "boolean":
      budget.charge(5, "a boolean");
      return false;
    case "null":
      budget.charge(4, "null");
      return null;
    case "string":
    default:
      return sampleString(schema, budget);
  }
}

/**
 * A value valid under `schema`: `const`/`enum` give their first value, `anyOf`/`oneOf` their first
 * branch, objects their required properties (all properties when none are required), arrays
 * `max(1, minItems)` items, strings `"x"` (padded to `minLength`), numbers the lower bound or 0.
 * Schemas nested deeper than MAX_SAMPLE_DEPTH give `null` there. Throws E_ENV_CONTRACT, having
 * done at most MAX_SAMPLE_BYTES of work, when the value would be larger than MAX_SAMPLE_BYTES.
 */
export function sampleFromSchema(schema: JsonSchema): Json {
  return sample(schema, 0, new Budget());
}

/** Why `schema` cannot be sampled within the bounds, or null when it can. */
export function sampleProblem(schema: JsonSchema): string | null {
  try {
    sampleFromSchema(schema);
    return null;
  } catch (err) {
    if (err instanceof SpadeError) return err.message;
    throw err;
  }
}
