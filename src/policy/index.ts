/**
 * @module policy
 * Public face of the model backends: the chat backend contract, the OpenAI-compatible backend,
 * the chat agent, and the shared HTTP machinery (concurrency limiter, retry policy); token-level:
 * chat rendering from local tokenizer files, the Tinker-compatible sampler, the token agent; the
 * local GGUF backend (node-llama-cpp, imported only when a GGUF model is first used).
 */
export type * from "./types.js";
export { Limiter, mapLimit, sharedLimiter } from "./limiter.js";
export type { Release } from "./limiter.js";
export {
  withRetries,
  retryAfterMs,
  backoffMs,
  isRetryableStatus,
  formatRetryNotice,
  formatSlowNotice,
  bareMessage,
  DEFAULT_RETRY,
  JITTER,
  REAL_CLOCK,
} from "./retry.js";
export type {
  RetryOptions,
  RetrySettings,
  RetryClock,
  RetryRun,
  RetryNotice,
  SlowNotice,
  AttemptFailure,
  HeaderSource,
} from "./retry.js";
export { DEFAULT_MAX_ANSWER_BYTES } from "./http-body.js";
export { OutageBreaker, isOutageFailure, OUTAGE_CODES } from "./outage.js";
export type { OutageOptions } from "./outage.js";
export {
  openAIChatBackend,
  parseChatCompletion,
  resolveApiKey,
  DEFAULT_MAX_CONCURRENT_REQUESTS,
} from "./openai.js";
export type { OpenAIChatOptions } from "./openai.js";
export {
  chatAgent,
  estimateTokensByChars,
  isMalformedToolCallError,
  MalformedToolCallError,
  DEFAULT_SYSTEM_PROMPT,
  DEFAULT_MAX_PROMPT_TOKENS,
} from "./chat-agent.js";
export type {
  ChatAgent,
  ChatAgentOptions,
  ChatAgentTurn,
  ChatTrace,
  TurnSample,
} from "./chat-agent.js";
export type * from "./token-types.js";
export * from "./render/index.js";
export {
  TinkerHttp,
  FutureExpiredError,
  JSON_BODY,
  DEFAULT_TINKER_MAX_ANSWER_BYTES,
  submitSample,
} from "./tinker-http.js";
export type { TinkerHttpOptions, BodyEncoding, HttpAnswer, RequestOptions } from "./tinker-http.js";
export {
  DEFAULT_CLIENT_CONFIG,
  JwtAuth,
  jwtClaims,
  parseClientConfig,
  TINKER_SDK_VERSION,
} from "./tinker-handshake.js";
export type { TinkerClientConfig } from "./tinker-handshake.js";
export * from "./tinker-wire.js";
export { tinkerSampler, parseSampleResponse } from "./tinker.js";
export type { TinkerSampler, TinkerSamplerOptions } from "./tinker.js";
export {
  tokenAgent,
  DEFAULT_MAX_CONTEXT_TOKENS,
  DEFAULT_MAX_TOKENS_PER_TURN,
  REFERENCE_CONTEXT_RESERVE_TOKENS,
} from "./token-agent.js";
export type { TokenAgent, TokenAgentOptions, TokenStream, TokenTrace } from "./token-agent.js";
export {
  ggufChatBackend,
  GgufChat,
  answerBudget,
  toChatChoice,
  DEFAULT_GGUF_MAX_TOKENS,
  DEFAULT_GGUF_MAX_CONTEXT,
} from "./gguf.js";
export type { GgufChatBackend, GgufChatOptions } from "./gguf.js";
export type { GgufToolChoice } from "./gguf-chat.js";
export {
  checkGgufFile,
  defaultThreads,
  hfFileUrl,
  isRemoteModel,
  NODE_LLAMA_CPP_VERSION,
} from "./gguf-load.js";
export type { GgufGpu, RemoteModelOptions, LlamaModuleLoader } from "./gguf-load.js";
