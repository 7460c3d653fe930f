/**
 * @module policy/chat-agent
 * An episode agent over any chat backend: keeps the conversation (system prompt, observations,
 * assistant turns with their tool calls, tool results), enforces a prompt-token budget, and
 * records what was sampled per turn so the episode can be stored and trained on.
 */
import { makeAction, withoutTagged } from "../env/index.js";
import type { Action, EnvMeta, Json, ToolCall, ToolResult, ToolSpec } from "../env/index.js";
import { SpadeError } from "../errors.js";
import type {
  ChatBackend,
  ChatChoice,
  ChatMessage,
  ChatToolCall,
  SamplingParams,
} from "./types.js";

/** The default system prompt: how answers and tools work in SPADE environments. */
export const DEFAULT_SYSTEM_PROMPT = [
  "You are playing an interactive environment over several turns. Each user message is what the environment shows you; reply with your next move.",
  "Think briefly, then act. When the environment asks for an answer, a guess or a move, write it as \\boxed{...}: only the last \\boxed{} in your reply counts.",
  "When tools are offered, call them to act on the environment; their results come back as tool messages. You may call several tools in one turn.",
  "Follow the format the environment asks for exactly.",
].join("\n");

/**
 * A turn whose tool calls are not valid JSON. It carries the raw answer so a runner that goes on
 * (the reference's way) can record it; the agent has already marked the turn masked.
 */
export class MalformedToolCallError extends SpadeError {
  /** The model's raw answer. */
  readonly text: string;

  constructor(text: string, bodies: readonly string[], nextStep: string) {
    super(
      "E_POLICY_TOOL_CALL",
      `the model wrote ${bodies.length} tool call(s) that are not valid JSON, e.g. ${(bodies[0] ?? "").slice(0, 200)}`,
      { nextStep },
    );
    this.text = text;
  }
}

/**
 * Records a turn's sample. When the model wrote tool calls that are not valid JSON, the turn is
 * marked masked (kept out of training) and `MalformedToolCallError` is thrown for the episode to
 * answer; `nextStep` is the error's advice.
 */
export function recordTurnSample(
  samplesByTurn: TurnSample[],
  sample: TurnSample,
  answer: { text: string; malformedToolCalls: readonly string[] },
  nextStep: string,
): void {
  samplesByTurn.push(sample);
  if (answer.malformedToolCalls.length === 0) return;
  sample.masked = true;
  throw new MalformedToolCallError(answer.text, answer.malformedToolCalls, nextStep);
}

/** True when `err` is a `MalformedToolCallError`. */
export function isMalformedToolCallError(err: unknown): err is MalformedToolCallError {
  return err instanceof MalformedToolCallError;
}

/** Default of `maxPromptTokens`. */
export const DEFAULT_MAX_PROMPT_TOKENS = 32_768;

/** Settings of a chat agent. */
export interface ChatAgentOptions {
  backend: ChatBackend;
  /** The system message; null sends none (as BFCL's FC mode and ACEBench's agents). Default `DEFAULT_SYSTEM_PROMPT`. */
  systemPrompt?: string | null;
  /**
   * Budget of prompt tokens: a turn whose prompt would need more ends the episode with
   * E_POLICY_CONTEXT. Counted from the server's `usage` when it reports it, else estimated.
   * Default 32,768.
   */
  maxPromptTokens?: number;
  /** Token estimate of a text. Default: one token per 4 characters, rounded up. */
  estimateTokens?: (text: string) => number;
  /** Sampling parameters for this agent's requests (over the backend's). */
  sampling?: SamplingParams;
  /** Cancels the agent's requests; they reject with E_CANCELLED. */
  signal?: AbortSignal;
}

/** What was sampled in one turn (token fields are null when the backend gave none). */
export interface TurnSample {
  turn: number;
  promptTokenIds: number[] | null;
  promptLogprobs: Json | null;
  tokenIds: number[] | null;
  logprobs: number[] | null;
  tokens: string[] | null;
  finishReason: string | null;
  usage: { promptTokens: number; completionTokens: number } | null;
  /** True when the turn is not to be trained (its tool call was malformed). */
  masked?: boolean;
}

/** The record of one agent's episode. */
export interface ChatTrace {
  model: string;
  messages: ChatMessage[];
  samplesByTurn: TurnSample[];
}

/** What the chat agent needs of a turn (a subset of the rollout's `AgentTurn`). */
export interface ChatAgentTurn {
  /**
   * The environment. One whose tools change during an episode (BFCL's miss_func adds functions
   * at a later turn) exposes `currentTools()`, and the model is offered those; else `meta.tools`.
   */
  env: { meta: EnvMeta; currentTools?: () => readonly ToolSpec[] };
  observation: string;
  toolResults: readonly ToolResult[];
  turn: number;
}

/** An episode agent that keeps its conversation. Create one per episode. */
export type ChatAgent = ((turn: ChatAgentTurn) => Promise<Action>) & {
  /** The conversation so far, OpenAI wire shape. */
  readonly messages: ChatMessage[];
  /** What was sampled, one entry per answered turn. */
  readonly samplesByTurn: TurnSample[];
  /** A snapshot of both, for storing with the episode. */
  trace(): ChatTrace;
};

/** Overhead tokens per message in the estimate (role markers, separators). */
const MESSAGE_OVERHEAD_TOKENS = 4;

/** The default estimate: one token per 4 characters. */
export function estimateTokensByChars(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Content of an assistant message whose tool calls were written as `<tool_call>` text. */
function withoutToolCallText(content: string): string {
  return withoutTagged(content, "<tool_call>", "</tool_call>").trim();
}

/**
 * The assistant message for a choice. Calls the server returned keep their argument strings
 * verbatim; calls parsed from `<tool_call>` text move into `tool_calls` (arguments re-serialized)
 * so that every server accepts the `tool` messages that answer them.
 */
function assistantMessage(choice: ChatChoice): ChatMessage {
  if (choice.rawToolCalls.length > 0) {
    const toolCalls: ChatToolCall[] = choice.rawToolCalls.map((raw, i) => ({
      // The same id rule as parseOpenAIToolCalls, so tool results find their call.
      id: typeof raw.id === "string" && raw.id !== "" ? raw.id : `call_${i}`,
      type: "function",
      function: { name: raw.function?.name ?? "", arguments: raw.function?.arguments ?? "" },
    }));
    return {
      role: "assistant",
      content: choice.content === "" ? null : choice.content,
      tool_calls: toolCalls,
    };
  }
  if (choice.toolCalls.length > 0) {
    const toolCalls = choice.toolCalls.map(
      (c: ToolCall): ChatToolCall => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      }),
    );
    const content = withoutToolCallText(choice.content);
    return { role: "assistant", content: content === "" ? null : content, tool_calls: toolCalls };
  }
  return { role: "assistant", content: choice.content };
}

/** Text of a message as the estimate counts it. */
function messageText(m: ChatMessage): string {
  const calls = m.role === "assistant" && m.tool_calls ? JSON.stringify(m.tool_calls) : "";
  return (m.content ?? "") + calls;
}

/**
 * The messages that answer the last assistant message `last`: one tool message per tool result,
 * a placeholder for each of its calls left unanswered (strict servers reject a conversation with
 * one), then the observation as a user message (also when empty, if no tool answered).
 */
export function observationMessages(
  last: ChatMessage | undefined,
  turn: ChatAgentTurn,
): ChatMessage[] {
  const messages: ChatMessage[] = turn.toolResults.map((r) => ({
    role: "tool",
    tool_call_id: r.id,
    content: r.content,
  }));
  const calls = last?.role === "assistant" ? (last.tool_calls ?? []) : [];
  for (const call of calls) {
    if (!turn.toolResults.some((r) => r.id === call.id))
      messages.push({
        role: "tool",
        tool_call_id: call.id,
        content: "no result was returned for this call",
      });
  }
  if (turn.observation !== "" || turn.toolResults.length === 0)
    messages.push({ role: "user", content: turn.observation });
  return messages;
}

/** Creates a chat agent for one episode. */
export function chatAgent(options: ChatAgentOptions): ChatAgent {
  const maxPromptTokens = options.maxPromptTokens ?? DEFAULT_MAX_PROMPT_TOKENS;
  const estimate = options.estimateTokens ?? estimateTokensByChars;
  const messages: ChatMessage[] = [];
  const samplesByTurn: TurnSample[] = [];
  // Tokens of messages[0, counted) as the server last reported them (prompt + answer).
  let known = { counted: 0, tokens: 0 };
  let toolsTokens = 0;
  let started = false;

  /** Prompt tokens of the conversation now: the server's count so far plus estimates of what came after. */
  const promptTokens = () => {
    const base = known.counted > 0 ? known.tokens : toolsTokens;
    return messages
      .slice(known.counted)
      .reduce((sum, m) => sum + MESSAGE_OVERHEAD_TOKENS + estimate(messageText(m)), base);
  };

  /** Appends tool results for the last assistant message's calls, then the observation. */
  const appendObservation = (turn: ChatAgentTurn) => {
    messages.push(...observationMessages(messages[messages.length - 1], turn));
  };

  const act = async (turn: ChatAgentTurn): Promise<Action> => {
    const tools = turn.env.currentTools ? [...turn.env.currentTools()] : turn.env.meta.tools;
    if (!started) {
      started = true;
      const system =
        options.systemPrompt === undefined ? DEFAULT_SYSTEM_PROMPT : options.systemPrompt;
      if (system !== null) messages.push({ role: "system", content: system });
    }
    // Before the server has counted a prompt, the tools' share is estimated (tools may grow).
    toolsTokens = tools.length > 0 ? estimate(JSON.stringify(tools)) : 0;
    appendObservation(turn);
    const needed = promptTokens();
    if (needed > maxPromptTokens) {
      throw new SpadeError(
        "E_POLICY_CONTEXT",
        `the conversation needs about ${needed} prompt tokens at turn ${turn.turn}, over the budget of ${maxPromptTokens}`,
        {
          nextStep: "raise maxPromptTokens, or give the environment fewer turns",
        },
      );
    }
    const completion = await options.backend.complete({
      messages: [...messages],
      tools,
      sampling: options.sampling,
      signal: options.signal,
    });
    const choice = completion.choices[0];
    if (!choice)
      throw new SpadeError("E_POLICY_OUTPUT", "the backend answered without choices", {
        nextStep: "check the backend",
      });
    messages.push(assistantMessage(choice));
    if (completion.usage)
      known = {
        counted: messages.length,
        tokens: completion.usage.promptTokens + completion.usage.completionTokens,
      };
    recordTurnSample(
      samplesByTurn,
      {
        turn: turn.turn,
        promptTokenIds: completion.promptTokenIds,
        promptLogprobs: completion.promptLogprobs,
        tokenIds: choice.tokenIds,
        logprobs: choice.logprobs,
        tokens: choice.tokens,
        finishReason: choice.finishReason,
        usage: completion.usage,
      },
      { text: choice.content, malformedToolCalls: choice.malformedToolCalls },
      "if this is frequent, check that the server's tool-call parser matches the model",
    );
    return makeAction(choice.content, choice.toolCalls);
  };

  return Object.assign(act, {
    messages,
    samplesByTurn,
    trace: (): ChatTrace => ({
      model: options.backend.model,
      messages: structuredClone(messages),
      samplesByTurn: structuredClone(samplesByTurn),
    }),
  });
}
