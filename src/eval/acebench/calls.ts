/**
 * @module eval/acebench/calls
 * Reading a message as upstream reads it (`[f(a=1), g(b='x')]`: bracket fixing, `strip("[]'")`,
 * keyword arguments only, a top-level dict argument taken for a nested call) and writing calls
 * back in that form. Tool calls from OpenAI-style agents become the same `ApiCall`s.
 */
import type { JsonObject, ToolCall } from "../../env/index.js";
import {
  fromJson,
  parsePythonCalls,
  parsePythonLiteral,
  PyObject,
  pyRepr,
  PyTuple,
  type PyValue,
  strip,
  toJson,
} from "../python/index.js";
import { NestedCall, type ApiCall, type ArgValue } from "./world.js";

class Unsupported extends Error {}

function hasUnsupported(v: PyValue): boolean {
  if (v instanceof Set || v instanceof PyObject) return true;
  if (Array.isArray(v)) return v.some(hasUnsupported);
  if (v instanceof PyTuple) return v.items.some(hasUnsupported);
  if (v instanceof Map) return [...v.values()].some(hasUnsupported);
  return false;
}

/**
 * Upstream formats a dict-valued argument as a call: `{k: {...}}` becomes `k(...)`. Anything
 * else it cannot format (an empty dict, a non-dict inner value) fails the whole decode.
 */
function argValue(v: PyValue): ArgValue {
  if (hasUnsupported(v)) throw new Unsupported("sets are not literals upstream's decoder accepts");
  if (!(v instanceof Map)) return v;
  const first = [...v][0];
  if (!first || !(first[1] instanceof Map))
    throw new Unsupported("a dict argument that is not a nested call");
  const [name, inner] = first;
  return new NestedCall(
    typeof name === "string" ? name : pyRepr(name),
    [...inner].map(([k, x]) => [typeof k === "string" ? k : pyRepr(k), argValue(x)] as const),
  );
}

/**
 * Decodes an agent message into calls where upstream's `decode_function_list` succeeds; null
 * where it raises. Positional arguments are dropped, as upstream drops them. Known differences
 * (inputs no benchmark answer contains): upstream also accepts a repeated keyword (the last value
 * wins), bare names and arithmetic as values, and reads `+x` as `-x`; here those fail to decode.
 */
export function decodeCalls(message: string): ApiCall[] | null {
  if (message === "") return null;
  let s = message.startsWith(" ") ? message.slice(1) : message;
  if (!s.startsWith("[")) s = `[${s}`;
  if (!s.endsWith("]")) s = `${s}]`;
  const cleaned = strip(s, "[]'");
  // ast.parse(mode="eval") rejects empty input and a leading indent.
  if (cleaned.trim() === "" || /^[ \t]/.test(cleaned)) return null;
  try {
    return parsePythonCalls(`[${cleaned}]`).map((c) => ({
      name: c.name,
      kwargs: Object.entries(c.kwargs).map(([k, v]) => [k, argValue(v)] as const),
    }));
  } catch {
    // A lone literal or name parses in Python too; upstream then finds no call in it.
    if (/^[A-Za-z_]\w*\s*$/.test(cleaned)) return [];
    try {
      parsePythonLiteral(cleaned);
      return [];
    } catch {
      return null;
    }
  }
}

/** The multi-turn agent's test for "this message is for execution": a `[...]` on one line that decodes. */
export function isExecutionMessageMultiTurn(text: string): boolean {
  // `/\[.*\]/` (a `[` and a later `]` on one line) said without brackets in between, which is
  // the same test: `.*` would rescan to the line's end from every `[` (quadratic).
  return /\[[^[\]\n\r\u2028\u2029]*\]/.test(text) && decodeCalls(text) !== null;
}

/** The multi-step agent's test: the message starts with a `[...]` on one line. */
export function isExecutionMessageMultiStep(text: string): boolean {
  return /^\[.*?\]/.test(text);
}

function argText(v: ArgValue): string {
  if (!(v instanceof NestedCall)) return pyRepr(v);
  return `${v.name}(${v.kwargs.map(([k, x]) => `${k}=${argText(x)}`).join(", ")})`;
}

/** Calls written as upstream's agents write them, `[f(a='x', b=1), g()]`. */
export function renderCalls(calls: readonly ApiCall[]): string {
  return `[${calls.map((c) => `${c.name}(${c.kwargs.map(([k, v]) => `${k}=${argText(v)}`).join(", ")})`).join(", ")}]`;
}

/** An OpenAI-style tool call as an `ApiCall` (integral JSON numbers become ints). */
export function callFromToolCall(call: ToolCall): ApiCall {
  return {
    name: call.name,
    kwargs: Object.entries(call.arguments).map(([k, v]) => [k, fromJson(v)] as const),
  };
}

/** The JSON arguments of an `ApiCall`, for oracle tool calls (floats that are integral lose their `.0`). */
export function toolArguments(call: ApiCall): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of call.kwargs) out[k] = v instanceof NestedCall ? argText(v) : toJson(v);
  return out;
}
