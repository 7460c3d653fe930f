/**
 * @module policy/testing/tools
 * TEST FIXTURES: a tool declaration and an assistant message with tool calls, in the chat form,
 * for agent, backend and renderer tests.
 */
import type { ToolSpec } from "../../env/index.js";
import type { ChatMessage } from "../types.js";

/** `lookup(key: object)`. */
export const LOOKUP_TOOL: ToolSpec = {
  type: "function",
  function: {
    name: "lookup",
    description: "look a key up",
    parameters: { type: "object", properties: { key: { type: "object" } } },
  },
};

/** An assistant message in the chat wire form whose `calls` are `[id, name, argumentsText]`. */
export function assistantCalls(
  content: string | null,
  ...calls: Array<[id: string, name: string, argumentsText: string]>
): ChatMessage {
  return {
    role: "assistant",
    content,
    tool_calls: calls.map(([id, name, text]) => ({
      id,
      type: "function",
      function: { name, arguments: text },
    })),
  };
}
