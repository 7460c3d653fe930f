/**
 * @module env/action
 * Turning assistant output into an `Action`: the final answer from `\boxed{...}` or
 * `<answer>...</answer>`, tool calls from OpenAI `tool_calls` or `<tool_call>{json}</tool_call>`
 * text, nested argument objects kept intact.
 */
import type { Action, JsonObject, OracleAction, ToolCall } from "./types.js";

/**
 * The final answer in `text`, or null.
 *
 * Rule: the content of the **last** `\boxed{...}` wins, with nested braces balanced
 * (`\boxed{\frac{1}{2}}` gives `\frac{1}{2}`); an unclosed `\boxed{` is ignored. Without a
 * boxed answer, the content of the last `<answer>...</answer>` is used. Both are trimmed.
 */
export function extractAnswer(text: string): string | null {
  const boxed = lastBoxed(text);
  if (boxed !== null) return boxed.trim();
  // indexOf, not /<answer>([\s\S]*?)<\/answer>/g (which rescans to the end from every unclosed
  // tag: quadratic), and inline: this function's source is copied into sandboxes (oracle-turn.ts).
  let last: string | null = null;
  for (let from = 0; ; ) {
    const open = text.indexOf("<answer>", from);
    const close = open === -1 ? -1 : text.indexOf("</answer>", open + 8);
    if (close === -1) break;
    last = text.slice(open + 8, close);
    from = close + 9;
  }
  return last === null ? null : last.trim();
}

/** The content of the last closed `\boxed{...}` in `text` (nested braces balanced), or null. */
export function lastBoxed(text: string): string | null {
  const marker = "\\boxed{";
  let from = text.lastIndexOf(marker);
  // An occurrence left unclosed leaves every earlier one unclosed past it (its `{` is still
  // open there), so the previous occurrence is scanned only up to it: linear, not quadratic.
  let end = text.length;
  while (from !== -1) {
    const start = from + marker.length;
    let depth = 1;
    for (let i = start; i < end; i++) {
      const ch = text[i];
      if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) return text.slice(start, i);
    }
    // Unclosed: try the previous occurrence.
    end = from;
    from = from === 0 ? -1 : text.lastIndexOf(marker, from - 1);
  }
  return null;
}

/** Tool calls parsed from a source, plus the raw pieces that could not be parsed. */
export interface ParsedToolCalls {
  calls: ToolCall[];
  /** Raw text of each call that was not valid JSON of the expected shape. */
  malformed: string[];
}

/** Parses arguments given as an object or as a JSON string of an object. */
function parseArguments(raw: unknown): JsonObject | null {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") return {};
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) return null;
  return value as JsonObject;
}

/** Parses one `{name, arguments}` object (the Hermes/Qwen form; `parameters` is accepted too). */
function toToolCall(value: unknown, index: number): ToolCall | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const obj = value as Record<string, unknown>;
  if (typeof obj.name !== "string" || obj.name === "") return null;
  const args = parseArguments(obj.arguments ?? obj.parameters);
  if (args === null) return null;
  const id = typeof obj.id === "string" && obj.id !== "" ? obj.id : `call_${index}`;
  return { id, name: obj.name, arguments: args };
}

/**
 * The bodies of the `open...close` blocks of `text`, in order, each closed by the first `close`
 * after its `open`: what `/open([\s\S]*?)close/g` captures. Found with indexOf, in linear time;
 * that regex rescans to the end from every unclosed `open`, quadratic in a long model output.
 */
export function taggedBodies(text: string, open: string, close: string): string[] {
  return taggedSpans(text, open, close).map(([start, end]) =>
    text.slice(start + open.length, end - close.length),
  );
}

/** `text` without its `open...close` blocks: what `text.replace(/open[\s\S]*?close/g, "")` gives, in linear time. */
export function withoutTagged(text: string, open: string, close: string): string {
  let out = "";
  let from = 0;
  for (const [start, end] of taggedSpans(text, open, close)) {
    out += text.slice(from, start);
    from = end;
  }
  return out + text.slice(from);
}

/** [start, end) of each `open...close` block of `text` (see `taggedBodies`). */
function taggedSpans(text: string, open: string, close: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (let from = 0; ; ) {
    const start = text.indexOf(open, from);
    // No close after the first unclosed `open` means none after any later one either.
    const closeAt = start === -1 ? -1 : text.indexOf(close, start + open.length);
    if (closeAt === -1) return spans;
    from = closeAt + close.length;
    spans.push([start, from]);
  }
}

/** Tool calls written as `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` in text. */
export function parseToolCallText(text: string): ParsedToolCalls {
  const calls: ToolCall[] = [];
  const malformed: string[] = [];
  for (const tagged of taggedBodies(text, "<tool_call>", "</tool_call>")) {
    const body = tagged.trim();
    let call: ToolCall | null = null;
    try {
      call = toToolCall(JSON.parse(body), calls.length);
    } catch {
      call = null;
    }
    if (call) calls.push(call);
    else malformed.push(body);
  }
  return { calls, malformed };
}

/** The OpenAI chat-completions shape of one tool call. */
export interface OpenAIToolCall {
  id?: string;
  type?: string;
  function: { name: string; arguments: string };
}

/** Tool calls from an OpenAI `tool_calls` array (arguments arrive as JSON strings). */
export function parseOpenAIToolCalls(toolCalls: readonly OpenAIToolCall[]): ParsedToolCalls {
  const calls: ToolCall[] = [];
  const malformed: string[] = [];
  toolCalls.forEach((tc, index) => {
    const call = toToolCall(
      { id: tc.id, name: tc.function?.name, arguments: tc.function?.arguments },
      index,
    );
    if (call) calls.push(call);
    else malformed.push(JSON.stringify(tc));
  });
  return { calls, malformed };
}

/**
 * Builds an `Action` from assistant text and, when the server returned them, structured tool
 * calls. Without structured calls, `<tool_call>` blocks in the text are parsed.
 */
export function makeAction(text: string, toolCalls?: readonly ToolCall[]): Action {
  const calls = toolCalls && toolCalls.length > 0 ? [...toolCalls] : parseToolCallText(text).calls;
  return { text, answer: extractAnswer(text), toolCalls: calls };
}

/** Fills an oracle's partial action into a full `Action` (ids `oracle_<i>` where missing). */
export function actionFromOracle(oracle: OracleAction): Action {
  const text = typeof oracle.text === "string" ? oracle.text : "";
  const toolCalls = (oracle.toolCalls ?? []).map((tc, i) => ({
    id: tc.id ?? `oracle_${i}`,
    name: tc.name,
    arguments: tc.arguments ?? {},
  }));
  return { text, answer: extractAnswer(text), toolCalls };
}
