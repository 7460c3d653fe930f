/**
 * @module test/json-schema
 * A small JSON Schema checker for tests: the subset tool parameters use, enough to prove that a
 * model's tool-call arguments fit their schema.
 */
import type { Json, JsonSchema } from "../src/env/index.js";

/** Problems of `value` against the JSON Schema subset tools use (type, enum, properties, required, additionalProperties, items, min/maxItems). */
export function schemaProblems(value: Json, schema: JsonSchema, at = "$"): string[] {
  if (Array.isArray(schema.enum)) return (schema.enum as Json[]).some((e) => e === value) ? [] : [`${at}: ${JSON.stringify(value)} not in enum`];
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const actual = value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value;
  if (!types.some((t) => t === actual || (t === "number" && actual === "integer"))) return [`${at}: ${actual} is not ${types.join("|")}`];
  if (Array.isArray(value)) {
    const items = (schema.items ?? {}) as JsonSchema;
    const problems = value.flatMap((v, i) => (schema.items ? schemaProblems(v, items, `${at}[${i}]`) : []));
    if (typeof schema.minItems === "number" && value.length < schema.minItems) problems.push(`${at}: fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) problems.push(`${at}: more than ${schema.maxItems} items`);
    return problems;
  }
  if (actual !== "object") return [];
  const obj = value as { [key: string]: Json };
  const properties = (schema.properties ?? {}) as { [key: string]: JsonSchema };
  const problems = ((schema.required ?? []) as string[]).filter((k) => !(k in obj)).map((k) => `${at}.${k}: missing`);
  for (const [key, v] of Object.entries(obj)) {
    const sub = properties[key];
    if (sub) problems.push(...schemaProblems(v, sub, `${at}.${key}`));
    else if (schema.additionalProperties === false) problems.push(`${at}.${key}: not allowed`);
  }
  return problems;
}
