/**
 * @module policy/types
 * What a chat-level model backend takes and gives: messages in the OpenAI wire shape (so they
 * can be sent, stored and rendered as they are), sampling parameters, and parsed choices that
 * keep token ids and logprobs when the server returns them.
 */
import type { Json, OpenAIToolCall, ToolCall, ToolSpec } from "../env/index.js";

/** A tool call as an assistant message carries it (OpenAI shape, arguments as a JSON string). */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One chat message, OpenAI wire shape. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; content: string; tool_call_id: string };

/** Sampling parameters; unset ones are left to the server. */
export interface SamplingParams {
  temperature?: number;
  top_p?: number;
  /**
   * Top-k sampling. Not part of the OpenAI API: sent as the body field `top_k`, which vLLM and
   * SGLang accept; servers that reject unknown fields need it unset.
   */
  top_k?: number;
  /** Most tokens to generate per choice. */
  max_tokens?: number;
  stop?: string | string[];
  seed?: number;
  /** Choices per request. The chat agent plays the first one. */
  n?: number;
}

/** One request to a chat backend. */
export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** Function tools offered to the model; omitted from the request when empty. */
  tools?: readonly ToolSpec[];
  /** Overrides the backend's sampling parameters for this request. */
  sampling?: SamplingParams;
  /** Cancels the request (and its retries); it then rejects with E_CANCELLED. */
  signal?: AbortSignal;
}

/** One sampled answer, parsed. */
export interface ChatChoice {
  /** The assistant text (empty when the server sent null content). */
  content: string;
  /** Tool calls, from `tool_calls` when the server returned them, else from `<tool_call>` text. */
  toolCalls: ToolCall[];
  /** Raw text of each tool call whose JSON could not be parsed. Non-empty means malformed output. */
  malformedToolCalls: string[];
  /** The server's `tool_calls` exactly as received (empty when it returned none). */
  rawToolCalls: OpenAIToolCall[];
  /** Why generation stopped (`stop`, `length`, `tool_calls`...), or null. */
  finishReason: string | null;
  /** Generated token ids (vLLM `return_token_ids`), or null. */
  tokenIds: number[] | null;
  /** Per generated token: its logprob, when `logprobs` was asked; else null. */
  logprobs: number[] | null;
  /** Per generated token: its text, or `token_id:<id>` under `return_tokens_as_token_ids`; else null. */
  tokens: string[] | null;
}

/** A backend's answer to one request. */
export interface ChatCompletion {
  /** At least one choice (an answer without any is an E_POLICY_OUTPUT error). */
  choices: ChatChoice[];
  /** Prompt token ids (vLLM `return_token_ids`), or null. */
  promptTokenIds: number[] | null;
  /** Prompt logprobs exactly as the server sent them (vLLM `prompt_logprobs`), or null. */
  promptLogprobs: Json | null;
  /** Token counts the server reported, or null. */
  usage: { promptTokens: number; completionTokens: number } | null;
}

/** A chat-level model backend (OpenAI-compatible server, local model...). */
export interface ChatBackend {
  /** The model name, for records. */
  readonly model: string;
  /**
   * Samples choices for `request`. Rejects with E_POLICY_HTTP / E_POLICY_TIMEOUT after retries,
   * E_POLICY_OUTPUT for an answer without choices, E_CANCELLED when cancelled.
   */
  complete(request: ChatRequest): Promise<ChatCompletion>;
}
