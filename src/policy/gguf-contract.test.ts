/**
 * The policy backend contract suite (test/policy-contract.ts) over the local GGUF backend on a
 * tiny random llama: llama.cpp runs in-process, so this file is in the engine project
 * (vitest.config.ts); the other backends' runs of the suite are in contract.test.ts. A noise
 * model: the suite checks behaviour and shapes, never answer quality.
 */
import { join } from "node:path";
import { describe } from "vitest";
import { fileTempDir } from "../../test/cleanup.js";
import { describeChatBackendContract } from "../../test/policy-contract.js";
import { ggufChatBackend, type GgufChatBackend } from "./gguf.js";
import { writeTinyLlamaGguf } from "./testing/gguf-writer.js";

describe("local GGUF backend on a tiny random llama", () => {
  const dir = fileTempDir("spade-gguf-contract-");
  const modelPath = join(dir, "tiny.gguf");
  let written: Promise<unknown> | undefined;
  // One backend per tool mode, loaded once for the whole suite (loading is the slow part).
  const backends = new Map<string, GgufChatBackend>();

  describeChatBackendContract({
    toolCalls: "constrained",
    // Seed 7 makes the tiny model run past 4 tokens without an end-of-turn (max_tokens check).
    sampling: { temperature: 0.8, seed: 7 },
    skip: {
      "cancel-during":
        "a local model cannot be made to wait, so an abort during generation would race the end of a few-token answer",
    },
    knownFailures: {
      "max_tokens-count":
        "node-llama-cpp streams no token that ends an incomplete UTF-8 sequence and drops such tokens when max_tokens ends the answer, so tokenIds and usage count 2 of the 4 tokens generated here",
    },
    async open(scenario) {
      written ??= writeTinyLlamaGguf(modelPath, { seed: 1 });
      await written;
      // Constrained (required) mode for the tool-call check: a random model never chooses the call syntax itself.
      const toolChoice = scenario.kind === "tool-call" ? "required" : "auto";
      let backend = backends.get(toolChoice);
      if (!backend)
        backends.set(
          toolChoice,
          (backend = ggufChatBackend({ model: modelPath, contextSize: 2048, toolChoice })),
        );
      return { backend };
    },
    async close() {
      for (const backend of backends.values()) await backend.close();
    },
  });
});
