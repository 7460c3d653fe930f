/**
 * @module env/tool-schema
 * One form for the tool schemas of `meta.tools`. Models write both the OpenAI chat form
 * `{type: "function", function: {name, description, parameters}}` and the flat form
 * `{name, description, parameters}` (also with `type: "function"` beside them); a design must
 * never be lost to that difference, so both become the chat form before `meta` is checked.
 */

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** The arguments schema of a tool that declares none: no arguments (the reference's `tool_use_base_env.py:get_tools`). */
const NO_ARGUMENTS = Object.freeze({ type: "object", properties: Object.freeze({}) });

/**
 * One tool schema in the chat form. A flat `{name, ...}` is wrapped; in either form a missing
 * `description` becomes "" and missing `parameters` an empty object schema, as the reference's
 * `get_tools` fills them. Anything else (no name, a `type` other than "function", not an object)
 * is returned unchanged, for the contract check to report.
 */
export function normalizeToolSchema(tool: unknown): unknown {
  if (!isPlainObject(tool)) return tool;
  const fn = isPlainObject(tool.function)
    ? tool.function
    : !("function" in tool) && typeof tool.name === "string"
      ? tool
      : null;
  if (fn === null || (tool.type !== undefined && tool.type !== "function")) return tool;
  return {
    type: "function",
    function: {
      name: fn.name,
      description: fn.description === undefined ? "" : fn.description,
      parameters: fn.parameters === undefined ? structuredClone(NO_ARGUMENTS) : fn.parameters,
    },
  };
}

/** `meta` with every entry of `meta.tools` in the chat form (`normalizeToolSchema`); other values unchanged. */
export function normalizeMetaTools(meta: unknown): unknown {
  if (!isPlainObject(meta) || !Array.isArray(meta.tools)) return meta;
  return { ...meta, tools: meta.tools.map(normalizeToolSchema) };
}
