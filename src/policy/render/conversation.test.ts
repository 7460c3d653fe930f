import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../../test/cleanup.js";
import {
  asciiIds,
  THINK_DROPPING_TEMPLATE,
  TINY,
  writeTinyModel,
} from "../../../test/fakes/tiny-model.js";
import { ChatRenderer } from "./renderer.js";
import { TokenConversation } from "./conversation.js";
import { LOOKUP_TOOL } from "../testing/tools.js";

const tempDir = tempDirsAfterEach("spade-tiny-");

function renderer(template?: string): ChatRenderer {
  return ChatRenderer.fromDir(writeTinyModel(tempDir(), template));
}

/** What the fake model "samples": the canonical ids of `text`, then the end-of-turn token. */
function sampled(r: ChatRenderer, text: string) {
  const tokenIds = [...r.encode(text), TINY.imEnd];
  return { tokenIds, logprobs: tokenIds.map((_, i) => -(i + 1) / 16), stopReason: "stop" };
}

const CALL_TEXT =
  'Looking.\n<tool_call>\n{"name": "lookup", "arguments": {"key": {"path": ["x", {"deep": [1, 2]}]}}}\n</tool_call>';

/**
 * The ids appended after a sampled answer for a user turn holding `content` (the tiny template
 * renders tool results as user turns): the newline closing the answer, the user turn, and the
 * opened assistant turn.
 */
const userTurnAfterAnswer = (content: string) => [
  10,
  TINY.imStart,
  ...asciiIds(`user\n${content}`),
  TINY.imEnd,
  10,
  TINY.imStart,
  ...asciiIds("assistant\n"),
];

describe("TokenConversation", () => {
  it("grows into exactly the one-shot render of the whole tool-use conversation", () => {
    const r = renderer();
    const conv = new TokenConversation(r, { tools: [LOOKUP_TOOL] });
    const first = conv.addMessages([
      { role: "system", content: "Play." },
      { role: "user", content: "Find the number." },
    ]);
    expect(first).toEqual(
      r.renderTokens(conv.messages, { tools: [LOOKUP_TOOL], addGenerationPrompt: true }),
    );
    expect(first.slice(-11)).toEqual([TINY.imStart, ...asciiIds("assistant\n")]);

    const call = conv.addSample(sampled(r, CALL_TEXT));
    expect(call.action.toolCalls).toEqual([
      { id: "call_0", name: "lookup", arguments: { key: { path: ["x", { deep: [1, 2] }] } } },
    ]);
    const toolTokens = conv.addMessages([
      { role: "tool", tool_call_id: "call_0", content: "value 42" },
    ]);
    // The newline after <|im_end|> belongs to the assistant turn's closing, and must be kept.
    expect(toolTokens).toEqual(userTurnAfterAnswer("<tool_response>\nvalue 42\n</tool_response>"));

    conv.addSample(sampled(r, "It is \\boxed{42}."));
    conv.addMessages([{ role: "user", content: "Correct!" }]);
    expect(conv.tokenIds).toEqual(conv.oneShotTokenIds());
    expect(conv.prefixStable).toBe(true);
    expect(conv.turns.map((t) => t.prefixStable)).toEqual([true, true]);
  });

  it("records prompt length, response ids, logprobs and a loss mask of 1 exactly on sampled ids", () => {
    const r = renderer();
    const conv = new TokenConversation(r);
    const prompt = conv.addMessages([{ role: "user", content: "Hi" }]);
    const sample = sampled(r, "Yo");
    conv.addSample(sample);
    const next = conv.addMessages([{ role: "user", content: "Go" }]);
    expect(conv.turns[0]).toMatchObject({
      observationTokenIds: prompt,
      promptLength: prompt.length,
      responseTokenIds: [89, 111, TINY.imEnd],
      logprobs: [-1 / 16, -2 / 16, -3 / 16],
      stopReason: "stop",
      closingTokenIds: [],
      text: "Yo",
    });
    expect(conv.lossMask).toEqual([...prompt.map(() => 0), 1, 1, 1, ...next.map(() => 0)]);
    expect(conv.logprobs).toEqual([
      ...prompt.map(() => 0),
      -1 / 16,
      -2 / 16,
      -3 / 16,
      ...next.map(() => 0),
    ]);
  });

  it("shows the naive difference pitfall: rendering with and without the new message loses the newline", () => {
    const r = renderer();
    const conv = new TokenConversation(r);
    conv.addMessages([{ role: "user", content: "Hi" }]);
    conv.addSample(sampled(r, "Yo"));
    const before = [...conv.messages];
    const after = [...before, { role: "user" as const, content: "Go" }];
    const naive = r
      .renderTokens(after, { addGenerationPrompt: true })
      .slice(r.renderTokens(before, { addGenerationPrompt: false }).length);
    const appended = conv.addMessages([{ role: "user", content: "Go" }]);
    expect(appended[0]).toBe(10);
    expect(naive).toEqual(appended.slice(1));
    const naiveStream = [
      ...conv.tokenIds.slice(0, conv.tokenIds.length - appended.length),
      ...naive,
    ];
    expect(naiveStream).not.toEqual(conv.oneShotTokenIds());
    expect(conv.tokenIds).toEqual(conv.oneShotTokenIds());
  });

  it("keeps sampled ids as sampled although re-encoding the text would merge them", () => {
    const r = renderer();
    const conv = new TokenConversation(r);
    conv.addMessages([{ role: "user", content: "Say ab" }]);
    expect(r.encode("ab")).toEqual([TINY.ab]);
    conv.addSample({
      tokenIds: [97, 98, TINY.imEnd],
      logprobs: [-0.5, -0.25, -0.125],
      stopReason: "stop",
    });
    conv.addMessages([{ role: "user", content: "Again" }]);
    const at = conv.turns[0]!.promptLength;
    expect(conv.tokenIds.slice(at, at + 4)).toEqual([97, 98, TINY.imEnd, 10]);
    const oneShot = conv.oneShotTokenIds();
    expect(oneShot.slice(at, at + 3)).toEqual([TINY.ab, TINY.imEnd, 10]);
    expect(conv.tokenIds.length).toBe(oneShot.length + 1);
    expect(conv.tokenIds.slice(at + 2)).toEqual(oneShot.slice(at + 1));
  });

  it("closes a response cut by max_tokens with an end-of-turn token that is not trained on", () => {
    const r = renderer();
    const conv = new TokenConversation(r);
    conv.addMessages([{ role: "user", content: "Hi" }]);
    conv.addSample({ tokenIds: [89, 111], logprobs: [-1, -2], stopReason: "length" });
    expect(conv.turns[0]!.closingTokenIds).toEqual([TINY.imEnd]);
    expect(conv.lossMask.slice(-3)).toEqual([1, 1, 0]);
    conv.addMessages([{ role: "user", content: "Go" }]);
    expect(conv.tokenIds).toEqual(conv.oneShotTokenIds());
  });

  it("ends the stream after the last end-of-turn token when the conversation ends with the assistant", () => {
    const r = renderer();
    const conv = new TokenConversation(r);
    conv.addMessages([{ role: "user", content: "Hi" }]);
    conv.addSample(sampled(r, "\\boxed{7}"));
    expect(conv.tokenIds[conv.tokenIds.length - 1]).toBe(TINY.imEnd);
    expect(conv.tokenIds).toEqual(conv.oneShotTokenIds());
  });

  it("detects a template that is not prefix-stable (earlier reasoning dropped, empty think block added)", () => {
    const r = renderer(THINK_DROPPING_TEMPLATE);
    const conv = new TokenConversation(r);
    conv.addMessages([{ role: "user", content: "Q1" }]);
    conv.addSample(sampled(r, "<think>\nhm\n</think>\n\nA1"));
    expect(conv.turns[0]!.prefixStable).toBe(true);
    const appended = conv.addMessages([{ role: "user", content: "Q2" }]);
    expect(appended).toEqual(userTurnAfterAnswer("Q2"));
    conv.addSample(sampled(r, "A2"));
    expect(conv.turns.map((t) => t.prefixStable)).toEqual([true, false]);
    expect(conv.prefixStable).toBe(false);
    // The stream keeps the reasoning the model saw; the one-shot render has dropped it.
    expect(r.decode(conv.tokenIds)).toContain("<think>\nhm\n</think>");
    expect(r.decode(conv.oneShotTokenIds())).not.toContain("hm");
    expect(conv.tokenIds).not.toEqual(conv.oneShotTokenIds());
  });

  it("fails with E_POLICY_RENDER on a non-prefix-stable render when asked to", () => {
    const r = renderer(THINK_DROPPING_TEMPLATE);
    const conv = new TokenConversation(r, { requirePrefixStable: true });
    conv.addMessages([{ role: "user", content: "Q1" }]);
    conv.addSample(sampled(r, "<think>\nhm\n</think>\n\nA1"));
    expect(() => conv.addMessages([{ role: "user", content: "Q2" }])).toThrow(
      expect.objectContaining({ code: "E_POLICY_RENDER" }),
    );
  });

  it("rejects calls out of order with E_CONFIG", () => {
    const r = renderer();
    const conv = new TokenConversation(r);
    expect(() => conv.addSample(sampled(r, "x"))).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
    conv.addMessages([{ role: "user", content: "Hi" }]);
    expect(() => conv.addMessages([{ role: "user", content: "Hi" }])).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });
});
