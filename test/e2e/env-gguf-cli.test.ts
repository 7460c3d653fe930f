/**
 * `spade env run --policy gguf` through the real, built command, on a tiny random-weight llama
 * GGUF that the test writes itself (a test double: its answers are noise, never a measure of
 * quality). `npm test` builds first.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeTinyLlamaGguf } from "../../src/policy/testing/gguf-writer.js";
import { fileTempDir } from "../cleanup.js";
import { spade } from "./cli.js";

const dir = fileTempDir("spade-gguf-cli-");
const modelPath = join(dir, "tiny.gguf");

beforeAll(async () => {
  await writeTinyLlamaGguf(modelPath, { seed: 1 });
});

describe("spade env run --policy gguf", () => {
  it("plays library episodes with a local GGUF model", async () => {
    const r = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "gguf",
      "--model-path",
      modelPath,
      "--max-tokens",
      "8",
      "--episodes",
      "2",
      "--json",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.policy).toBe("gguf");
    expect(out.episodes).toHaveLength(2);
    for (const episode of out.episodes) {
      expect(episode).toMatchObject({ failure: null, failureCode: null, turns: 10 });
      expect(episode.transcript.messages).toHaveLength(1 + 2 * 10);
    }
  });

  it("exits 2 with E_CONFIG without --model-path and E_NOT_FOUND for a missing file", async () => {
    const noPath = await spade(["env", "run", "vault-cracker", "--policy", "gguf"]);
    expect(noPath.code).toBe(2);
    expect(noPath.stderr).toBe(
      "spade: E_CONFIG: --policy gguf needs --model-path (add --model-path PATH/model.gguf)\n",
    );
    const missing = join(dir, "missing.gguf");
    const notFound = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "gguf",
      "--model-path",
      missing,
    ]);
    expect(notFound.code).toBe(2);
    expect(notFound.stderr).toBe(
      `spade: E_NOT_FOUND: no model file at ${missing} (pass the path of a .gguf file to --model-path)\n`,
    );
  });
});
