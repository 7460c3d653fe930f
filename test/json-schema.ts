/**
 * @module test/json-schema
 * Tests check a model's tool-call arguments against their JSON Schema with ajv (dev only).
 */
import { Ajv } from "ajv";
import type { Json, JsonSchema } from "../src/env/index.js";

// strict: false lets tool schemas carry keywords ajv does not know (OpenAI's `strict`, titles).
const ajv = new Ajv({ allErrors: true, strict: false });

/** Problems of `value` against `schema`, one line each (`$.path: message`); [] when it fits. */
export function schemaProblems(value: Json, schema: JsonSchema): string[] {
  const validate = ajv.compile(schema as object);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `$${e.instancePath.replaceAll("/", ".")}: ${e.message ?? e.keyword}`,
  );
}
