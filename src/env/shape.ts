/**
 * @module env/shape
 * Shape checks for what an environment returns (meta, reset, step, hint). Each returns a list
 * of problems (empty when valid), so the sandbox, the validator and native wrappers share one
 * definition of "valid".
 */
import { sampleProblem } from "./schema-sample.js";
import type { Action, JsonSchema } from "./types.js";

/** Longest accepted hint, in characters. */
export const MAX_HINT_CHARS = 2000;
/** Largest accepted `maxTurns`. */
export const MAX_TURNS_LIMIT = 200;

const NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TOOL_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** A short description of a value for messages: `2`, `"x"`, `null`, `an array`, `undefined`. */
function got(value: unknown): string {
  if (value === undefined) return "got undefined";
  if (Array.isArray(value)) return "got an array";
  if (typeof value === "object" && value !== null) return "got an object";
  const text = JSON.stringify(value) ?? String(value);
  return `got ${text.length > 40 ? `${text.slice(0, 40)}...` : text}`;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** Problems with an environment's `meta` (name, skill, description, maxTurns, tools). */
export function metaProblems(meta: unknown): string[] {
  if (!isPlainObject(meta)) return ["meta must be an object"];
  const problems: string[] = [];
  const { name, skill, description, maxTurns, tools } = meta;
  if (typeof name !== "string" || name.length > 64 || !NAME_RE.test(name)) {
    problems.push(`meta.name must be lowercase-kebab, at most 64 characters (${got(name)})`);
  }
  if (typeof skill !== "string" || skill.trim() === "" || skill.length > 64) {
    problems.push("meta.skill must be a non-empty string of at most 64 characters");
  }
  if (typeof description !== "string" || description.trim() === "" || description.length > 2000) {
    problems.push("meta.description must be a non-empty string of at most 2000 characters");
  }
  if (
    typeof maxTurns !== "number" ||
    !Number.isInteger(maxTurns) ||
    maxTurns < 1 ||
    maxTurns > MAX_TURNS_LIMIT
  ) {
    problems.push(
      `meta.maxTurns must be an integer from 1 to ${MAX_TURNS_LIMIT} (${got(maxTurns)})`,
    );
  }
  if (!Array.isArray(tools)) {
    problems.push("meta.tools must be an array (empty when the environment has no tools)");
  } else problems.push(...toolProblems(tools));
  return problems;
}

/**
 * Problems with a list of tool schemas in the chat form (`meta.tools`, or tools read from a
 * remote server): each `{type: "function", function: {name, description, parameters}}`, names
 * unique and matching TOOL_NAME_RE, parameters an object schema within the sampling bounds.
 * `where` names the list in the messages.
 */
export function toolProblems(tools: readonly unknown[], where = "meta.tools"): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    const fn = isPlainObject(tool) ? tool.function : undefined;
    if (!isPlainObject(tool) || tool.type !== "function" || !isPlainObject(fn)) {
      problems.push(
        `${where}[${i}] must be {type: "function", function: {name, description, parameters}}`,
      );
      return;
    }
    if (typeof fn.name !== "string" || !TOOL_NAME_RE.test(fn.name)) {
      problems.push(
        `${where}[${i}].function.name must match ${TOOL_NAME_RE.source} (${got(fn.name)})`,
      );
    } else if (seen.has(fn.name)) {
      problems.push(`${where}[${i}].function.name "${fn.name}" is declared twice`);
    } else {
      seen.add(fn.name);
    }
    if (typeof fn.description !== "string")
      problems.push(`${where}[${i}].function.description must be a string`);
    if (!isPlainObject(fn.parameters) || fn.parameters.type !== "object") {
      problems.push(`${where}[${i}].function.parameters must be a JSON Schema with type "object"`);
    } else {
      // The validator builds arguments from this schema on the host: it must fit the bounds.
      const tooLarge = sampleProblem(fn.parameters as JsonSchema);
      if (tooLarge) problems.push(`${where}[${i}].function.parameters: ${tooLarge}`);
    }
  });
  return problems;
}

function infoProblems(info: unknown, where: string): string[] {
  return isPlainObject(info) ? [] : [`${where}.info must be a JSON object (${got(info)})`];
}

/** Problems with what `reset` returned. */
export function resetProblems(result: unknown): string[] {
  if (!isPlainObject(result)) return [`reset() must return {observation, info} (${got(result)})`];
  const problems: string[] = [];
  if (typeof result.observation !== "string" || result.observation.trim() === "") {
    problems.push(`reset().observation must be a non-empty string (${got(result.observation)})`);
  }
  return problems.concat(infoProblems(result.info, "reset()"));
}

/** Problems with what `step(action)` returned, including tool results that answer no call. */
export function stepProblems(result: unknown, action: Action): string[] {
  if (!isPlainObject(result))
    return [
      `step() must return {observation, reward, terminated, truncated, info} (${got(result)})`,
    ];
  const problems: string[] = [];
  const { observation, reward, terminated, truncated, toolResults } = result;
  if (typeof observation !== "string")
    problems.push(`step().observation must be a string (${got(observation)})`);
  if (typeof reward !== "number" || !Number.isFinite(reward)) {
    problems.push(`step().reward must be a finite number (${got(reward)})`);
  } else if (reward < -1 || reward > 1) {
    problems.push(`step().reward must be in [-1, 1] (${got(reward)})`);
  }
  if (typeof terminated !== "boolean")
    problems.push(`step().terminated must be a boolean (${got(terminated)})`);
  if (typeof truncated !== "boolean")
    problems.push(`step().truncated must be a boolean (${got(truncated)})`);
  problems.push(...infoProblems(result.info, "step()"));
  if (toolResults !== undefined) {
    const callIds = new Set(action.toolCalls.map((c) => c.id));
    if (!Array.isArray(toolResults)) {
      problems.push(`step().toolResults must be an array of {id, content} (${got(toolResults)})`);
    } else {
      toolResults.forEach((tr, i) => {
        if (!isPlainObject(tr) || typeof tr.id !== "string" || typeof tr.content !== "string") {
          problems.push(
            `step().toolResults[${i}] must be {id: string, content: string} (${isPlainObject(tr) ? `id ${got(tr.id)}, content ${got(tr.content)}` : got(tr)})`,
          );
        } else if (!callIds.has(tr.id)) {
          problems.push(
            `step().toolResults[${i}] answers id "${tr.id}", which is not a call of this action`,
          );
        }
      });
    }
  }
  return problems;
}

/** Problems with what `hint()` returned. */
export function hintProblems(hint: unknown): string[] {
  if (typeof hint !== "string" || hint.trim() === "")
    return [`hint() must return a non-empty string (${got(hint)})`];
  if (hint.length > MAX_HINT_CHARS)
    return [`hint() must be at most ${MAX_HINT_CHARS} characters (got ${hint.length})`];
  return [];
}
