/**
 * @module test/token-sampler-contract
 * The shared token sampler contract suite (STYLE.md point 14): every token-level backend
 * (`TokenSampler`) registers `describeTokenSamplerContract` through a harness.
 */
import { expect, it } from "vitest";
import { resolveProgram } from "../src/envs/index.js";
import { tokenAgent, type ChatRenderer, type TokenSampler } from "../src/policy/index.js";
import { runEpisode } from "../src/rollout/index.js";
import { loadProgram } from "../src/sandbox/index.js";
import { codeOfAsync } from "./assert.js";
import { CONTRACT_ENV, expectPlayed } from "./policy-contract.js";

/**
 * How one token sampler plugs into its suite. The served model (real or fake) must answer any
 * prompt with more than 4 tokens and end with one of the renderer's `stopIds` within 64.
 */
export interface TokenSamplerHarness {
  /** A sampler for one test, and how to close it. */
  open(): Promise<{ sampler: TokenSampler; close?: () => Promise<void> }>;
  /** The served model's chat rendering (for the episode). */
  renderer: () => ChatRenderer;
}

/** Registers the token sampler contract tests; call inside a `describe`. */
export function describeTokenSamplerContract(harness: TokenSamplerHarness): void {
  const using = async (
    fn: (sampler: TokenSampler, stopTokenIds: readonly number[]) => Promise<void>,
  ) => {
    const opened = await harness.open();
    try {
      await fn(opened.sampler, harness.renderer().stopIds);
    } finally {
      await opened.close?.();
    }
  };
  const prompt = () => harness.renderer().encode("Hi there");

  it("samples numSamples sequences that end at a stop id, with aligned logprobs", () =>
    using(async (sampler, stopTokenIds) => {
      const samples = await sampler.sample({
        promptTokenIds: prompt(),
        maxTokens: 64,
        stopTokenIds,
        numSamples: 2,
      });
      expect(samples).toHaveLength(2);
      for (const s of samples) {
        expect(s.stopReason).toBe("stop");
        expect(s.tokenIds.every(Number.isInteger)).toBe(true);
        expect(s.tokenIds.length).toBeLessThanOrEqual(64);
        // No stop id inside the sequence; the last id may be one (when the backend returns it).
        expect(s.tokenIds.slice(0, -1).filter((id) => stopTokenIds.includes(id))).toEqual([]);
        if (s.logprobs !== null)
          expect([
            s.logprobs.length,
            s.logprobs.every((lp) => Number.isFinite(lp) && lp <= 0),
          ]).toEqual([s.tokenIds.length, true]);
      }
    }));

  it("honours maxTokens: stop reason `length` at exactly maxTokens ids", () =>
    using(async (sampler, stopTokenIds) => {
      const [s] = await sampler.sample({ promptTokenIds: prompt(), maxTokens: 4, stopTokenIds });
      expect([s!.stopReason, s!.tokenIds.length]).toEqual(["length", 4]);
    }));

  it("rejects with E_CANCELLED when the signal is aborted", () =>
    using(async (sampler, stopTokenIds) => {
      expect(
        await codeOfAsync(
          sampler.sample({
            promptTokenIds: prompt(),
            maxTokens: 4,
            stopTokenIds,
            signal: AbortSignal.abort(),
          }),
        ),
      ).toBe("E_CANCELLED");
    }));

  it(`plays ${CONTRACT_ENV} through tokenAgent and runEpisode without a failure of the agent's own making`, () =>
    using(async (sampler) => {
      const env = await loadProgram(resolveProgram(CONTRACT_ENV).source);
      try {
        const agent = tokenAgent({ sampler, renderer: harness.renderer(), maxTokens: 64 });
        const episode = await runEpisode(env, agent, { seed: 0 });
        expectPlayed(episode, env.meta.maxTurns);
        expect(episode.trace?.model).toBe(sampler.model);
        expect(episode.trace?.samplesByTurn).toHaveLength(episode.turns);
      } finally {
        await env.close();
      }
    }));
}
