import { describe, expect, it } from "vitest";
import { parseAssistantTokens, rawArgumentsText } from "./parse.js";

/** TEST DOUBLE: a tokenizer whose ids are code points; 0 is the stop token. */
const ids = (text: string) => Array.from(text, (ch) => ch.codePointAt(0) ?? 0);
const decode = (tokenIds: readonly number[]) => String.fromCodePoint(...tokenIds);

describe("rawArgumentsText", () => {
  it("returns the arguments value exactly as written (floats, spacing and nesting kept)", () => {
    expect(
      rawArgumentsText('{"name": "f", "arguments": {"x": 1.0, "y": [2.50, {"z": "a}\\"b"}]}}'),
    ).toBe('{"x": 1.0, "y": [2.50, {"z": "a}\\"b"}]}');
    expect(rawArgumentsText('{"arguments":{"a":1e3},"name":"f"}')).toBe('{"a":1e3}');
    expect(rawArgumentsText('{"name": "f", "parameters": [1, 2] }')).toBe("[1, 2]");
    expect(rawArgumentsText('{"name": "f", "arguments": 7.0 }')).toBe("7.0");
    expect(rawArgumentsText('{"name": "f"}')).toBeNull();
  });
});

describe("parseAssistantTokens", () => {
  it("parses text, the final answer and tool calls, keeping argument text verbatim", () => {
    const text =
      'Let me look.\n<tool_call>\n{"name": "lookup", "arguments": {"key": {"path": ["a", {"b": 1.0}]}, "n": 2.50}}\n</tool_call>\n<tool_call>\n{"name": "done"}\n</tool_call>';
    const parsed = parseAssistantTokens([...ids(text), 0], decode, [0]);
    expect(parsed.text).toBe(text);
    expect(parsed.action).toEqual({
      text,
      answer: null,
      toolCalls: [
        { id: "call_0", name: "lookup", arguments: { key: { path: ["a", { b: 1 }] }, n: 2.5 } },
        { id: "call_1", name: "done", arguments: {} },
      ],
    });
    expect(parsed.rawToolCalls).toEqual([
      {
        id: "call_0",
        name: "lookup",
        argumentsText: '{"key": {"path": ["a", {"b": 1.0}]}, "n": 2.50}',
      },
      { id: "call_1", name: "done", argumentsText: "{}" },
    ]);
    expect(parsed.malformedToolCalls).toEqual([]);
    expect(parsed.message).toEqual({
      role: "assistant",
      content: "Let me look.",
      tool_calls: [
        {
          id: "call_0",
          type: "function",
          function: {
            name: "lookup",
            arguments: '{"key": {"path": ["a", {"b": 1.0}]}, "n": 2.50}',
          },
        },
        { id: "call_1", type: "function", function: { name: "done", arguments: "{}" } },
      ],
    });
  });

  it("reports malformed calls next to valid ones and unwraps string-encoded arguments", () => {
    const text =
      '<tool_call>{"name": "f", "arguments": {oops}</tool_call><tool_call>{"name": "g", "arguments": "{\\"a\\": 1.0}"}</tool_call>';
    const parsed = parseAssistantTokens(ids(text), decode, [0]);
    expect(parsed.malformedToolCalls).toEqual(['{"name": "f", "arguments": {oops}']);
    expect(parsed.action.toolCalls).toEqual([{ id: "call_0", name: "g", arguments: { a: 1 } }]);
    expect(parsed.rawToolCalls).toEqual([
      { id: "call_0", name: "g", argumentsText: '"{\\"a\\": 1.0}"' },
    ]);
    expect(parsed.message).toMatchObject({
      tool_calls: [{ function: { name: "g", arguments: '{"a": 1.0}' } }],
    });
  });

  it("keeps plain answers as they are and strips only trailing stop tokens", () => {
    const parsed = parseAssistantTokens([...ids(" So \\boxed{4}. "), 0, 0], decode, [0]);
    expect(parsed.text).toBe(" So \\boxed{4}. ");
    expect(parsed.action.answer).toBe("4");
    expect(parsed.message).toEqual({ role: "assistant", content: " So \\boxed{4}. " });
  });
});
