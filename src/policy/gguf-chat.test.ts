import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../env/index.js";
import { toFunctions, toGrammarSchema, toLlamaHistory, toolCallSchema } from "./gguf-chat.js";
import { assistantCalls } from "./testing/tools.js";
import type { ChatMessage } from "./types.js";

const lamp: ToolSpec = {
  type: "function",
  function: {
    name: "set_lamp",
    description: "Switch a lamp.",
    parameters: { type: "object", properties: { on: { type: "boolean" } }, required: ["on"] },
  },
};

const conversation: ChatMessage[] = [
  { role: "system", content: "Play." },
  { role: "user", content: "Dark room." },
  assistantCalls("Light.", ["c1", "set_lamp", '{"on": true, "x": 1.50}']),
  { role: "tool", tool_call_id: "c1", content: "lamp on" },
  { role: "user", content: "Now?" },
];

describe("toLlamaHistory", () => {
  it("auto: folds each answered call and its result into the model turn, then opens an empty model turn", () => {
    expect(toLlamaHistory(conversation, [lamp], "auto")).toEqual([
      { type: "system", text: "Play." },
      { type: "user", text: "Dark room." },
      {
        type: "model",
        response: [
          "Light.",
          {
            type: "functionCall",
            name: "set_lamp",
            description: "Switch a lamp.",
            params: { on: true, x: 1.5 },
            result: "lamp on",
          },
        ],
      },
      { type: "user", text: "Now?" },
      { type: "model", response: [] },
    ]);
  });

  it("required: keeps the call as the JSON the model wrote (arguments verbatim), results as user text, tools in the system message", () => {
    const history = toLlamaHistory(conversation, [lamp], "required");
    expect(history[0]).toEqual({
      type: "system",
      text: 'Play.\n\nTools you can call. Answer with exactly one JSON object {"name": TOOL, "arguments": {...}}:\n- set_lamp: Switch a lamp. Arguments schema: {"type":"object","properties":{"on":{"type":"boolean"}},"required":["on"]}',
    });
    expect(history.slice(1)).toEqual([
      { type: "user", text: "Dark room." },
      {
        type: "model",
        response: ["Light.", '{"name": "set_lamp", "arguments": {"on": true, "x": 1.50}}'],
      },
      { type: "user", text: "Result of set_lamp (c1): lamp on" },
      { type: "user", text: "Now?" },
      { type: "model", response: [] },
    ]);
  });

  it("required without a system message puts the tool instructions first; without tools it is auto", () => {
    const history = toLlamaHistory([{ role: "user", content: "Hi" }], [lamp], "required");
    expect(history.map((h) => h.type)).toEqual(["system", "user", "model"]);
    expect(toLlamaHistory([{ role: "user", content: "Hi" }], [], "required")).toEqual([
      { type: "user", text: "Hi" },
      { type: "model", response: [] },
    ]);
  });
});

describe("toGrammarSchema", () => {
  it("keeps what a grammar can enforce and drops numeric bounds", () => {
    expect(
      toGrammarSchema({
        type: "object",
        properties: {
          room: { type: "string", enum: ["hall", "den"] },
          level: { type: "integer", minimum: 0, maximum: 9 },
          tags: { type: "array", items: { type: "string", maxLength: 4 }, minItems: 1 },
          note: { type: ["string", "null"] },
          when: { type: "string", format: "date" },
          either: { anyOf: [{ type: "boolean" }, { const: 3 }] },
        },
        required: ["room"],
      }),
    ).toEqual({
      type: "object",
      additionalProperties: false,
      properties: {
        room: { enum: ["hall", "den"] },
        level: { type: "integer" },
        tags: { type: "array", items: { type: "string", maxLength: 4 }, minItems: 1 },
        note: { type: ["string", "null"] },
        when: { type: "string", format: "date" },
        either: { oneOf: [{ type: "boolean" }, { const: 3 }] },
      },
    });
  });

  it("reads an untyped or property-less object as any JSON", () => {
    const any = {
      oneOf: [
        { type: ["string", "number", "boolean", "null"] },
        { type: "array" },
        { type: "object", additionalProperties: true },
      ],
    };
    expect(toGrammarSchema({})).toEqual(any);
    expect(toGrammarSchema({ type: "object" })).toEqual({
      type: "object",
      additionalProperties: true,
    });
    expect(toGrammarSchema({ properties: { a: { type: "number" } } })).toEqual({
      type: "object",
      properties: { a: { type: "number" } },
      additionalProperties: false,
    });
  });

  it("builds the required-call schema and the auto-mode functions", () => {
    expect(toolCallSchema([lamp])).toEqual({
      oneOf: [
        {
          type: "object",
          properties: {
            name: { const: "set_lamp" },
            arguments: {
              type: "object",
              properties: { on: { type: "boolean" } },
              additionalProperties: false,
            },
          },
        },
      ],
    });
    expect(toFunctions([lamp])).toEqual({
      set_lamp: {
        description: "Switch a lamp.",
        params: {
          type: "object",
          properties: { on: { type: "boolean" } },
          additionalProperties: false,
        },
      },
    });
  });
});
