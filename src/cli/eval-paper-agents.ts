/**
 * @module cli/eval-paper-agents
 * The agent makers the paper's sources call: one agent per sample, seeded by the sample index.
 */
import type { SamplingParams } from "../policy/index.js";
import type { Policy } from "./policy.js";

/** Agents of `policy` with `sampling` and no system prompt, seeded by the sample. */
export const agentOf =
  (policy: Policy, sampling: SamplingParams) => (sample: number, signal: AbortSignal) =>
    policy.makeAgent({ seed: sample, signal, systemPrompt: null, sampling });

/** Agents of `policy` with `sampling` and the source's system prompt, seeded by the sample. */
export const qaAgentOf =
  (policy: Policy, sampling: SamplingParams) =>
  (sample: number, signal: AbortSignal, system: string | null) =>
    policy.makeAgent({ seed: sample, signal, systemPrompt: system, sampling });
