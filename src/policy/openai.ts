/**
 * @module policy/openai
 * The OpenAI-compatible chat backend (vLLM, SGLang, llama.cpp server, Ollama, hosted APIs)
 * through the official `openai` package. The SDK's own retries are off: retries, timeouts and
 * the shared concurrency limit live in `retry.ts` and `limiter.ts`, so they behave the same for
 * every HTTP client of SPADE. The SDK is given a `fetch` that reads each answer in full with a
 * size cap (`http-body.ts`), so a connection closed mid-answer is a retried connection error and
 * a body that is not JSON is E_POLICY_OUTPUT, both before the SDK parses anything; the parsed
 * answer is read into a `ChatCompletion` by `openai-answer.ts`.
 */
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "openai";
import type { JsonObject } from "../env/index.js";
import { SpadeError } from "../errors.js";
import {
  answerNotJson,
  BodyInterruptedError,
  DEFAULT_MAX_ANSWER_BYTES,
  isJsonType,
  readBodyCapped,
} from "./http-body.js";
import { type Limiter, sharedLimiter } from "./limiter.js";
import { parseChatCompletion } from "./openai-answer.js";
import {
  DEFAULT_RETRY,
  failureOf,
  isRetryableStatus,
  retryAfterMs,
  withRetries,
  type AttemptFailure,
  type RetrySettings,
} from "./retry.js";
import type { ChatBackend, ChatRequest, SamplingParams } from "./types.js";

/** Settings of an OpenAI-compatible backend. */
export interface OpenAIChatOptions extends RetrySettings {
  /** Server base URL, usually ending in `/v1` (e.g. `http://127.0.0.1:8000/v1`). */
  baseURL: string;
  /** Model name as the server knows it. */
  model: string;
  /**
   * Name of the environment variable that holds the API key (never a file). Unset: the key
   * `EMPTY` is sent, which local servers (vLLM, llama.cpp) accept.
   */
  apiKeyEnv?: string;
  /** Where `apiKeyEnv` is looked up. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Default sampling parameters; a request's own `sampling` overrides them. */
  sampling?: SamplingParams;
  /** Ask for per-token logprobs of the answer. Default false. */
  logprobs?: boolean;
  /** Alternatives per token with `logprobs`. Default: not sent. */
  topLogprobs?: number;
  /** vLLM: return prompt and answer token ids (`return_token_ids`). Default false. */
  returnTokenIds?: boolean;
  /** vLLM: logprob tokens as `token_id:<id>` (`return_tokens_as_token_ids`). Default false. */
  returnTokensAsTokenIds?: boolean;
  /** vLLM: logprobs of the prompt tokens with this many alternatives (`prompt_logprobs`). Default: not sent. */
  promptLogprobs?: number;
  /** Further body fields, sent as they are (server-specific extensions). */
  extraBody?: JsonObject;
  /** Largest answer body accepted, in bytes; a larger one fails with E_POLICY_OUTPUT. Default 4 MiB. */
  maxAnswerBytes?: number;
  /**
   * Most requests in flight to this base URL, shared by every backend of the process that
   * uses the same base URL. Default 64. Ignored when `limiter` is given.
   */
  maxConcurrentRequests?: number;
  /** A limiter to use instead of the shared one. */
  limiter?: Limiter;
  /** `fetch` to use. Default the global one. */
  fetch?: typeof fetch;
}

/** Default of `maxConcurrentRequests`. */
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 64;

/** The API key named by `apiKeyEnv`; E_CONFIG when the variable is unset or empty. */
export function resolveApiKey(
  apiKeyEnv: string | undefined,
  environment: Readonly<Record<string, string | undefined>>,
): string {
  if (apiKeyEnv === undefined) return "EMPTY";
  const key = environment[apiKeyEnv];
  if (key === undefined || key.trim() === "") {
    throw new SpadeError(
      "E_CONFIG",
      `the environment variable ${apiKeyEnv} (named by apiKeyEnv / --api-key-env) is not set`,
      {
        nextStep: `export ${apiKeyEnv}=<your key>, or leave --api-key-env out for a local server that needs no key`,
      },
    );
  }
  return key;
}

/** What the user can do about an HTTP status. */
function statusAdvice(status: number, options: OpenAIChatOptions): string {
  if (status === 401 || status === 403)
    return options.apiKeyEnv
      ? `check the key in ${options.apiKeyEnv}`
      : "the server wants a key: name its variable with apiKeyEnv / --api-key-env";
  if (status === 404)
    return `check the base URL (${options.baseURL}; it usually ends in /v1) and the model name (${options.model})`;
  if (status === 429 || status >= 500)
    return "the server is overloaded or failing: lower the concurrency (--concurrency), or check its log";
  return "the server rejected the request: read its message above";
}

/** Judges one failed request (the SDK's error classes) for the retry loop. */
function classify(
  err: unknown,
  timedOut: boolean,
  nowMs: number,
  options: OpenAIChatOptions,
  timeoutMs: number,
): AttemptFailure {
  if (timedOut || err instanceof APIConnectionTimeoutError || err instanceof APIUserAbortError) {
    return {
      retryable: true,
      retryAfterMs: null,
      code: "E_POLICY_TIMEOUT",
      message: `${options.baseURL} gave no answer within ${timeoutMs} ms`,
      nextStep:
        "raise the request timeout (--request-timeout), or check that the server is not stuck",
      cause: err,
    };
  }
  if (err instanceof APIConnectionError && err.cause instanceof SpadeError) {
    // Raised by `readAnswer` (too large, not JSON): the same request would get the same answer.
    return failureOf(err.cause, false);
  }
  if (err instanceof APIConnectionError && err.cause instanceof BodyInterruptedError) {
    return {
      retryable: true,
      retryAfterMs: null,
      code: "E_POLICY_HTTP",
      message: err.cause.message,
      nextStep: "check the server's log and any proxy between it and SPADE",
      cause: err.cause,
    };
  }
  if (err instanceof APIConnectionError) {
    const detail = err.cause instanceof Error ? err.cause.message : err.message;
    return {
      retryable: true,
      retryAfterMs: null,
      code: "E_POLICY_HTTP",
      message: `could not reach ${options.baseURL}: ${detail}`,
      nextStep: "check that the server is running and the base URL is right",
      cause: err,
    };
  }
  if (err instanceof APIError && typeof err.status === "number") {
    return {
      retryable: isRetryableStatus(err.status),
      retryAfterMs: retryAfterMs(err.headers, nowMs),
      code: "E_POLICY_HTTP",
      message: `${options.baseURL} answered HTTP ${err.status}: ${err.message}`,
      nextStep: statusAdvice(err.status, options),
      cause: err,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    retryable: false,
    retryAfterMs: null,
    code: "E_POLICY_HTTP",
    message: `request to ${options.baseURL} failed: ${message}`,
    cause: err,
  };
}

/**
 * A `fetch` that reads the whole answer inside the request (capped at `maxBytes`) and checks that
 * a successful JSON answer parses, so the SDK only ever sees complete, well-formed bodies.
 */
function readAnswer(base: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const body = await readBodyCapped(response, url, maxBytes);
    if (response.ok && isJsonType(response.headers.get("content-type"))) {
      const text = new TextDecoder().decode(body);
      try {
        JSON.parse(text);
      } catch (cause) {
        throw answerNotJson(url, response.status, text, cause);
      }
    }
    const noBody = response.status === 204 || response.status === 205 || response.status === 304;
    return new Response(noBody ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The request body: model, messages, tools, sampling, logprob and vLLM extras. */
function requestBody(options: OpenAIChatOptions, request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: options.model,
    messages: request.messages,
    ...options.sampling,
    ...request.sampling,
  };
  if (request.tools && request.tools.length > 0) body.tools = request.tools;
  if (options.logprobs) body.logprobs = true;
  if (options.topLogprobs !== undefined) body.top_logprobs = options.topLogprobs;
  if (options.returnTokenIds) body.return_token_ids = true;
  if (options.returnTokensAsTokenIds) body.return_tokens_as_token_ids = true;
  if (options.promptLogprobs !== undefined) body.prompt_logprobs = options.promptLogprobs;
  return { ...body, ...options.extraBody };
}

/**
 * Creates an OpenAI-compatible chat backend. Throws E_CONFIG at once when `apiKeyEnv` names an
 * unset variable.
 */
export function openAIChatBackend(options: OpenAIChatOptions): ChatBackend {
  const apiKey = resolveApiKey(options.apiKeyEnv, options.environment ?? process.env);
  const timeoutMs = options.retry?.timeoutMs ?? DEFAULT_RETRY.timeoutMs;
  const client = new OpenAI({
    apiKey,
    baseURL: options.baseURL,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: timeoutMs,
    fetch: readAnswer(options.fetch ?? fetch, options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES),
  });
  const limiter =
    options.limiter ??
    sharedLimiter(
      options.baseURL,
      options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS,
    );
  return {
    model: options.model,
    async complete(request) {
      const body = requestBody(
        options,
        request,
      ) as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
      const response = await withRetries(
        (signal) =>
          client.chat.completions.create(body, { signal, maxRetries: 0, timeout: timeoutMs }),
        {
          options: options.retry,
          clock: options.clock,
          limiter,
          signal: request.signal,
          onRetry: options.onRetry,
          onSlow: options.onSlow,
          label: `${options.baseURL.replace(/\/+$/, "")}/chat/completions`,
          classify: (err, timedOut, nowMs) => classify(err, timedOut, nowMs, options, timeoutMs),
        },
      );
      return parseChatCompletion(response);
    },
  };
}
