import { describe, expect, it } from "vitest";
import {
  actionFromOracle,
  extractAnswer,
  makeAction,
  parseOpenAIToolCalls,
  parseToolCallText,
  taggedBodies,
  withoutTagged,
} from "./action.js";
import { episodeReturn, isSuccess } from "./returns.js";
import { timed } from "../../test/assert.js";

describe("extractAnswer", () => {
  it.each([
    ["The answer is \\boxed{42}.", "42"],
    ["\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"],
    ["first \\boxed{1} then \\boxed{ {a}{b} }", "{a}{b}"],
    ["unclosed \\boxed{3} and \\boxed{4", "3"],
    ["<answer> Paris </answer>", "Paris"],
    ["<answer>a</answer> <answer>b</answer>", "b"],
    ["\\boxed{7} <answer>8</answer>", "7"],
    ["no answer here", null],
    ["\\boxed{}", ""],
  ])("%j -> %j", (text, expected) => {
    expect(extractAnswer(text)).toBe(expected);
  });

  it("scans each unclosed \\boxed{ once (a quarter megabyte of them took 30 s before)", () => {
    const boxed = timed(() => extractAnswer(`\\boxed{1}${"\\boxed{".repeat(37_449)}`));
    expect(boxed.value).toBe("1");
    expect(boxed.ms).toBeLessThan(2000);
  });
});

describe("tagged blocks", () => {
  it.each([
    ["a<t>1</t>b<t>2</t>c", ["1", "2"], "abc"],
    ["<t>1<t>2</t>3</t>", ["1<t>2"], "3</t>"],
    ["<t>open only", [], "<t>open only"],
    ["</t><t></t><t>x", [""], "</t><t>x"],
    ["none", [], "none"],
  ])("%j", (text, bodies, rest) => {
    expect(taggedBodies(text, "<t>", "</t>")).toEqual(bodies);
    expect(withoutTagged(text, "<t>", "</t>")).toBe(rest);
  });

  // The regexes these replace took about 20 s (quadratic: each unclosed tag rescanned to the end).
  it("reads a megabyte of unclosed tags in linear time", () => {
    const answers = timed(() => extractAnswer(`<answer>1</answer>${"<answer>".repeat(131_072)}`));
    expect(answers.value).toBe("1");
    expect(answers.ms).toBeLessThan(2000);
    const calls = `<tool_call>{"name": "f"}</tool_call>${"<tool_call>".repeat(95_325)}`;
    const parsed = timed(() => parseToolCallText(calls));
    expect(parsed.value).toEqual({
      calls: [{ id: "call_0", name: "f", arguments: {} }],
      malformed: [],
    });
    expect(parsed.ms).toBeLessThan(2000);
  });
});

describe("tool call parsing", () => {
  it("keeps nested arguments from <tool_call> text", () => {
    const text =
      'Let me order.\n<tool_call>\n{"name": "create_order", "arguments": {"customer": {"id": 7, "address": {"city": "Oslo"}}, "items": [{"sku": "a", "qty": 2.5}]}}\n</tool_call>';
    expect(parseToolCallText(text)).toEqual({
      calls: [
        {
          id: "call_0",
          name: "create_order",
          arguments: {
            customer: { id: 7, address: { city: "Oslo" } },
            items: [{ sku: "a", qty: 2.5 }],
          },
        },
      ],
      malformed: [],
    });
  });

  it("reports malformed blocks and accepts string arguments", () => {
    const text =
      '<tool_call>{"name": "a", "arguments": "{\\"x\\": [1, {\\"y\\": null}]}"}</tool_call><tool_call>{"name": "b", "arguments": {</tool_call><tool_call>[1]</tool_call>';
    expect(parseToolCallText(text)).toEqual({
      calls: [{ id: "call_0", name: "a", arguments: { x: [1, { y: null }] } }],
      malformed: ['{"name": "b", "arguments": {', "[1]"],
    });
  });

  it("parses OpenAI tool_calls with ids and rejects bad argument JSON", () => {
    const parsed = parseOpenAIToolCalls([
      { id: "c1", type: "function", function: { name: "f", arguments: '{"a": {"b": [1, 2]}}' } },
      { id: "c2", type: "function", function: { name: "g", arguments: "" } },
      { id: "c3", type: "function", function: { name: "h", arguments: "{oops" } },
    ]);
    expect(parsed.calls).toEqual([
      { id: "c1", name: "f", arguments: { a: { b: [1, 2] } } },
      { id: "c2", name: "g", arguments: {} },
    ]);
    expect(parsed.malformed).toHaveLength(1);
  });

  it("makeAction prefers structured calls and extracts the answer", () => {
    const action = makeAction('<tool_call>{"name": "t", "arguments": {}}</tool_call> \\boxed{5}');
    expect(action).toEqual({
      text: action.text,
      answer: "5",
      toolCalls: [{ id: "call_0", name: "t", arguments: {} }],
    });
    expect(makeAction("x", [{ id: "z", name: "u", arguments: { k: 1 } }]).toolCalls).toEqual([
      { id: "z", name: "u", arguments: { k: 1 } },
    ]);
  });

  it("fills oracle actions", () => {
    expect(actionFromOracle({ toolCalls: [{ name: "f", arguments: { a: 1 } }] })).toEqual({
      text: "",
      answer: null,
      toolCalls: [{ id: "oracle_0", name: "f", arguments: { a: 1 } }],
    });
    expect(actionFromOracle({ text: "\\boxed{x}" })).toEqual({
      text: "\\boxed{x}",
      answer: "x",
      toolCalls: [],
    });
  });
});

describe("episode return", () => {
  it("sums and clamps to [-1, 1]; success at 0.99", () => {
    expect(episodeReturn([0.5, 0.7])).toBe(1);
    expect(episodeReturn([-0.6, -0.6])).toBe(-1);
    expect(episodeReturn([0.25, 0.5])).toBe(0.75);
    expect(episodeReturn([])).toBe(0);
    expect(isSuccess(0.99)).toBe(true);
    expect(isSuccess(0.9899)).toBe(false);
  });
});
