/**
 * @module test/fakes/chat-completion
 * TEST DOUBLE: a backend's answer holding one plain text choice, for scripted chat backends.
 */
import type { ChatChoice, ChatCompletion } from "../../src/policy/index.js";

/** A choice that says `content` and stops: no tool calls, no token data. */
export function textChoice(content: string): ChatChoice {
  return {
    content,
    toolCalls: [],
    malformedToolCalls: [],
    rawToolCalls: [],
    finishReason: "stop",
    tokenIds: null,
    logprobs: null,
    tokens: null,
  };
}

/** A completion of one `textChoice(content)`, without prompt data or usage. */
export function textCompletion(content: string): ChatCompletion {
  return {
    choices: [textChoice(content)],
    promptTokenIds: null,
    promptLogprobs: null,
    usage: null,
  };
}
