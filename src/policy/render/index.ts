/**
 * @module policy/render
 * Public face of token-level chat rendering: a model's own chat template and tokenizer read from
 * local files, the growing token conversation, and parsing sampled tokens back into actions.
 */
export { readModelFiles, templatesFrom } from "./files.js";
export type { ModelFiles } from "./files.js";
export { ChatRenderer } from "./renderer.js";
export type { RendererOptions, RenderOptions } from "./renderer.js";
export { TokenConversation } from "./conversation.js";
export type { SampledResponse, TokenConversationOptions, TokenTurn } from "./conversation.js";
export { parseAssistantTokens, rawArgumentsText } from "./parse.js";
export type { ParsedAssistant, RawToolCall } from "./parse.js";
