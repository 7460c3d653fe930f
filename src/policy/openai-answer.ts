/**
 * @module policy/openai-answer
 * An OpenAI-compatible server's chat-completions answer, read into a `ChatCompletion`: each
 * choice's text and tool calls (the API's own, else calls written in the text), and the token ids
 * and logprobs vLLM returns when asked. Pure: what the transport (openai.ts) hands it, nothing else.
 */
import { parseOpenAIToolCalls, parseToolCallText } from "../env/index.js";
import type { Json, OpenAIToolCall } from "../env/index.js";
import { SpadeError } from "../errors.js";
import type { ChatChoice, ChatCompletion } from "./types.js";

/** A JSON value's numbers, or null when it is not an array of numbers. */
function numberArray(value: unknown): number[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === "number")
    ? (value as number[])
    : null;
}

/** Parses one choice of a chat-completions answer. */
function parseChoice(raw: Record<string, unknown>): ChatChoice {
  const message = (raw.message ?? {}) as Record<string, unknown>;
  const content = typeof message.content === "string" ? message.content : "";
  const rawToolCalls = Array.isArray(message.tool_calls)
    ? (message.tool_calls as OpenAIToolCall[])
    : [];
  const parsed =
    rawToolCalls.length > 0 ? parseOpenAIToolCalls(rawToolCalls) : parseToolCallText(content);
  const logprobContent = (raw.logprobs as { content?: unknown } | null | undefined)?.content;
  const entries = Array.isArray(logprobContent)
    ? (logprobContent as Array<{ token?: unknown; logprob?: unknown }>)
    : null;
  return {
    content,
    toolCalls: parsed.calls,
    malformedToolCalls: parsed.malformed,
    rawToolCalls,
    finishReason: typeof raw.finish_reason === "string" ? raw.finish_reason : null,
    tokenIds: numberArray(raw.token_ids),
    logprobs: entries
      ? entries.map((e) => (typeof e.logprob === "number" ? e.logprob : Number.NaN))
      : null,
    tokens: entries ? entries.map((e) => String(e.token ?? "")) : null,
  };
}

/** Parses a whole chat-completions answer; E_POLICY_OUTPUT when it has no choices. */
export function parseChatCompletion(response: unknown): ChatCompletion {
  const body = (response ?? {}) as Record<string, unknown>;
  const choices = Array.isArray(body.choices)
    ? (body.choices as Array<Record<string, unknown>>)
    : [];
  if (choices.length === 0) {
    throw new SpadeError("E_POLICY_OUTPUT", "the server's answer has no choices", {
      nextStep: "check that the server supports chat completions for this model",
    });
  }
  const usage = body.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
  return {
    choices: choices.map(parseChoice),
    promptTokenIds: numberArray(body.prompt_token_ids),
    promptLogprobs: body.prompt_logprobs === undefined ? null : (body.prompt_logprobs as Json),
    usage:
      usage &&
      typeof usage.prompt_tokens === "number" &&
      typeof usage.completion_tokens === "number"
        ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }
        : null,
  };
}
