/**
 * @module policy/testing/tools
 * TEST FIXTURE: a tool declaration in the chat form, for agent and renderer tests.
 */
import type { ToolSpec } from "../../env/index.js";

/** `lookup(key: object)`. */
export const LOOKUP_TOOL: ToolSpec = {
  type: "function",
  function: {
    name: "lookup",
    description: "look a key up",
    parameters: { type: "object", properties: { key: { type: "object" } } },
  },
};
