import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolSpec } from "../env/index.js";
import { resolveProgram } from "../envs/index.js";
import { runEpisode } from "../rollout/index.js";
import { loadProgram } from "../sandbox/index.js";
import { schemaProblems } from "../../test/json-schema.js";
import { chatAgent } from "./chat-agent.js";
import { answerBudget, ggufChatBackend, toChatChoice, type GgufChatBackend } from "./gguf.js";
import { checkGgufFile, defaultThreads, probeUrl } from "./gguf-load.js";
import { writeTinyLlamaGguf } from "./testing/gguf-writer.js";
import { assistantCalls } from "./testing/tools.js";
import type { ChatMessage } from "./types.js";
import { codeOfAsync as codeOf } from "../../test/assert.js";
import { fileTempDir } from "../../test/cleanup.js";

// Everything here runs a tiny random-weight model: outputs are noise by construction. The tests
// check structure, token counts, determinism and constraints, never quality.

/** Rejection code of a promise, or "resolved". */

const sceneTool: ToolSpec = {
  type: "function",
  function: {
    name: "set_scene",
    description: "Set the lights of a room.",
    parameters: {
      type: "object",
      properties: {
        room: { type: "string", enum: ["hall", "den", "attic"] },
        lights: {
          type: "object",
          properties: { on: { type: "boolean" }, level: { type: "integer", enum: [0, 50, 100] } },
          required: ["on", "level"],
          additionalProperties: false,
        },
        mode: { type: ["string", "null"], enum: ["eco", "comfort", null] },
      },
      required: ["room", "lights"],
      additionalProperties: false,
    },
  },
};
const waitTool: ToolSpec = {
  type: "function",
  function: {
    name: "wait",
    description: "Do nothing.",
    parameters: { type: "object", properties: {}, additionalProperties: false },
  },
};

const dir = fileTempDir("spade-gguf-");
const modelPath = join(dir, "tiny.gguf");
let backend: GgufChatBackend;
let requiredBackend: GgufChatBackend;

beforeAll(async () => {
  await writeTinyLlamaGguf(modelPath, { seed: 1 });
  backend = ggufChatBackend({ model: modelPath, contextSize: 4096 });
  requiredBackend = ggufChatBackend({
    model: modelPath,
    contextSize: 2048,
    toolChoice: "required",
  });
});

afterAll(async () => {
  await backend.close();
  await requiredBackend.close();
});

describe("ggufChatBackend on a tiny random llama", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "You play." },
    { role: "user", content: "Hi there" },
  ];

  it("generates exactly max_tokens tokens, counts the prompt as the template renders it, and repeats itself under a fixed seed", async () => {
    const sampling = { max_tokens: 16, temperature: 0.8, seed: 7 };
    const first = await backend.complete({ messages, sampling });
    const again = await backend.complete({ messages, sampling });
    const other = await backend.complete({ messages, sampling: { ...sampling, seed: 8 } });
    const choice = first.choices[0]!;
    expect(backend.model).toBe("tiny.gguf");
    expect(backend.contextSize).toBe(4096);
    expect(choice.finishReason).toBe("length");
    expect(choice.tokenIds).toHaveLength(16);
    expect(choice.toolCalls).toEqual([]);
    const rendered =
      "<s><|im_start|>system\nYou play.<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n";
    expect(first.usage).toEqual({
      promptTokens: (await backend.tokenize(rendered)).length,
      completionTokens: 16,
    });
    expect(again.choices[0]!.tokenIds).toEqual(choice.tokenIds);
    expect(again.choices[0]!.content).toBe(choice.content);
    expect(other.choices[0]!.tokenIds).not.toEqual(choice.tokenIds);
  });

  it("samples n choices with seeds seed, seed+1, ...", async () => {
    const both = await backend.complete({
      messages,
      sampling: { max_tokens: 6, temperature: 0.8, seed: 7, n: 2 },
    });
    const second = await backend.complete({
      messages,
      sampling: { max_tokens: 6, temperature: 0.8, seed: 8 },
    });
    expect(both.choices).toHaveLength(2);
    expect(both.choices[1]!.tokenIds).toEqual(second.choices[0]!.tokenIds);
    expect(both.usage?.completionTokens).toBe(12);
  });

  it("answers a prompt the same whatever the requests before it (a resumed run reorders them)", async () => {
    // A shorter conversation after a longer one that starts with it: node-llama-cpp's own reuse
    // of the cache sampled this answer from the longer conversation's state.
    const system =
      "You are playing an interactive environment over several turns. Each user message is what the environment shows you. ";
    const short: ChatMessage[] = [
      { role: "system", content: system.repeat(18) },
      {
        role: "user",
        content: "Customer: please pay 258.22 EUR with the reference RENT-5944. ".repeat(4),
      },
    ];
    const long: ChatMessage[] = [
      ...short,
      { role: "assistant", content: "xq3" },
      { role: "user", content: "Use the banking tools, then give the transfer id." },
    ];
    const sampling = { max_tokens: 8, temperature: 1, seed: 5 };
    const answer = async (b: GgufChatBackend, m: ChatMessage[]) =>
      (await b.complete({ messages: m, sampling })).choices[0]!.tokenIds;
    const fresh = ggufChatBackend({ model: modelPath, contextSize: 4096 });
    try {
      const shortFresh = await answer(fresh, short);
      const longAfterShort = await answer(fresh, long);
      const used = ggufChatBackend({ model: modelPath, contextSize: 4096 });
      try {
        expect(await answer(used, long)).toEqual(longAfterShort);
        expect(await answer(used, short)).toEqual(shortFresh);
        expect(await answer(used, short)).toEqual(shortFresh);
      } finally {
        await used.close();
      }
    } finally {
      await fresh.close();
    }
  });

  it("makes a JSON-schema-constrained tool call whose arguments fit the schema, and another after its result", async () => {
    const tools = [sceneTool, waitTool];
    const sampling = { max_tokens: 400, temperature: 1, seed: 3 };
    const first = (await requiredBackend.complete({ messages, tools, sampling })).choices[0]!;
    expect(first.finishReason).toBe("tool_calls");
    expect(first.malformedToolCalls).toEqual([]);
    expect(first.content).toBe("");
    expect(first.toolCalls).toHaveLength(1);
    const call = first.toolCalls[0]!;
    expect(call.id).toBe("call_0");
    const tool = tools.find((t) => t.function.name === call.name);
    expect(tool).toBeDefined();
    expect(schemaProblems(call.arguments, tool!.function.parameters)).toEqual([]);
    const repeat = (await requiredBackend.complete({ messages, tools, sampling })).choices[0]!;
    expect(repeat.toolCalls).toEqual(first.toolCalls);

    const followUp: ChatMessage[] = [
      ...messages,
      assistantCalls(null, [call.id, call.name, JSON.stringify(call.arguments)]),
      { role: "tool", tool_call_id: call.id, content: "done" },
    ];
    const second = (
      await requiredBackend.complete({
        messages: followUp,
        tools,
        sampling: { ...sampling, seed: 4 },
      })
    ).choices[0]!;
    expect(second.toolCalls).toHaveLength(1);
    const secondTool = tools.find((t) => t.function.name === second.toolCalls[0]!.name);
    expect(schemaProblems(second.toolCalls[0]!.arguments, secondTool!.function.parameters)).toEqual(
      [],
    );
  });

  it("auto tool choice renders earlier calls and their results with the template's function syntax", async () => {
    const tools = [sceneTool, waitTool];
    const withCall: ChatMessage[] = [
      ...messages,
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "wait", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "waited" },
      { role: "user", content: "Again?" },
    ];
    const plain = await backend.complete({ messages, tools, sampling: { max_tokens: 4 } });
    const after = await backend.complete({
      messages: withCall,
      tools,
      sampling: { max_tokens: 4 },
    });
    expect(after.choices[0]!.malformedToolCalls).toEqual([]);
    expect(after.usage!.promptTokens).toBeGreaterThan(
      plain.usage!.promptTokens + "waited".length + "Again?".length,
    );
  });

  it("runs `parallel` requests on separate sequences with the same results as one at a time, and honours a cancelled signal", async () => {
    const twoWide = ggufChatBackend({ model: modelPath, contextSize: 1024, parallel: 2 });
    try {
      const sampling = { max_tokens: 10, temperature: 0.8, seed: 11 };
      const serial = await backend.complete({ messages, sampling });
      const [a, b] = await Promise.all([
        twoWide.complete({ messages, sampling }),
        twoWide.complete({ messages, sampling }),
      ]);
      expect(a.choices[0]!.tokenIds).toEqual(serial.choices[0]!.tokenIds);
      expect(b.choices[0]!.tokenIds).toEqual(serial.choices[0]!.tokenIds);
      expect(
        await codeOf(twoWide.complete({ messages, sampling, signal: AbortSignal.abort() })),
      ).toBe("E_CANCELLED");
    } finally {
      await twoWide.close();
    }
  });

  it("plays a library environment to the turn limit through the chat agent", async () => {
    const env = await loadProgram(resolveProgram("vault-cracker").source);
    try {
      const agent = chatAgent({ backend, sampling: { max_tokens: 8, temperature: 0.7, seed: 1 } });
      const episode = await runEpisode(env, agent, { seed: 0 });
      expect(episode.failure).toBeNull();
      expect(episode.turns).toBe(env.meta.maxTurns);
      expect(episode.trace?.model).toBe("tiny.gguf");
      expect(episode.trace?.samplesByTurn.map((s) => s.turn)).toEqual(
        Array.from({ length: env.meta.maxTurns }, (_, i) => i),
      );
      expect(
        episode.trace?.samplesByTurn.every(
          (s) => s.tokenIds !== null && s.tokenIds.length <= 8 && s.usage !== null,
        ),
      ).toBe(true);
      expect(episode.trace?.messages.map((m) => m.role)).toEqual([
        "system",
        ...Array.from({ length: env.meta.maxTurns }, () => ["user", "assistant"]).flat(),
      ]);
    } finally {
      await env.close();
    }
  });

  it("fails a turn whose prompt fills the context with E_POLICY_CONTEXT, and stops an answer where the context ends", async () => {
    // llama.cpp rounds context sizes up to multiples of 256.
    const small = ggufChatBackend({ model: modelPath, contextSize: 256 });
    try {
      expect(
        await codeOf(
          small.complete({
            messages: [{ role: "user", content: "x".repeat(300) }],
            sampling: { max_tokens: 4 },
          }),
        ),
      ).toBe("E_POLICY_CONTEXT");
      const long = await small.complete({
        messages: [{ role: "user", content: "x".repeat(100) }],
        sampling: { max_tokens: 1000, temperature: 0.8, seed: 1 },
      });
      const promptTokens = long.usage!.promptTokens;
      expect(small.contextSize).toBe(256);
      expect(long.choices[0]!.finishReason).toBe("length");
      expect(long.usage!.completionTokens).toBe(256 - promptTokens - 1);
    } finally {
      await small.close();
    }
  });
});

describe("ggufChatBackend errors", () => {
  it("a missing model path is E_NOT_FOUND", async () => {
    expect(await codeOf(ggufChatBackend({ model: join(dir, "missing.gguf") }).load())).toBe(
      "E_NOT_FOUND",
    );
  });

  it("a file that is not GGUF is E_MODEL_LOAD", async () => {
    const junk = join(dir, "junk.gguf");
    writeFileSync(junk, "not a model");
    expect(await codeOf(ggufChatBackend({ model: junk }).load())).toBe("E_MODEL_LOAD");
    expect(() => checkGgufFile(junk)).toThrow(
      `${junk} is not a GGUF model file (it does not start with "GGUF")`,
    );
  });

  it("a file larger than the memory given is E_MODEL_TOO_LARGE before anything loads", async () => {
    const size = statSync(modelPath).size;
    expect(() => checkGgufFile(modelPath, size)).not.toThrow();
    const tooLarge = ggufChatBackend({ model: modelPath, memoryBytes: size - 1 });
    expect(await codeOf(tooLarge.load())).toBe("E_MODEL_TOO_LARGE");
    expect(tooLarge.contextSize).toBeNull();
  });

  it("an hf: reference without network is E_MODEL_DOWNLOAD", async () => {
    // A closed local port stands for "no network"; the cache folder is empty.
    const hf = ggufChatBackend({
      model: "hf:spade/none/tiny.gguf",
      modelsDir: join(dir, "models"),
      hfEndpoint: "http://127.0.0.1:9/",
      probeTimeoutMs: 5000,
    });
    expect(await codeOf(hf.complete({ messages: [{ role: "user", content: "hi" }] }))).toBe(
      "E_MODEL_DOWNLOAD",
    );
    expect(probeUrl("hf:user/repo:Q4_K_M")).toBe("https://huggingface.co/api/models/user/repo");
  });

  it("a missing node-llama-cpp is E_DEPENDENCY_MISSING", async () => {
    const missing = ggufChatBackend({
      model: modelPath,
      loadModule: () => import("node-llama-cpp-not-installed" as string),
    });
    expect(await codeOf(missing.load())).toBe("E_DEPENDENCY_MISSING");
  });

  it("threads default to all cores but one", () => {
    expect([defaultThreads(1), defaultThreads(2), defaultThreads(16)]).toEqual([1, 1, 15]);
    expect(() => ggufChatBackend({ model: modelPath, threads: 0 })).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });
});

describe("GGUF prompt budgeting and answer mapping (pure)", () => {
  it("answerBudget: max_tokens (default 1024) cut to the room the prompt leaves; no room is E_POLICY_CONTEXT", () => {
    expect(answerBudget(100, 4096, 64)).toBe(64);
    expect(answerBudget(100, 4096, undefined)).toBe(1024);
    expect(answerBudget(4000, 4096, 512)).toBe(95);
    expect(answerBudget(4094, 4096, 8)).toBe(1);
    expect(() => answerBudget(4095, 4096, 8)).toThrow(
      "the conversation (4095 tokens) leaves no room for an answer in the 4096-token context",
    );
  });

  it("toChatChoice: text with token ids; function calls without ids; a required-mode JSON call; stop reasons in OpenAI's words", () => {
    expect(
      toChatChoice(
        { text: "hi", functionCalls: [], stopReason: "maxTokens", tokenIds: [5, 6] },
        false,
      ),
    ).toEqual({
      content: "hi",
      toolCalls: [],
      malformedToolCalls: [],
      rawToolCalls: [],
      finishReason: "length",
      tokenIds: [5, 6],
      logprobs: null,
      tokens: null,
    });
    const called = toChatChoice(
      {
        text: "",
        functionCalls: [{ functionName: "wait" }, { functionName: "go", params: { to: "den" } }],
        stopReason: "functionCalls",
        tokenIds: [1],
      },
      false,
    );
    expect(called.toolCalls).toEqual([
      { id: "call_0", name: "wait", arguments: {} },
      { id: "call_1", name: "go", arguments: { to: "den" } },
    ]);
    expect([called.finishReason, called.tokenIds]).toEqual(["tool_calls", null]);
    const required = toChatChoice(
      {
        text: '{"name": "go", "arguments": {"to": "hall"}}',
        functionCalls: [],
        stopReason: "eogToken",
        tokenIds: [7],
      },
      true,
    );
    expect([
      required.content,
      required.toolCalls.map((c) => [c.name, c.arguments]),
      required.finishReason,
      required.tokenIds,
    ]).toEqual(["", [["go", { to: "hall" }]], "tool_calls", [7]]);
    const broken = toChatChoice(
      { text: '{"name": "go", "argu', functionCalls: [], stopReason: "maxTokens", tokenIds: [] },
      true,
    );
    expect([broken.toolCalls, broken.malformedToolCalls.length, broken.finishReason]).toEqual([
      [],
      1,
      "length",
    ]);
    expect(
      toChatChoice({ text: "", functionCalls: [], stopReason: "abort", tokenIds: [] }, false)
        .finishReason,
    ).toBe("abort");
  });
});
