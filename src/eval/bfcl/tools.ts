/**
 * @module eval/bfcl/tools
 * BFCL function documents as OpenAI tool schemas (BFCL's `dict`/`float`/`tuple`/`any` types
 * mapped to JSON Schema), and tool-call arguments turned into the Python call upstream would
 * evaluate (`name(k=repr(v), ...)`).
 */
import type { JsonObject, JsonSchema, ToolSpec } from "../../env/types.js";
import { fromJson, type PyCall, pyRepr, type PyValue, toJson } from "../python/index.js";
import type { BfclFunctionDoc } from "./data.js";

/** BFCL type names -> JSON Schema type names; `any` has no JSON Schema type and is dropped. */
const TYPE_MAP: Record<string, string | null> = {
  dict: "object",
  float: "number",
  tuple: "array",
  any: null,
};

/** Converts one BFCL parameter schema node (and its `properties` / `items`) to JSON Schema. */
export function toJsonSchema(node: JsonObject): JsonSchema {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" && typeof value === "string") {
      const mapped = Object.hasOwn(TYPE_MAP, value) ? TYPE_MAP[value]! : value;
      if (mapped !== null) out.type = mapped;
    } else if (
      key === "properties" &&
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value)
    ) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, prop]) => [name, toJsonSchema(prop as JsonObject)]),
      );
    } else if (
      key === "items" &&
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value)
    ) {
      out.items = toJsonSchema(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** One BFCL function document as an OpenAI function tool. */
export function toolSpecOf(doc: BfclFunctionDoc): ToolSpec {
  const parameters = toJsonSchema(doc.parameters);
  parameters.type = "object";
  return {
    type: "function",
    function: { name: doc.name, description: doc.description, parameters },
  };
}

/**
 * A tool call's JSON arguments as the Python keyword call upstream evaluates. Integral numbers
 * become ints and others floats: what `json.loads` gives for the shortest JSON text of the value
 * (the `1.0` vs `1` of the model's own text is gone once parsed by JavaScript).
 */
export function pyCallFromJson(name: string, args: JsonObject): PyCall {
  const kwargs: Record<string, PyValue> = {};
  for (const [key, value] of Object.entries(args))
    Object.defineProperty(kwargs, key, {
      value: fromJson(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return { name, args: [], kwargs };
}

/** Upstream's decoded form of a call: `name(k1=repr(v1),k2=repr(v2))`. */
export function callSource(call: PyCall): string {
  const parts = [
    ...call.args.map(pyRepr),
    ...Object.entries(call.kwargs).map(([k, v]) => `${k}=${pyRepr(v)}`),
  ];
  return `${call.name}(${parts.join(",")})`;
}

/** A call's keyword arguments as JSON, for handing ground truth to a model-shaped policy. */
export function jsonArgsOf(kwargs: Record<string, PyValue>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(kwargs)) out[k] = toJson(v);
  return out;
}
