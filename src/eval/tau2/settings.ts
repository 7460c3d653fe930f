/**
 * @module eval/tau2/settings
 * The vocabulary of a tau2 run: its domains, the reference's settings, and who plays each role.
 */
import type { ShimHandler } from "./shim.js";

/** The domains of the paper's three tau2 columns. */
export const TAU2_DOMAINS = ["retail", "airline", "telecom"] as const;
/** One of them. */
export type Tau2Domain = (typeof TAU2_DOMAINS)[number];

/** The reference's settings (eval_offline/configs/_tool_use_tau2.yaml). */
export const TAU2_DEFAULTS = {
  split: "base",
  trials: 4,
  maxSteps: 200,
  maxErrors: 10,
  temperature: 0,
  topP: 0.8,
  topK: 20,
  maxTokens: 16384,
  userTemperature: 0,
  userMaxTokens: 2048,
  judgeTemperature: 0,
  concurrency: 8,
  seed: 300,
} as const;

/** An OpenAI-compatible model for one role. */
export interface Tau2Endpoint {
  baseURL: string;
  model: string;
  /** The key itself (read from the variable `--api-key-env` names); default a dummy one. */
  apiKey?: string;
}

/**
 * Who plays the agent: a model on an OpenAI-compatible server, a model SPADE serves itself on
 * its shim through `handler` (the Tinker path), or a scripted baseline.
 */
export type Tau2Agent =
  | { kind: "model"; endpoint: Tau2Endpoint }
  | { kind: "served"; model: string; handler: ShimHandler }
  | { kind: "oracle" }
  | { kind: "idle" };

/** Settings of a run (defaults: `TAU2_DEFAULTS`). */
export interface Tau2Settings {
  split: string;
  trials: number;
  maxSteps: number;
  maxErrors: number;
  temperature: number;
  topP: number;
  topK: number;
  maxTokens: number;
  userTemperature: number;
  userMaxTokens: number;
  judgeTemperature: number;
  concurrency: number;
  seed: number;
}
