import { describe, expect, it } from "vitest";
import { loadProgram } from "../sandbox/index.js";
import { checkEnv } from "./check.js";
import { metaProblems } from "./shape.js";
import { normalizeMetaTools, normalizeToolSchema } from "./tool-schema.js";

const params = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };
const chat = {
  type: "function",
  function: { name: "get_order", description: "Finds an order.", parameters: params },
};

describe("normalizeToolSchema", () => {
  const table: Array<[string, unknown, unknown]> = [
    ["the chat form stays as it is", chat, chat],
    [
      "the flat form is wrapped",
      { name: "get_order", description: "Finds an order.", parameters: params },
      chat,
    ],
    [
      'the flat form with type "function" is wrapped',
      { type: "function", name: "get_order", description: "Finds an order.", parameters: params },
      chat,
    ],
    [
      "a missing description becomes empty, missing parameters no arguments (tool_use_base_env.py:get_tools)",
      { name: "ping" },
      {
        type: "function",
        function: { name: "ping", description: "", parameters: { type: "object", properties: {} } },
      },
    ],
    [
      "the same defaults inside the chat form",
      { type: "function", function: { name: "ping" } },
      {
        type: "function",
        function: { name: "ping", description: "", parameters: { type: "object", properties: {} } },
      },
    ],
    [
      "extra keys of the chat form are dropped",
      {
        type: "function",
        function: { name: "ping", description: "d", parameters: params, strict: true },
      },
      { type: "function", function: { name: "ping", description: "d", parameters: params } },
    ],
  ];
  it.each(table)("%s", (_name, input, expected) => {
    expect(normalizeToolSchema(input)).toEqual(expected);
    expect(
      metaProblems({
        name: "t",
        skill: "Tool Selection",
        description: "d",
        maxTurns: 3,
        tools: [normalizeToolSchema(input)],
      }),
    ).toEqual([]);
  });

  it("leaves what is no tool schema for the contract check to report", () => {
    for (const bad of [
      null,
      3,
      "get_order",
      [chat],
      { description: "no name" },
      { type: "retrieval", name: "x" },
      { function: "get_order" },
    ]) {
      expect(normalizeToolSchema(bad)).toBe(bad);
    }
    expect(normalizeMetaTools({ tools: "none" })).toEqual({ tools: "none" });
    expect(normalizeMetaTools({ name: "n", tools: [{ name: "a" }] })).toEqual({
      name: "n",
      tools: [
        {
          type: "function",
          function: { name: "a", description: "", parameters: { type: "object", properties: {} } },
        },
      ],
    });
  });
});

/** A tool-use program whose meta.tools mixes the flat form and the chat form. */
const FLAT_TOOLS_PROGRAM = String.raw`
class Environment {
  static meta = {
    name: "order-lookup",
    skill: "Tool Selection",
    description: "Look an order's status up with the tool, then report it.",
    maxTurns: 4,
    tools: [
      { name: "get_status", description: "Status of the order.", parameters: { type: "object", properties: {} } },
      { type: "function", function: { name: "cancel", description: "Cancels the order.", parameters: { type: "object", properties: {} } } },
    ],
  };
  reset(seed) {
    this.status = ["shipped", "packed", "billed"][seed % 3];
    this.looked = false;
    return { observation: "What is the status of my order? Answer \\boxed{status}.", info: {} };
  }
  step(action) {
    if (action.toolCalls.length > 0) {
      if (action.toolCalls.some((c) => c.name === "get_status")) this.looked = true;
      const toolResults = action.toolCalls.map((c) => ({ id: c.id, content: c.name === "get_status" ? this.status : "not allowed" }));
      return { observation: "", reward: 0, terminated: false, truncated: false, info: {}, toolResults };
    }
    const won = this.looked && action.answer === this.status;
    return { observation: won ? "Right." : "Wrong.", reward: won ? 1 : 0, terminated: true, truncated: false, info: {} };
  }
  hint() { return "Ask the status tool first."; }
  solve() { return this.looked ? { text: "\\boxed{" + this.status + "}" } : { toolCalls: [{ name: "get_status", arguments: {} }] }; }
}
`;

describe("flat tool schemas in a program's meta", () => {
  it("are read in the chat form, so the design passes the validator instead of failing E_META", async () => {
    const env = await loadProgram(FLAT_TOOLS_PROGRAM, { backend: "quickjs" });
    expect(env.meta.tools.map((t) => [t.type, t.function.name, t.function.description])).toEqual([
      ["function", "get_status", "Status of the order."],
      ["function", "cancel", "Cancels the order."],
    ]);
    await env.close();
    const report = await checkEnv(() => loadProgram(FLAT_TOOLS_PROGRAM, { backend: "quickjs" }));
    expect(report.failures).toEqual([]);
  });
});
