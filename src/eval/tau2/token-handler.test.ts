// The token-sampler shim handler (the Tinker path): render, sample, parse back into a chat answer.
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../../test/cleanup.js";
import { ChatRenderer, type TokenSampleRequest, type TokenSampler } from "../../policy/index.js";
import { writeTinyModel } from "../../../test/fakes/tiny-model.js";
import { tokenSamplerHandler } from "./token-handler.js";

describe("tokenSamplerHandler", () => {
  it("passes the request's sampling parameters on and returns the sampled tool call as tool_calls", async () => {
    const renderer = await withTempDir("spade-tiny-", async (dir) =>
      ChatRenderer.fromDir(writeTinyModel(dir)),
    );
    const seen: TokenSampleRequest[] = [];
    /** TEST DOUBLE: a sampler that writes one Hermes tool call and ends its turn. */
    const sampler: TokenSampler = {
      model: "tiny",
      sample: async (request) => {
        seen.push(request);
        const ids = [
          ...renderer.encode(
            '<tool_call>\n{"name": "find_user", "arguments": {"zip": "12345"}}\n</tool_call>',
          ),
          renderer.endOfTurnIds[0]!,
        ];
        return [{ tokenIds: ids, logprobs: null, stopReason: "stop" }];
      },
    };
    const handler = tokenSamplerHandler({ sampler, renderer, defaultMaxTokens: 99 });
    const tools = [
      {
        type: "function",
        function: {
          name: "find_user",
          description: "find",
          parameters: { type: "object", properties: { zip: { type: "string" } } },
        },
      },
    ];
    const messages = [
      { role: "system" as const, content: "policy" },
      { role: "assistant" as const, content: "Hi! How can I help you today?" },
      { role: "user" as const, content: "cancel my order" },
    ];
    const answer = await handler({
      model: "m",
      messages,
      headers: {},
      body: {
        model: "m",
        messages: messages as never,
        tools: tools as never,
        temperature: 0,
        top_p: 0.8,
        top_k: 20,
        max_tokens: 16384,
      },
    });
    expect(answer).toEqual({
      message: {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: expect.any(String),
            type: "function",
            function: { name: "find_user", arguments: '{"zip": "12345"}' },
          },
        ],
      },
    });
    expect(seen.map((r) => [r.temperature, r.topP, r.topK, r.maxTokens])).toEqual([
      [0, 0.8, 20, 16384],
    ]);
    expect(seen[0]!.promptTokenIds).toEqual(
      renderer.renderTokens(messages, { tools: tools as never, addGenerationPrompt: true }),
    );
    expect(seen[0]!.stopTokenIds).toEqual(renderer.stopIds);
  });
});
