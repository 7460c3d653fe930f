/**
 * @module policy
 * Public face of the model backends: the chat backend contract, the OpenAI-compatible backend,
 * the chat agent, and the shared HTTP machinery (concurrency limiter, retry policy); token-level:
 * chat rendering from local tokenizer files, the Tinker-compatible sampler, the token agent; the
 * local GGUF backend (node-llama-cpp, imported only when a GGUF model is first used).
 */
export type * from "./types.js";
export { Limiter, mapLimit, sharedLimiter, type Release } from "./limiter.js";
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
  type RetryOptions,
  type RetrySettings,
  type RetryClock,
  type RetryRun,
  type RetryNotice,
  type SlowNotice,
  type AttemptFailure,
  type HeaderSource,
} from "./retry.js";
export { DEFAULT_MAX_ANSWER_BYTES } from "./http-body.js";
export { OutageBreaker, isOutageFailure, OUTAGE_CODES, type OutageOptions } from "./outage.js";
export {
  openAIChatBackend,
  resolveApiKey,
  DEFAULT_MAX_CONCURRENT_REQUESTS,
  type OpenAIChatOptions,
} from "./openai.js";
export { parseChatCompletion } from "./openai-answer.js";
export {
  chatAgent,
  estimateTokensByChars,
  isMalformedToolCallError,
  MalformedToolCallError,
  DEFAULT_SYSTEM_PROMPT,
  DEFAULT_MAX_PROMPT_TOKENS,
  type ChatAgent,
  type ChatAgentOptions,
  type ChatAgentTurn,
  type ChatTrace,
  type TurnSample,
} from "./chat-agent.js";
export type * from "./token-types.js";
export * from "./render/index.js";
export {
  TinkerHttp,
  FutureExpiredError,
  JSON_BODY,
  DEFAULT_TINKER_MAX_ANSWER_BYTES,
  submitSample,
  type TinkerHttpOptions,
  type BodyEncoding,
  type HttpAnswer,
  type RequestOptions,
} from "./tinker-http.js";
export {
  DEFAULT_CLIENT_CONFIG,
  JwtAuth,
  jwtClaims,
  parseClientConfig,
  TINKER_SDK_VERSION,
  type TinkerClientConfig,
} from "./tinker-handshake.js";
export * from "./tinker-wire.js";
export {
  tinkerSampler,
  parseSampleResponse,
  type TinkerSampler,
  type TinkerSamplerOptions,
} from "./tinker.js";
export {
  tokenAgent,
  DEFAULT_MAX_CONTEXT_TOKENS,
  DEFAULT_MAX_TOKENS_PER_TURN,
  REFERENCE_CONTEXT_RESERVE_TOKENS,
  type TokenAgent,
  type TokenAgentOptions,
  type TokenStream,
  type TokenTrace,
} from "./token-agent.js";
export {
  ggufChatBackend,
  GgufChat,
  answerBudget,
  toChatChoice,
  DEFAULT_GGUF_MAX_TOKENS,
  DEFAULT_GGUF_MAX_CONTEXT,
  type GgufChatBackend,
  type GgufChatOptions,
} from "./gguf.js";
export type { GgufToolChoice } from "./gguf-chat.js";
export {
  checkGgufFile,
  defaultThreads,
  hfFileUrl,
  isRemoteModel,
  NODE_LLAMA_CPP_VERSION,
  type GgufGpu,
  type RemoteModelOptions,
  type LlamaModuleLoader,
} from "./gguf-load.js";
