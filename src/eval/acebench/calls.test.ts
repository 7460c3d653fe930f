import { describe, expect, it } from "vitest";
import {
  callFromToolCall,
  decodeCalls,
  isExecutionMessageMultiStep,
  isExecutionMessageMultiTurn,
  renderCalls,
  toolArguments,
} from "./calls.js";
import { NestedCall } from "./world.js";
import { timed } from "../../../test/assert.js";

describe("decodeCalls (upstream's decode_function_list)", () => {
  it("reads one call or a list, keyword arguments only, ints kept apart from floats", () => {
    expect(decodeCalls("[delete_message(message_id=3)]")).toEqual([
      { name: "delete_message", kwargs: [["message_id", 3n]] },
    ]);
    expect(decodeCalls("f(a=1.0), g(b='x')")).toEqual([
      { name: "f", kwargs: [["a", 1]] },
      { name: "g", kwargs: [["b", "x"]] },
    ]);
    // Positional arguments are dropped, as upstream's resolver only reads keywords.
    expect(decodeCalls("[send_message('Eve', 'Frank', message='hi')]")).toEqual([
      { name: "send_message", kwargs: [["message", "hi"]] },
    ]);
  });

  it("fails where Python's parser fails: invalid quoting, a trailing space, a leading indent", () => {
    expect(decodeCalls("[f(merchant_name='Domino's')]")).toBeNull();
    expect(decodeCalls("[f(a=1)] ")).toBeNull();
    expect(decodeCalls("[ f(a=1)]")).toBeNull();
    expect(decodeCalls("[]")).toBeNull();
    expect(decodeCalls("")).toBeNull();
    expect(decodeCalls("Sure! [f(a=1)]")).toBeNull();
  });

  it("drops one leading space, strips quotes and brackets at both ends, and finds no call in a lone name", () => {
    expect(decodeCalls(" [f(a=1)]")).toEqual([{ name: "f", kwargs: [["a", 1n]] }]);
    expect(decodeCalls("['f(a=1)']")).toEqual([{ name: "f", kwargs: [["a", 1n]] }]);
    expect(decodeCalls("[done]")).toEqual([]);
    expect(decodeCalls("[42]")).toEqual([]);
  });

  it("takes a top-level dict argument for a nested call, as upstream's formatter does", () => {
    expect(decodeCalls("[f(user={'dict': {'cash_balance': 5}})]")).toEqual([
      { name: "f", kwargs: [["user", new NestedCall("dict", [["cash_balance", 5n]])]] },
    ]);
    expect(decodeCalls("[f(user={'cash_balance': 5})]")).toBeNull();
    expect(decodeCalls("[f(user={})]")).toBeNull();
    expect(decodeCalls("[f(items=[{'product': 'x'}])]")).toEqual([
      { name: "f", kwargs: [["items", [new Map([["product", "x"]])]]] },
    ]);
    expect(decodeCalls("[f(s={1, 2})]")).toBeNull();
  });
});

describe("routing tests of upstream's agents", () => {
  it("multi-turn: a one-line [...] that decodes; multi-step: a message that starts with [...]", () => {
    expect(isExecutionMessageMultiTurn("[turn_on_wifi()]")).toBe(true);
    expect(isExecutionMessageMultiTurn("Which message should I delete? [1] or [2]")).toBe(false);
    expect(isExecutionMessageMultiTurn("[turn_on_wifi(\n)]")).toBe(false);
    expect(isExecutionMessageMultiStep("[turn_on_wifi()] and more")).toBe(true);
    expect(isExecutionMessageMultiStep("I will call [turn_on_wifi()]")).toBe(false);
  });
});

describe("rendering and tool calls", () => {
  it("renders calls with Python reprs, as milestones write them", () => {
    const calls = decodeCalls(
      "[add_food_delivery_order(username='Eve', merchant_name=\"Domino's\", items=[{'product': 'X', 'quantity': 1}]), get_latest_message_id()]",
    );
    expect(renderCalls(calls ?? [])).toBe(
      "[add_food_delivery_order(username='Eve', merchant_name=\"Domino's\", items=[{'product': 'X', 'quantity': 1}]), get_latest_message_id()]",
    );
  });

  it("turns tool-call JSON into Python values and back", () => {
    const call = callFromToolCall({
      id: "c1",
      name: "f",
      arguments: { n: 2, x: 2.5, items: [{ product: "P", quantity: 1 }], flag: true, none: null },
    });
    expect(call.kwargs).toEqual([
      ["n", 2n],
      ["x", 2.5],
      [
        "items",
        [
          new Map<string, unknown>([
            ["product", "P"],
            ["quantity", 1n],
          ]),
        ],
      ],
      ["flag", true],
      ["none", null],
    ]);
    expect(renderCalls([call])).toBe(
      "[f(n=2, x=2.5, items=[{'product': 'P', 'quantity': 1}], flag=True, none=None)]",
    );
    expect(toolArguments(call)).toEqual({
      n: 2,
      x: 2.5,
      items: [{ product: "P", quantity: 1 }],
      flag: true,
      none: null,
    });
  });
});

describe("isExecutionMessageMultiTurn on adversarial messages", () => {
  it.each([
    ["a [ b\n c ]", false],
    ["] [", false],
    ["[[f(a=1)]", true],
  ])("%j -> %j", (text, expected) => {
    expect(isExecutionMessageMultiTurn(text)).toBe(expected);
  });

  // A generous bound: the regex replaced took about 45 s here (quadratic in the brackets).
  it("reads 256K unclosed brackets in linear time", () => {
    const checked = timed(() => isExecutionMessageMultiTurn("[".repeat(262_144)));
    expect(checked.value).toBe(false);
    expect(checked.ms).toBeLessThan(2000);
  });
});
