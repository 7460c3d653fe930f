/**
 * @module sandbox/shapes
 * Strict checks of what a guest returned (after JSON parsing on the host): every violation is an
 * E_ENV_CONTRACT error whose message names the method and the field.
 */
import { actionFromOracle } from "../env/action.js";
import { hintProblems, resetProblems, stepProblems } from "../env/shape.js";
import { normalizeToolSchema } from "../env/tool-schema.js";
import type {
  Action,
  EnvMeta,
  JsonObject,
  OracleAction,
  ResetResult,
  StepResult,
  ToolSpec,
} from "../env/types.js";
import { SpadeError } from "../errors.js";

/** Deepest nesting accepted in a guest answer; deeper JSON could overflow host recursion later. */
export const MAX_JSON_DEPTH = 64;

/** Where the environment contract is written down (a file of this project). */
export const CONTRACT_DOC = 'README.md "The environment contract" and docs/validation.md';

function contractError(where: string, problem: string): SpadeError {
  return new SpadeError("E_ENV_CONTRACT", `${where}: ${problem}`, {
    nextStep: `see ${CONTRACT_DOC}`,
  });
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return String(value);
  return `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Deepest bracket nesting of JSON text, scanned without recursion (strings skipped), so that a
 * hostile answer nested a million levels deep is refused before anything recurses into it.
 */
export function jsonDepth(json: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91 /* { [ */) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93 /* } ] */) depth--;
  }
  return max;
}

/** Parses a guest's JSON answer, refusing nesting deeper than MAX_JSON_DEPTH. */
export function parseGuestJson(json: string, where: string): unknown {
  if (jsonDepth(json) > MAX_JSON_DEPTH)
    throw contractError(where, `answer is nested deeper than ${MAX_JSON_DEPTH} levels`);
  return JSON.parse(json) as unknown;
}

function requireObject(value: unknown, where: string): Record<string, unknown> {
  if (!isObject(value))
    throw contractError(where, `expected an object, got ${describeValue(value)}`);
  return value;
}

function requireString(obj: Record<string, unknown>, key: string, where: string): string {
  const v = obj[key];
  if (typeof v !== "string")
    throw contractError(where, `\`${key}\` must be a string, got ${describeValue(v)}`);
  return v;
}

/** Throws E_ENV_CONTRACT with the first of `problems`, if any. */
function assertNoProblems(problems: string[], where: string): void {
  if (problems.length > 0) {
    throw new SpadeError("E_ENV_CONTRACT", problems.join("; "), {
      nextStep: `${where}: see ${CONTRACT_DOC}`,
    });
  }
}

/** Checks `reset(seed)`'s answer (src/env/shape.ts defines valid). */
export function toResetResult(value: unknown): ResetResult {
  assertNoProblems(resetProblems(value), "reset()");
  const obj = value as ResetResult;
  return { observation: obj.observation, info: obj.info };
}

/** Checks `step(action)`'s answer, including tool results that answer no call of `action`. */
export function toStepResult(value: unknown, action: Action): StepResult {
  assertNoProblems(stepProblems(value, action), "step()");
  const obj = value as StepResult;
  const result: StepResult = {
    observation: obj.observation,
    reward: obj.reward,
    terminated: obj.terminated,
    truncated: obj.truncated,
    info: obj.info,
  };
  if (obj.toolResults !== undefined)
    result.toolResults = obj.toolResults.map((r) => ({ id: r.id, content: r.content }));
  return result;
}

/** Checks `hint()`'s answer: a non-empty string of at most MAX_HINT_CHARS characters. */
export function toHint(value: unknown): string {
  assertNoProblems(hintProblems(value), "hint()");
  return value as string;
}

/** Checks `solve()`'s answer (`{ text?, toolCalls? }`) and fills it into a full `Action`. */
export function toOracleAction(value: unknown): Action {
  const where = "solve()";
  const obj = requireObject(value, where);
  if (obj.text !== undefined && typeof obj.text !== "string") {
    throw contractError(where, `\`text\` must be a string, got ${describeValue(obj.text)}`);
  }
  let toolCalls: OracleAction["toolCalls"];
  if (obj.toolCalls !== undefined) {
    if (!Array.isArray(obj.toolCalls))
      throw contractError(
        where,
        `\`toolCalls\` must be an array, got ${describeValue(obj.toolCalls)}`,
      );
    toolCalls = obj.toolCalls.map((item, i) => {
      const at = `${where} toolCalls[${i}]`;
      const call = requireObject(item, at);
      const name = requireString(call, "name", at);
      const args = call.arguments === undefined ? {} : call.arguments;
      if (!isObject(args))
        throw contractError(at, `\`arguments\` must be an object, got ${describeValue(args)}`);
      if (call.id !== undefined && typeof call.id !== "string")
        throw contractError(at, `\`id\` must be a string, got ${describeValue(call.id)}`);
      return {
        ...(call.id === undefined ? {} : { id: call.id as string }),
        name,
        arguments: args as JsonObject,
      };
    });
  }
  return actionFromOracle({
    ...(obj.text === undefined ? {} : { text: obj.text as string }),
    ...(toolCalls === undefined ? {} : { toolCalls }),
  });
}

function toToolSpec(value: unknown, at: string): ToolSpec {
  const obj = requireObject(value, at);
  if (obj.type !== "function")
    throw contractError(at, `\`type\` must be "function", got ${describeValue(obj.type)}`);
  const fn = requireObject(obj.function, `${at}.function`);
  const name = requireString(fn, "name", `${at}.function`);
  const description = requireString(fn, "description", `${at}.function`);
  const parameters = requireObject(fn.parameters, `${at}.function.parameters`) as JsonObject;
  return { type: "function", function: { name, description, parameters } };
}

/**
 * Checks `Environment.meta` for types only (name, skill, description strings; `maxTurns` a
 * positive integer; `tools` an array of function schemas, `[]` when absent). Semantic checks
 * (kebab-case name, known skill, schema validity) belong to the validator.
 */
export function toEnvMeta(value: unknown): EnvMeta {
  const where = "Environment.meta";
  if (!isObject(value))
    throw contractError(where, `expected an object, got ${describeValue(value)}`);
  const maxTurns = value.maxTurns;
  if (typeof maxTurns !== "number" || !Number.isSafeInteger(maxTurns) || maxTurns < 1) {
    throw contractError(
      where,
      `\`maxTurns\` must be a positive integer, got ${describeValue(maxTurns)}`,
    );
  }
  const tools = value.tools === undefined ? [] : value.tools;
  if (!Array.isArray(tools))
    throw contractError(where, `\`tools\` must be an array, got ${describeValue(tools)}`);
  return {
    name: requireString(value, "name", where),
    skill: requireString(value, "skill", where),
    description: requireString(value, "description", where),
    maxTurns,
    // Flat `{name, description, parameters}` schemas are accepted and put in the chat form first.
    tools: tools.map((t, i) => toToolSpec(normalizeToolSchema(t), `${where}.tools[${i}]`)),
  };
}
