/**
 * @module eval/tau2/token-handler
 * A shim handler that answers chat requests with a token-level sampler (a Tinker-compatible
 * server): the conversation is rendered with the model's own chat template, sampled as tokens,
 * and parsed back into text and tool calls, so tau2's harness can play a model that is only
 * reachable through Tinker sampling.
 */
import type { JsonObject, ToolSpec } from "../../env/index.js";
import {
  parseAssistantTokens,
  type ChatMessage,
  type ChatRenderer,
  type TokenSampler,
} from "../../policy/index.js";
import type { ShimHandler, ShimMessage, ShimRequest } from "./shim.js";

/** What the handler samples with. */
export interface TokenHandlerOptions {
  sampler: TokenSampler;
  renderer: ChatRenderer;
  /** Most tokens per answer when the request names none. */
  defaultMaxTokens: number;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Messages as the renderer takes them (tau2 may send null content on tool-call turns). */
function chatMessages(request: ShimRequest): ChatMessage[] {
  return request.messages.map((m): ChatMessage => {
    if (m.role === "assistant") {
      const calls = (m.tool_calls ?? []).map((c) => ({
        id: c.id,
        type: "function" as const,
        function: { name: c.function.name, arguments: c.function.arguments },
      }));
      return calls.length > 0
        ? { role: "assistant", content: m.content ?? null, tool_calls: calls }
        : { role: "assistant", content: m.content ?? "" };
    }
    if (m.role === "tool")
      return { role: "tool", content: m.content ?? "", tool_call_id: m.tool_call_id ?? "" };
    return { role: m.role, content: m.content ?? "" };
  });
}

/**
 * The handler: request sampling parameters (temperature, top_p, top_k, max_tokens) are passed on
 * to the sampler; the answer's tool calls come from the model's `<tool_call>` blocks.
 */
export function tokenSamplerHandler(options: TokenHandlerOptions): ShimHandler {
  return async (request): Promise<ShimMessage> => {
    const body: JsonObject = request.body;
    const tools =
      Array.isArray(body.tools) && body.tools.length > 0
        ? (body.tools as unknown as ToolSpec[])
        : undefined;
    const promptTokenIds = options.renderer.renderTokens(chatMessages(request), {
      tools,
      addGenerationPrompt: true,
    });
    const temperature = num(body.temperature);
    const topP = num(body.top_p);
    const topK = num(body.top_k);
    const [sample] = await options.sampler.sample({
      promptTokenIds,
      maxTokens: num(body.max_tokens) ?? options.defaultMaxTokens,
      stopTokenIds: options.renderer.stopIds,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(topP !== undefined ? { topP } : {}),
      ...(topK !== undefined && topK > 0 ? { topK } : {}),
    });
    const parsed = parseAssistantTokens(
      sample!.tokenIds,
      (ids) => options.renderer.decode(ids),
      options.renderer.stopIds,
    );
    const message = parsed.message as Extract<ChatMessage, { role: "assistant" }>;
    return {
      message: {
        role: "assistant",
        content: message.content,
        ...(message.tool_calls && message.tool_calls.length > 0
          ? { tool_calls: message.tool_calls }
          : {}),
      },
    };
  };
}
