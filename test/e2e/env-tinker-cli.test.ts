/**
 * `spade env run --policy tinker` through the real, built command against the fake
 * Tinker-compatible server (a test double), with a tokenizer the test writes itself.
 * `npm test` builds first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ChatRenderer } from "../../src/policy/index.js";
import { startFakeTinkerServer, type FakeTinkerServer } from "../fakes/tinker-server.js";
import { TINY, writeTinyModel } from "../fakes/tiny-model.js";
import { tempDirsAfterEach } from "../cleanup.js";
import { spade } from "./cli.js";

const freshDir = tempDirsAfterEach("spade-env-tinker-");
let server: FakeTinkerServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("spade env run --policy tinker", () => {
  it("plays a library environment through a Tinker-compatible server with the model's own template", async () => {
    const modelPath = writeTinyModel(freshDir());
    const answer = [...ChatRenderer.fromDir(modelPath).encode("\\boxed{0123}"), TINY.imEnd];
    server = await startFakeTinkerServer({
      baseModel: "Org/Tiny-1B",
      apiKey: "tk-e2e",
      tryAgainPolls: 1,
      sample: () => ({
        sequences: [{ tokens: answer, logprobs: answer.map(() => -0.5), stop_reason: "stop" }],
      }),
    });
    const args = [
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "tinker",
      "--engine",
      server.baseURL,
      "--base-model",
      "Org/Tiny-1B",
      "--model-path",
      modelPath,
      "--api-key-env",
      "SPADE_E2E_TINKER_KEY",
      "--episodes",
      "2",
      "--json",
    ];
    const r = await spade(args, { SPADE_E2E_TINKER_KEY: "tk-e2e" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.policy).toBe("tinker");
    const turns = out.episodes.reduce((sum: number, e: { turns: number }) => sum + e.turns, 0);
    for (const episode of out.episodes) {
      expect(episode).toMatchObject({ failure: null, failureCode: null });
      expect(episode.turns === 10 || episode.success).toBe(true);
      expect(episode.transcript.messages).toHaveLength(1 + 2 * episode.turns);
      expect(episode.transcript.messages[2]).toEqual({
        role: "assistant",
        content: "\\boxed{0123}",
      });
    }
    // One session and one sampling session serve both episodes; seq ids keep counting.
    expect(server.requestsTo("/api/v1/create_session")).toHaveLength(1);
    expect(server.requestsTo("/api/v1/create_sampling_session")).toHaveLength(1);
    expect(server.requestsTo("/api/v1/asample").map((q) => q.body.seq_id)).toEqual([
      ...Array(turns).keys(),
    ]);
    expect(server.requestsTo("/api/v1/asample")[0]!.body.sampling_params.stop).toEqual([
      TINY.imEnd,
    ]);
  });

  it("exits 2 with E_CONFIG without --model-path, and E_IO when it holds no tokenizer", async () => {
    const noPath = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "tinker",
      "--engine",
      "http://127.0.0.1:1",
      "--base-model",
      "m",
    ]);
    expect(noPath.code).toBe(2);
    expect(noPath.stderr).toBe(
      "spade: E_CONFIG: --policy tinker needs --model-path (add --model-path PATH_TO_TOKENIZER_FOLDER)\n",
    );
    const empty = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "tinker",
      "--engine",
      "http://127.0.0.1:1",
      "--base-model",
      "m",
      "--model-path",
      freshDir(),
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^spade: E_IO: cannot read tokenizer.json at /);
  });
});
