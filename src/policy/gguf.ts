/**
 * @module policy/gguf
 * The local GGUF chat backend: a model run in-process by llama.cpp through node-llama-cpp,
 * rendered with the model's own chat template, tools offered by function calling or forced by a
 * JSON-schema grammar. Nothing is imported or loaded until the first request (or `load()`).
 */
import { basename } from "node:path";
import type { ChatModelFunctions, GbnfJsonSchema, Llama, LlamaChat, LlamaChatResponse, LlamaGrammar, LlamaModel, Token } from "node-llama-cpp";
import { parseToolCallText } from "../env/index.js";
import type { JsonObject, ToolCall, ToolSpec } from "../env/index.js";
import { describeError, isSpadeError, SpadeError } from "../errors.js";
import { toFunctions, toLlamaHistory, toolCallSchema, type GgufToolChoice } from "./gguf-chat.js";
import { defaultThreads, loadLlamaModule, loadModel, resolveModelPath, type GgufGpu, type LlamaModuleLoader, type RemoteModelOptions } from "./gguf-load.js";
import { Limiter } from "./limiter.js";
import type { ChatBackend, ChatChoice, ChatCompletion, ChatRequest, SamplingParams } from "./types.js";

/** Settings of a local GGUF backend. */
export interface GgufChatOptions extends RemoteModelOptions {
  /** A `.gguf` file path, or a remote reference (`hf:user/repo/file.gguf`, an https URL) downloaded into `modelsDir`. */
  model: string;
  /** Model name for records. Default the file name. */
  name?: string;
  /** CPU threads for llama.cpp. Default cores - 1 (at least 1). */
  threads?: number;
  /** Context window in tokens. Default the model's training context, at most 8,192. */
  contextSize?: number;
  /** Requests decoded in parallel (one context sequence each; others wait). Default 1. */
  parallel?: number;
  /** llama.cpp build to use. Default `false` (CPU; the GPU binaries are not installed by default). */
  gpu?: GgufGpu;
  /** How tools are offered; see `GgufToolChoice`. Default `auto`. */
  toolChoice?: GgufToolChoice;
  /**
   * Default sampling; a request's own `sampling` overrides it. Unset temperature is 0 (greedy,
   * node-llama-cpp's default); unset `max_tokens` is `DEFAULT_GGUF_MAX_TOKENS`. No repeat penalty.
   */
  sampling?: SamplingParams;
  /** Show llama.cpp's info logs. Default false (errors only). */
  verbose?: boolean;
  /** How node-llama-cpp is imported. Default a dynamic import. */
  loadModule?: LlamaModuleLoader;
}

/** Tokens generated per choice when `max_tokens` is unset. */
export const DEFAULT_GGUF_MAX_TOKENS = 1024;

/** Largest default context window (a model's full training context may not fit in memory). */
export const DEFAULT_GGUF_MAX_CONTEXT = 8192;

/** A local GGUF backend: a `ChatBackend` that can be loaded eagerly and must be closed. */
export interface GgufChatBackend extends ChatBackend {
  /** Imports node-llama-cpp and loads the model now (the first request does it otherwise). */
  load(): Promise<void>;
  /** Frees the model and llama.cpp. Requests after it load the model again. */
  close(): Promise<void>;
  /** Tokenizes text with the model's tokenizer, special tokens recognised (for tests and budgets). */
  tokenize(text: string): Promise<number[]>;
  /** The context window in tokens, once loaded. */
  readonly contextSize: number | null;
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  idleChats: LlamaChat[];
  slots: Limiter;
}

/** node-llama-cpp's stop reasons in OpenAI's words. */
function finishReason(response: LlamaChatResponse<ChatModelFunctions | undefined>): string {
  switch (response.metadata.stopReason) {
    case "maxTokens":
      return "length";
    case "functionCalls":
      return "tool_calls";
    case "abort":
      return "abort";
    default:
      return "stop";
  }
}

/** E_POLICY_CONTEXT for a conversation that leaves no room for an answer in the context. */
function contextFull(promptTokens: number, contextSize: number): SpadeError {
  return new SpadeError("E_POLICY_CONTEXT", `the conversation (${promptTokens} tokens) leaves no room for an answer in the ${contextSize}-token context`, {
    nextStep: "raise contextSize, lower max_tokens, or give the environment fewer turns",
  });
}

/** A `required`-mode answer: one JSON object `{"name", "arguments"}`, parsed like `<tool_call>` text. */
function requiredChoiceCalls(text: string): { toolCalls: ToolCall[]; malformed: string[] } {
  const parsed = parseToolCallText(`<tool_call>${text}</tool_call>`);
  return { toolCalls: parsed.calls, malformed: parsed.malformed };
}

/** Creates a local GGUF backend. Cheap: the model loads on first use. */
export function ggufChatBackend(options: GgufChatOptions): GgufChatBackend {
  const threads = options.threads ?? defaultThreads();
  const parallel = options.parallel ?? 1;
  const toolChoice = options.toolChoice ?? "auto";
  if (!Number.isInteger(threads) || threads < 1) throw new SpadeError("E_CONFIG", `threads must be an integer >= 1 (got ${threads})`);
  if (!Number.isInteger(parallel) || parallel < 1) throw new SpadeError("E_CONFIG", `parallel must be an integer >= 1 (got ${parallel})`);
  let loading: Promise<Loaded> | null = null;
  let contextSize: number | null = null;
  const grammars = new Map<string, Promise<LlamaGrammar>>();

  const doLoad = async (): Promise<Loaded> => {
    const module = await loadLlamaModule(options.loadModule);
    const path = await resolveModelPath(module, options.model, options);
    const { llama, model } = await loadModel(module, path, { gpu: options.gpu ?? false, threads, verbose: options.verbose ?? false });
    try {
      const size = options.contextSize ?? { max: Math.min(model.trainContextSize, DEFAULT_GGUF_MAX_CONTEXT) };
      const context = await model.createContext({ contextSize: size, sequences: parallel, threads });
      contextSize = context.contextSize;
      const idleChats = Array.from({ length: parallel }, () => new module.LlamaChat({ contextSequence: context.getSequence() }));
      return { llama, model, idleChats, slots: new Limiter(parallel) };
    } catch (err) {
      await llama.dispose();
      throw new SpadeError("E_MODEL_LOAD", `could not create a ${options.contextSize ?? "default"}-token context for ${path} (${describeError(err)})`, {
        nextStep: "lower contextSize or parallel",
        cause: err,
      });
    }
  };

  const load = (): Promise<Loaded> => {
    loading ??= doLoad().catch((err: unknown) => {
      loading = null;
      throw err;
    });
    return loading;
  };

  /** One grammar per tool set, built once. */
  const grammarFor = (loaded: Loaded, tools: readonly ToolSpec[]): Promise<LlamaGrammar> => {
    const key = JSON.stringify(tools);
    let grammar = grammars.get(key);
    if (!grammar) {
      grammar = loaded.llama.createGrammarForJsonSchema<GbnfJsonSchema>(toolCallSchema(tools));
      grammars.set(key, grammar);
    }
    return grammar;
  };

  const sampleOne = async (loaded: Loaded, chat: LlamaChat, request: ChatRequest, sampling: SamplingParams, index: number): Promise<{ choice: ChatChoice; promptTokens: number }> => {
    const tools = request.tools ?? [];
    const required = toolChoice === "required" && tools.length > 0;
    const history = toLlamaHistory(request.messages, tools, toolChoice);
    const functions = !required && tools.length > 0 ? toFunctions(tools) : undefined;
    const tokenIds: Token[] = [];
    const stop = sampling.stop === undefined ? undefined : Array.isArray(sampling.stop) ? sampling.stop : [sampling.stop];
    const common = {
      temperature: sampling.temperature,
      topP: sampling.top_p,
      topK: sampling.top_k,
      seed: sampling.seed === undefined ? undefined : sampling.seed + index,
      repeatPenalty: false as const,
      customStopTriggers: stop,
      signal: request.signal,
      onResponseChunk: (chunk: { tokens: Token[] }) => void tokenIds.push(...chunk.tokens),
    };
    const promptTokens = chat.chatWrapper.generateContextState({ chatHistory: history, availableFunctions: functions }).contextText.tokenize(loaded.model.tokenizer).length;
    // node-llama-cpp would silently cut the conversation to fit; a turn that does not fit fails instead.
    const room = (contextSize ?? 0) - promptTokens - 1;
    if (room < 1) throw contextFull(promptTokens, contextSize ?? 0);
    // The answer stops where the context ends ("length"), as servers do, instead of shifting the context.
    const maxTokens = Math.min(sampling.max_tokens ?? DEFAULT_GGUF_MAX_TOKENS, room);
    const response = required
      ? await chat.generateResponse(history, { ...common, maxTokens, grammar: await grammarFor(loaded, tools) })
      : await chat.generateResponse<ChatModelFunctions>(history, { ...common, maxTokens, functions });
    const calls = required
      ? requiredChoiceCalls(response.response)
      : { toolCalls: (response.functionCalls ?? []).map((fc, i) => ({ id: `call_${i}`, name: fc.functionName, arguments: (fc.params ?? {}) as JsonObject })), malformed: [] };
    const choice: ChatChoice = {
      content: required ? "" : response.response,
      toolCalls: calls.toolCalls,
      malformedToolCalls: calls.malformed,
      rawToolCalls: [],
      finishReason: required && calls.toolCalls.length > 0 ? "tool_calls" : finishReason(response),
      // Function-call tokens are not reported by node-llama-cpp: no ids rather than partial ones.
      tokenIds: (response.functionCalls?.length ?? 0) > 0 ? null : tokenIds.map(Number),
      logprobs: null,
      tokens: null,
    };
    return { choice, promptTokens };
  };

  const complete = async (request: ChatRequest): Promise<ChatCompletion> => {
    const loaded = await load();
    const sampling = { ...options.sampling, ...request.sampling };
    const release = await loaded.slots.acquire(request.signal);
    const chat = loaded.idleChats.pop();
    if (!chat) throw new SpadeError("E_CONFIG", "internal: no idle GGUF sequence for a granted slot");
    try {
      const choices: ChatChoice[] = [];
      let promptTokens = 0;
      for (let i = 0; i < (sampling.n ?? 1); i++) {
        const sampled = await sampleOne(loaded, chat, request, sampling, i);
        choices.push(sampled.choice);
        promptTokens = sampled.promptTokens;
      }
      const completionTokens = choices.reduce((sum, c) => sum + (c.tokenIds?.length ?? 0), 0);
      return { choices, promptTokenIds: null, promptLogprobs: null, usage: { promptTokens, completionTokens } };
    } catch (err) {
      if (isSpadeError(err)) throw err;
      if (request.signal?.aborted) throw new SpadeError("E_CANCELLED", "the GGUF request was cancelled", { cause: err });
      throw new SpadeError("E_POLICY_OUTPUT", `llama.cpp failed to generate (${describeError(err)})`, { nextStep: "check the model and the context size", cause: err });
    } finally {
      loaded.idleChats.push(chat);
      release();
    }
  };

  return {
    model: options.name ?? basename(options.model),
    get contextSize() {
      return contextSize;
    },
    complete,
    load: async () => void (await load()),
    tokenize: async (text) => (await load()).model.tokenize(text, true).map(Number),
    close: async () => {
      const current = loading;
      loading = null;
      grammars.clear();
      contextSize = null;
      if (current) await (await current.catch(() => null))?.llama.dispose();
    },
  };
}
