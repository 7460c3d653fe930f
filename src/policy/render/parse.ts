/**
 * @module policy/render/parse
 * Sampled assistant tokens back into an `Action`: decode (stop tokens removed), then
 * `makeAction` (final answer, Hermes/Qwen `<tool_call>` JSON with nested arguments). The raw
 * JSON text of each call's arguments is kept verbatim: JavaScript and Python print floats
 * differently, so re-serializing would change what the model wrote.
 */
import { makeAction, parseToolCallText, taggedBodies, withoutTagged } from "../../env/index.js";
import type { Action } from "../../env/index.js";
import type { ChatMessage, ChatToolCall } from "../types.js";

/** A tool call as the model wrote it. */
export interface RawToolCall {
  id: string;
  name: string;
  /** The JSON text of `arguments` exactly as sampled (`{}` when the model gave none). */
  argumentsText: string;
}

/** One sampled assistant turn, parsed. */
export interface ParsedAssistant {
  /** The decoded text (stop tokens removed). */
  text: string;
  action: Action;
  /** The calls with their argument text verbatim, in `action.toolCalls` order. */
  rawToolCalls: RawToolCall[];
  /** Bodies of `<tool_call>` blocks that are not valid calls. Non-empty means malformed output. */
  malformedToolCalls: string[];
  /** The assistant message for the conversation: text without the call blocks, calls in `tool_calls`. */
  message: ChatMessage;
}

/** Index just past the JSON string that starts at `from` (a `"`), or -1. */
function skipString(text: string, from: number): number {
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return -1;
}

/** Index just past the JSON value that starts at `from`, or -1 (brackets balanced, strings skipped). */
function skipValue(text: string, from: number): number {
  if (text[from] === '"') return skipString(text, from);
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      i = skipString(text, i) - 1;
      if (i < 0) return -1;
    } else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (ch === "," && depth === 0) return i;
  }
  return depth === 0 ? text.length : -1;
}

/**
 * The verbatim text of the top-level `arguments` (or `parameters`) value of a JSON object's
 * text, or null when there is none. Assumes `json` parses (the caller checked).
 */
export function rawArgumentsText(json: string): string | null {
  let i = json.indexOf("{") + 1;
  while (i > 0 && i < json.length) {
    while (/[\s,]/.test(json[i] ?? "")) i++;
    if (json[i] !== '"') return null;
    const keyEnd = skipString(json, i);
    if (keyEnd < 0) return null;
    const key = JSON.parse(json.slice(i, keyEnd)) as string;
    i = json.indexOf(":", keyEnd) + 1;
    while (/\s/.test(json[i] ?? "")) i++;
    const valueEnd = skipValue(json, i);
    if (valueEnd < 0) return null;
    if (key === "arguments" || key === "parameters") return json.slice(i, valueEnd).trimEnd();
    i = valueEnd;
  }
  return null;
}

/** Argument text for the message: a double-encoded string argument is unwrapped once. */
function messageArguments(raw: string | null): string {
  if (raw === null) return "{}";
  if (raw.startsWith('"')) {
    const inner: unknown = JSON.parse(raw);
    if (typeof inner === "string") return inner;
  }
  return raw;
}

/** Decoded assistant text without its `<tool_call>` blocks, trimmed. */
function withoutToolCalls(text: string): string {
  return withoutTagged(text, "<tool_call>", "</tool_call>").trim();
}

/**
 * Parses one sampled assistant turn: `decode` turns ids into text; trailing `stopIds` are
 * removed first (they end the turn, they are not text).
 */
export function parseAssistantTokens(
  tokenIds: readonly number[],
  decode: (ids: readonly number[]) => string,
  stopIds: readonly number[],
): ParsedAssistant {
  let end = tokenIds.length;
  while (end > 0 && stopIds.includes(tokenIds[end - 1] as number)) end--;
  const text = decode(tokenIds.slice(0, end));
  const action = makeAction(text);
  const { malformed } = parseToolCallText(text);
  const bodies = taggedBodies(text, "<tool_call>", "</tool_call>")
    .map((body) => body.trim())
    .filter((body) => !malformed.includes(body));
  const rawToolCalls = action.toolCalls.map(
    (call, i): RawToolCall => ({
      id: call.id,
      name: call.name,
      argumentsText: rawArgumentsText(bodies[i] ?? "") ?? "{}",
    }),
  );
  const toolCalls = rawToolCalls.map(
    (call, i): ChatToolCall => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: messageArguments(rawArgumentsText(bodies[i] ?? "")) },
    }),
  );
  const content = toolCalls.length > 0 ? withoutToolCalls(text) : text;
  const message: ChatMessage =
    toolCalls.length > 0
      ? { role: "assistant", content, tool_calls: toolCalls }
      : { role: "assistant", content };
  return { text, action, rawToolCalls, malformedToolCalls: malformed, message };
}
