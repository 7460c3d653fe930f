/**
 * @module policy/gguf
 * The local GGUF chat backend: a model run in-process by llama.cpp through node-llama-cpp,
 * rendered with the model's own chat template, tools offered by function calling or forced by a
 * JSON-schema grammar. Nothing is imported or loaded until the first request (or `load()`).
 */
import { basename } from "node:path";
import type {
  ChatModelFunctions,
  GbnfJsonSchema,
  Llama,
  LlamaChat,
  LlamaChatResponse,
  LlamaGrammar,
  LlamaModel,
  Token,
} from "node-llama-cpp";
import { parseToolCallText } from "../env/index.js";
import type { JsonObject, ToolCall, ToolSpec } from "../env/index.js";
import { describeError, isSpadeError, SpadeError } from "../errors.js";
import { toFunctions, toLlamaHistory, toolCallSchema, type GgufToolChoice } from "./gguf-chat.js";
import {
  defaultThreads,
  loadLlamaModule,
  loadModel,
  resolveModelPath,
  type GgufGpu,
  type LlamaModuleLoader,
  type RemoteModelOptions,
} from "./gguf-load.js";
import { Limiter } from "./limiter.js";
import type {
  ChatBackend,
  ChatChoice,
  ChatCompletion,
  ChatRequest,
  SamplingParams,
} from "./types.js";

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
  /** Memory the model may use, in bytes; a larger file fails E_MODEL_TOO_LARGE before loading. Default: no check. */
  memoryBytes?: number;
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

/** What a load gives: llama.cpp, the model, one chat per context sequence and the slots guarding them. */
interface Loaded {
  llama: Llama;
  model: LlamaModel;
  contextSize: number;
  idleChats: LlamaChat[];
  slots: Limiter;
}

/**
 * Tokens an answer may have: the request's `max_tokens` (default `DEFAULT_GGUF_MAX_TOKENS`) cut to
 * the room the prompt leaves in the context, so an answer stops where the context ends ("length")
 * as servers do, instead of node-llama-cpp silently cutting the conversation. E_POLICY_CONTEXT
 * when the prompt leaves no room at all.
 */
export function answerBudget(
  promptTokens: number,
  contextSize: number,
  maxTokens: number | undefined,
): number {
  const room = contextSize - promptTokens - 1;
  if (room < 1) {
    throw new SpadeError(
      "E_POLICY_CONTEXT",
      `the conversation (${promptTokens} tokens) leaves no room for an answer in the ${contextSize}-token context`,
      {
        nextStep: "raise contextSize, lower max_tokens, or give the environment fewer turns",
      },
    );
  }
  return Math.min(maxTokens ?? DEFAULT_GGUF_MAX_TOKENS, room);
}

/** node-llama-cpp's stop reasons in OpenAI's words. */
export function finishReason(stopReason: LlamaChatResponse["metadata"]["stopReason"]): string {
  switch (stopReason) {
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

/** What node-llama-cpp answered, as the backend maps it. */
export interface LlamaAnswer {
  /** The answer's text (for `required` tool choice: the grammar-constrained JSON of one call). */
  text: string;
  /** Function calls node-llama-cpp parsed (auto tool choice). */
  functionCalls: ReadonlyArray<{ functionName: string; params?: unknown }>;
  stopReason: LlamaChatResponse["metadata"]["stopReason"];
  /** The tokens streamed while generating. */
  tokenIds: readonly number[];
}

/**
 * One node-llama-cpp answer as an OpenAI-style choice. `required`: the text is one JSON object
 * `{"name", "arguments"}`, parsed like `<tool_call>` text. Function-call tokens are not reported
 * by node-llama-cpp, so an answer with calls has no token ids rather than partial ones.
 */
export function toChatChoice(answer: LlamaAnswer, required: boolean): ChatChoice {
  if (required) {
    const parsed = parseToolCallText(`<tool_call>${answer.text}</tool_call>`);
    return {
      content: "",
      toolCalls: parsed.calls,
      malformedToolCalls: parsed.malformed,
      rawToolCalls: [],
      finishReason: parsed.calls.length > 0 ? "tool_calls" : finishReason(answer.stopReason),
      tokenIds: [...answer.tokenIds],
      logprobs: null,
      tokens: null,
    };
  }
  const toolCalls: ToolCall[] = answer.functionCalls.map((fc, i) => ({
    id: `call_${i}`,
    name: fc.functionName,
    arguments: (fc.params ?? {}) as JsonObject,
  }));
  return {
    content: answer.text,
    toolCalls,
    malformedToolCalls: [],
    rawToolCalls: [],
    finishReason: finishReason(answer.stopReason),
    tokenIds: toolCalls.length > 0 ? null : [...answer.tokenIds],
    logprobs: null,
    tokens: null,
  };
}

/** A local GGUF model as a chat backend. Cheap to construct: the model loads on first use. */
export class GgufChat implements GgufChatBackend {
  readonly model: string;
  private readonly threads: number;
  private readonly parallel: number;
  private readonly toolChoice: GgufToolChoice;
  private loading: Promise<Loaded> | null = null;
  private loadedContextSize: number | null = null;
  /** One grammar per tool set, built once. */
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(private readonly options: GgufChatOptions) {
    this.threads = options.threads ?? defaultThreads();
    this.parallel = options.parallel ?? 1;
    this.toolChoice = options.toolChoice ?? "auto";
    if (!Number.isInteger(this.threads) || this.threads < 1)
      throw new SpadeError("E_CONFIG", `threads must be an integer >= 1 (got ${this.threads})`);
    if (!Number.isInteger(this.parallel) || this.parallel < 1)
      throw new SpadeError("E_CONFIG", `parallel must be an integer >= 1 (got ${this.parallel})`);
    this.model = options.name ?? basename(options.model);
  }

  get contextSize(): number | null {
    return this.loadedContextSize;
  }

  async load(): Promise<void> {
    await this.loaded();
  }

  async tokenize(text: string): Promise<number[]> {
    return (await this.loaded()).model.tokenize(text, true).map(Number);
  }

  async close(): Promise<void> {
    const current = this.loading;
    this.loading = null;
    this.grammars.clear();
    this.loadedContextSize = null;
    if (current) await (await current.catch(() => null))?.llama.dispose();
  }

  async complete(request: ChatRequest): Promise<ChatCompletion> {
    const loaded = await this.loaded();
    const sampling = { ...this.options.sampling, ...request.sampling };
    const release = await loaded.slots.acquire(request.signal);
    const chat = loaded.idleChats.pop();
    if (!chat)
      throw new SpadeError("E_CONFIG", "internal: no idle GGUF sequence for a granted slot");
    try {
      const choices: ChatChoice[] = [];
      let promptTokens = 0;
      for (let i = 0; i < (sampling.n ?? 1); i++) {
        const sampled = await this.sampleOne(loaded, chat, request, sampling, i);
        choices.push(sampled.choice);
        promptTokens = sampled.promptTokens;
      }
      const completionTokens = choices.reduce((sum, c) => sum + (c.tokenIds?.length ?? 0), 0);
      return {
        choices,
        promptTokenIds: null,
        promptLogprobs: null,
        usage: { promptTokens, completionTokens },
      };
    } catch (err) {
      if (isSpadeError(err)) throw err;
      if (request.signal?.aborted)
        throw new SpadeError("E_CANCELLED", "the GGUF request was cancelled", { cause: err });
      throw new SpadeError(
        "E_POLICY_OUTPUT",
        `llama.cpp failed to generate (${describeError(err)})`,
        { nextStep: "check the model and the context size", cause: err },
      );
    } finally {
      loaded.idleChats.push(chat);
      release();
    }
  }

  /** The loaded model, loading it once; a failed load is retried by the next call. */
  private loaded(): Promise<Loaded> {
    this.loading ??= this.doLoad().catch((err: unknown) => {
      this.loading = null;
      throw err;
    });
    return this.loading;
  }

  private async doLoad(): Promise<Loaded> {
    const { options, threads, parallel } = this;
    const module = await loadLlamaModule(options.loadModule);
    const path = await resolveModelPath(module, options.model, options);
    const { llama, model } = await loadModel(module, path, {
      gpu: options.gpu ?? false,
      threads,
      verbose: options.verbose ?? false,
      memoryBytes: options.memoryBytes,
    });
    try {
      const size = options.contextSize ?? {
        max: Math.min(model.trainContextSize, DEFAULT_GGUF_MAX_CONTEXT),
      };
      const context = await model.createContext({
        contextSize: size,
        sequences: parallel,
        threads,
      });
      this.loadedContextSize = context.contextSize;
      const idleChats = Array.from(
        { length: parallel },
        () => new module.LlamaChat({ contextSequence: context.getSequence() }),
      );
      return {
        llama,
        model,
        contextSize: context.contextSize,
        idleChats,
        slots: new Limiter(parallel),
      };
    } catch (err) {
      await llama.dispose();
      throw new SpadeError(
        "E_MODEL_LOAD",
        `could not create a ${options.contextSize ?? "default"}-token context for ${path} (${describeError(err)})`,
        {
          nextStep: "lower contextSize or parallel",
          cause: err,
        },
      );
    }
  }

  private grammarFor(loaded: Loaded, tools: readonly ToolSpec[]): Promise<LlamaGrammar> {
    const key = JSON.stringify(tools);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      grammar = loaded.llama.createGrammarForJsonSchema<GbnfJsonSchema>(toolCallSchema(tools));
      this.grammars.set(key, grammar);
    }
    return grammar;
  }

  /** One choice: budget the answer against the prompt, generate, map the answer. */
  private async sampleOne(
    loaded: Loaded,
    chat: LlamaChat,
    request: ChatRequest,
    sampling: SamplingParams,
    index: number,
  ): Promise<{ choice: ChatChoice; promptTokens: number }> {
    const tools = request.tools ?? [];
    const required = this.toolChoice === "required" && tools.length > 0;
    const history = toLlamaHistory(request.messages, tools, this.toolChoice);
    const functions = !required && tools.length > 0 ? toFunctions(tools) : undefined;
    const prompt = chat.chatWrapper
      .generateContextState({ chatHistory: history, availableFunctions: functions })
      .contextText.tokenize(loaded.model.tokenizer);
    const promptTokens = prompt.length;
    await keepOnlyExtendedCache(chat.sequence, prompt);
    const maxTokens = answerBudget(promptTokens, loaded.contextSize, sampling.max_tokens);
    const tokenIds: Token[] = [];
    const stop =
      sampling.stop === undefined
        ? undefined
        : Array.isArray(sampling.stop)
          ? sampling.stop
          : [sampling.stop];
    const common = {
      maxTokens,
      temperature: sampling.temperature,
      topP: sampling.top_p,
      topK: sampling.top_k,
      seed: sampling.seed === undefined ? undefined : sampling.seed + index,
      repeatPenalty: false as const,
      customStopTriggers: stop,
      signal: request.signal,
      onResponseChunk: (chunk: { tokens: Token[] }) => void tokenIds.push(...chunk.tokens),
    };
    const response = required
      ? await chat.generateResponse(history, {
          ...common,
          grammar: await this.grammarFor(loaded, tools),
        })
      : await chat.generateResponse<ChatModelFunctions>(history, { ...common, functions });
    const answer: LlamaAnswer = {
      text: response.response,
      functionCalls: response.functionCalls ?? [],
      stopReason: response.metadata.stopReason,
      tokenIds: tokenIds.map(Number),
    };
    return { choice: toChatChoice(answer, required), promptTokens };
  }
}

/**
 * Makes an answer depend on its prompt and seed only, never on the requests before it. The
 * sequence's cache is kept where the prompt extends it (the next turn of the same conversation);
 * anything else clears it. node-llama-cpp would erase the cache's tail instead, but after such an
 * erase the answer to a prompt that the cache holds whole (a shorter conversation after a longer
 * one that starts with it) is sampled from the longer conversation's state: a resumed run, whose
 * requests reach the sequence in another order, then differed from the uninterrupted one.
 */
async function keepOnlyExtendedCache(sequence: LlamaChat["sequence"], prompt: Token[]) {
  const cached = sequence.nextTokenIndex;
  if (cached === 0) return;
  const extension =
    cached < prompt.length && sequence.compareContextTokens(prompt).firstDifferentIndex === cached;
  if (!extension) await sequence.clearHistory();
}

/** Creates a local GGUF backend. Cheap: the model loads on first use. */
export function ggufChatBackend(options: GgufChatOptions): GgufChatBackend {
  return new GgufChat(options);
}
