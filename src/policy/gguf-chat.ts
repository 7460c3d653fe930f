/**
 * @module policy/gguf-chat
 * Turning an OpenAI-shaped chat request into what node-llama-cpp's `LlamaChat` takes: its chat
 * history, function definitions, and the JSON schema that constrains a required tool call.
 * Pure: no model, no native code.
 */
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  GbnfJsonSchema,
} from "node-llama-cpp";
import type { JsonObject, JsonSchema, ToolSpec } from "../env/index.js";
import type { ChatMessage, ChatToolCall } from "./types.js";

/**
 * How tools are offered to a local model.
 * - `auto`: node-llama-cpp's function calling in the chat template's own syntax; the model may
 *   answer in text or call tools, and a call's arguments are grammar-constrained once it starts.
 * - `required`: every answer is one JSON object `{"name", "arguments"}` constrained by a grammar
 *   built from the tool schemas, so it always parses and fits a schema. For models (or tests)
 *   that cannot be trusted to choose the call syntax themselves.
 */
export type GgufToolChoice = "auto" | "required";

/** The node-llama-cpp schema subset for any JSON value (a schema without type, enum or const). */
const ANY_JSON: GbnfJsonSchema = {
  oneOf: [
    { type: ["string", "number", "boolean", "null"] },
    { type: "array" },
    { type: "object", additionalProperties: true },
  ],
};

const BASIC_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A tool's JSON Schema in the subset node-llama-cpp turns into a grammar. Kept: types, enum,
 * const, properties, items, min/max items, string lengths and date formats, `anyOf`/`oneOf`.
 * Dropped (not enforceable by a grammar, so the call may still break them): numeric bounds,
 * patterns. Every declared property is generated, optional ones too; an object without
 * `properties` takes any keys.
 */
export function toGrammarSchema(schema: unknown): GbnfJsonSchema {
  if (!isObject(schema)) return ANY_JSON;
  const description =
    typeof schema.description === "string" ? { description: schema.description } : {};
  if ("const" in schema && (schema.const === null || typeof schema.const !== "object"))
    return { const: schema.const as string | number | boolean | null, ...description };
  if (Array.isArray(schema.enum))
    return {
      enum: schema.enum.filter((v) => v === null || typeof v !== "object") as Array<
        string | number | boolean | null
      >,
      ...description,
    };
  const alternatives = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : null;
  if (alternatives) return { oneOf: alternatives.map(toGrammarSchema), ...description };
  const types =
    typeof schema.type === "string"
      ? [schema.type]
      : Array.isArray(schema.type)
        ? schema.type.filter((t): t is string => typeof t === "string")
        : [];
  if (types.length === 0) {
    if (isObject(schema.properties)) return toGrammarSchema({ ...schema, type: "object" });
    if (schema.items !== undefined) return toGrammarSchema({ ...schema, type: "array" });
    return ANY_JSON;
  }
  if (types.length > 1) {
    const basic = types.filter((t) => BASIC_TYPES.has(t)) as Array<
      "string" | "number" | "integer" | "boolean" | "null"
    >;
    const structured = types
      .filter((t) => t === "object" || t === "array")
      .map((t) => toGrammarSchema({ ...schema, type: t }));
    if (structured.length === 0) return { type: basic, ...description };
    return {
      oneOf: [...(basic.length > 0 ? [{ type: basic }] : []), ...structured],
      ...description,
    };
  }
  const type = types[0];
  if (type === "object") {
    const properties = isObject(schema.properties)
      ? Object.fromEntries(
          Object.entries(schema.properties).map(([k, v]) => [k, toGrammarSchema(v)]),
        )
      : undefined;
    const extra = schema.additionalProperties;
    const additionalProperties = isObject(extra)
      ? toGrammarSchema(extra)
      : properties === undefined
        ? extra !== false
        : extra === true;
    return {
      type: "object",
      ...(properties ? { properties } : {}),
      additionalProperties,
      ...description,
    };
  }
  if (type === "array") {
    const bounds = {
      ...(typeof schema.minItems === "number" ? { minItems: schema.minItems } : {}),
      ...(typeof schema.maxItems === "number" ? { maxItems: schema.maxItems } : {}),
    };
    return {
      type: "array",
      ...(schema.items !== undefined ? { items: toGrammarSchema(schema.items) } : {}),
      ...bounds,
      ...description,
    };
  }
  if (type === "string") {
    const format = schema.format;
    if (format === "date" || format === "time" || format === "date-time")
      return { type: "string", format, ...description };
    return {
      type: "string",
      ...(typeof schema.minLength === "number" ? { minLength: schema.minLength } : {}),
      ...(typeof schema.maxLength === "number" ? { maxLength: schema.maxLength } : {}),
      ...description,
    };
  }
  return BASIC_TYPES.has(type ?? "")
    ? { type: type as "number" | "integer" | "boolean" | "null", ...description }
    : ANY_JSON;
}

/** The schema of one required tool call: `{"name": <a tool's name>, "arguments": <its parameters>}`. */
export function toolCallSchema(tools: readonly ToolSpec[]): GbnfJsonSchema {
  return {
    oneOf: tools.map((t) => ({
      type: "object" as const,
      properties: {
        name: { const: t.function.name },
        arguments: toGrammarSchema(t.function.parameters as JsonSchema),
      },
    })),
  };
}

/** node-llama-cpp function definitions for `auto` tool choice. */
export function toFunctions(tools: readonly ToolSpec[]): ChatModelFunctions {
  return Object.fromEntries(
    tools.map((t) => [
      t.function.name,
      { description: t.function.description, params: toGrammarSchema(t.function.parameters) },
    ]),
  );
}

/** The instructions a `required` tool call needs: the grammar forces the form, this says what each tool does. */
export function requiredToolsInstructions(tools: readonly ToolSpec[]): string {
  const lines = tools.map(
    (t) =>
      `- ${t.function.name}: ${t.function.description} Arguments schema: ${JSON.stringify(t.function.parameters)}`,
  );
  return [
    'Tools you can call. Answer with exactly one JSON object {"name": TOOL, "arguments": {...}}:',
    ...lines,
  ].join("\n");
}

/** A call as the model wrote it in `required` mode; the argument JSON is kept verbatim. */
function requiredCallText(call: ChatToolCall): string {
  const args = call.function.arguments.trim() === "" ? "{}" : call.function.arguments;
  return `{"name": ${JSON.stringify(call.function.name)}, "arguments": ${args}}`;
}

function parsedArguments(raw: string): unknown {
  try {
    return raw.trim() === "" ? {} : JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * The node-llama-cpp chat history for `messages`, ending with the empty model turn to generate.
 * In `auto` mode a call and its `tool` answer become one function-call item (the template renders
 * both); in `required` mode the call stays the JSON text the model wrote and its answer becomes a
 * user message, so the model sees its own format again. The tool instructions of `required` mode
 * are appended to the system message (or make one).
 */
export function toLlamaHistory(
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[],
  toolChoice: GgufToolChoice,
): ChatHistoryItem[] {
  const required = toolChoice === "required" && tools.length > 0;
  const resultsById = new Map<string, string>();
  for (const m of messages) if (m.role === "tool") resultsById.set(m.tool_call_id, m.content);
  const namesById = new Map<string, string>();
  const descriptions = new Map(tools.map((t) => [t.function.name, t.function.description]));
  const history: ChatHistoryItem[] = [];
  for (const m of messages) {
    if (m.role === "system") history.push({ type: "system", text: m.content });
    else if (m.role === "user") history.push({ type: "user", text: m.content });
    else if (m.role === "tool") {
      // Auto mode folds answered calls into the model turn; required mode (and strays) show them as user text.
      const name = namesById.get(m.tool_call_id);
      if (required || name === undefined)
        history.push({
          type: "user",
          text: `Result of ${name ?? "tool"} (${m.tool_call_id}): ${m.content}`,
        });
    } else {
      const calls = m.tool_calls ?? [];
      const response: Array<string | ChatModelFunctionCall> = m.content ? [m.content] : [];
      for (const call of calls) {
        if (required) {
          response.push(requiredCallText(call));
          namesById.set(call.id, call.function.name);
          continue;
        }
        if (!resultsById.has(call.id)) continue;
        namesById.set(call.id, call.function.name);
        const description = descriptions.get(call.function.name);
        response.push({
          type: "functionCall",
          name: call.function.name,
          ...(description ? { description } : {}),
          params: parsedArguments(call.function.arguments),
          result: resultsById.get(call.id),
        });
      }
      history.push({ type: "model", response });
    }
  }
  if (required) {
    const instructions = requiredToolsInstructions(tools);
    const system = history[0];
    if (system?.type === "system" && typeof system.text === "string")
      history[0] = { type: "system", text: `${system.text}\n\n${instructions}` };
    else history.unshift({ type: "system", text: instructions });
  }
  history.push({ type: "model", response: [] });
  return history;
}
