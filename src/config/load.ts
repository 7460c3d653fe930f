/**
 * @module config/load
 * Building a run configuration from defaults, a preset, a JSON file and flags (later wins), with
 * coded errors that name the offending key or flag, and the keys left null derived from the
 * mode. The only module that reads process state.
 */
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { TOOL_USE_SKILLS } from "../designer/skills.js";
import { orIoError, SpadeError } from "../errors.js";
import { nearestName } from "./nearest.js";
import { CONFIG_SCHEMA, type ConfigKey, type RawConfig } from "./schema.js";

/**
 * The six game skills of the reference's game runs, in its order (`cmd/games/train_spade_30b.sh`:
 * three of them per regeneration, see `skillsPerRegen`), and all six tool-use skills.
 */
export const DEFAULT_SKILLS: Record<RawConfig["mode"], string[]> = {
  games: [
    "Mathematical Reasoning",
    "Logical Deduction",
    "Spatial Reasoning",
    "Pattern Recognition",
    "Optimization",
    "Causal Inference",
  ],
  "tool-use": TOOL_USE_SKILLS.map((skill) => skill.name),
};

/**
 * The reference's games recipe (`cmd/games/train_spade_30b.sh`, blend variant), every setting SPADE
 * has for it spelled out, so a change of SPADE's defaults never changes what the preset means.
 * Where SPADE cannot do what the reference does (full fine-tuning: a LoRA adapter is trained),
 * the setting is left at SPADE's default; docs/reference-notes.md lists each.
 */
const REFERENCE_GAMES: Partial<Record<ConfigKey, unknown>> = {
  mode: "games",
  steps: 400,
  skills: DEFAULT_SKILLS.games,
  designer: "on",
  designsPerStep: 24,
  regenerateEvery: 4,
  rewardDelay: 4,
  maxAttempts: 5,
  repairTurns: 0,
  hints: "model",
  hintTemperature: 0.3,
  hintMaxTokens: 4096,
  hintRetries: 3,
  hintTemplate: "{observation}\n\nHINT: {hint}",
  reward: "blend",
  regretFloor: 0.15,
  invalidDesign: "drop",
  advantageStd: true,
  agentBatch: 192,
  plays: null,
  batchFit: "reference",
  hintedPlays: 16,
  maxTurnsCap: 25,
  episodeFailures: "reference",
  truncatedEpisodes: "train",
  skillsPerRegen: 3,
  corpus: "default",
  maxWords: 6000,
  memory: "on",
  memoryWindow: 200,
  memoryDraws: "attempt",
  temperature: 0.6,
  topP: 0.95,
  topK: 20,
  maxTokens: 8192,
  designerMaxTokens: 16384,
  learningRate: 1e-6,
  loss: "ppo",
  ppoClipLow: 0.2,
  ppoClipHigh: 0.28,
  lossAggregation: "sample-mean",
  gradClipNorm: 1,
  klCoef: 0,
  trainDesigner: "on",
  validation: "reference",
};

/**
 * The model of `--preset local`: Qwen2.5-Coder-0.5B-Instruct quantized to Q4_K_M (about 0.4 GB;
 * Apache-2.0), from Qwen's own GGUF repository. Small enough for a laptop's CPU, instruction-tuned
 * and trained on code (the designer writes programs), with a chat template llama.cpp knows.
 */
export const LOCAL_MODEL =
  "hf:Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";

/**
 * `--preset local`: self-play on `LOCAL_MODEL` in-process, sized for a laptop: one regeneration of
 * two designs, two steps, two unhinted and two hinted plays per environment, short answers.
 */
const LOCAL: Partial<Record<ConfigKey, unknown>> = {
  policy: "gguf",
  modelPath: LOCAL_MODEL,
  train: false,
  steps: 2,
  designsPerStep: 2,
  skillsPerRegen: 2,
  regenerateEvery: 2,
  rewardDelay: 1,
  maxAttempts: 1,
  plays: 2,
  hintedPlays: 2,
  agentBatch: 4,
  batchFit: "off",
  concurrency: 2,
  maxTurnsCap: 6,
  maxTokens: 256,
  designerMaxTokens: 2048,
  hints: "program",
  maxWords: 300,
};

/**
 * Named bundles of settings. `local`: see `LOCAL`. `quick`: a few small steps, for trying things out. `reference`: the
 * reference's games recipe; `reference-tool-use`: its tool-use recipe (`cmd/tool_use/_train_spade_blend.sh`).
 */
export const PRESETS: Record<string, Partial<Record<ConfigKey, unknown>>> = {
  quick: {
    steps: 3,
    designsPerStep: 4,
    agentBatch: 8,
    hintedPlays: 2,
    regenerateEvery: 1,
    rewardDelay: 1,
    maxAttempts: 2,
  },
  reference: REFERENCE_GAMES,
  "reference-tool-use": {
    ...REFERENCE_GAMES,
    mode: "tool-use",
    skills: DEFAULT_SKILLS["tool-use"],
    regenerateEvery: 8,
    rewardDelay: 8,
    skillsPerRegen: 6,
    hintMaxTokens: 2048,
    maxWords: 4000,
    klCoef: 0.005,
    truncatedEpisodes: "mask",
  },
  local: LOCAL,
};

/** `designsPerStep` -> `designs-per-step`. */
export function flagName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Reads a JSON config file (an object of config keys). */
export function readConfigFile(path: string): Record<string, unknown> {
  const text = orIoError(
    () => readFileSync(path, "utf8"),
    `cannot read config file ${path}`,
    "check the path given to --config",
  );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new SpadeError(
      "E_CONFIG",
      `config file ${path} is not valid JSON: ${(cause as Error).message}`,
      { cause },
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SpadeError("E_CONFIG", `config file ${path} must hold a JSON object of settings`);
  }
  return value as Record<string, unknown>;
}

/** Keys whose null default is derived from other settings by `resolveConfig`; other nulls mean "not set". */
export const DERIVED_KEYS: readonly string[] = Object.freeze([
  "skills",
  "skillsPerRegen",
  "regenerateEvery",
  "rewardDelay",
  "maxWords",
  "policy",
  "hintMaxTokens",
  "klCoef",
  "truncatedEpisodes",
]);

/** The fields of DERIVED_KEYS as `resolveConfig` leaves them: never null. */
interface ResolvedFields {
  policy: "openai" | "tinker" | "gguf";
  skills: string[];
  skillsPerRegen: number;
  regenerateEvery: number;
  rewardDelay: number;
  maxWords: number;
  hintMaxTokens: number;
  klCoef: number;
  truncatedEpisodes: "train" | "mask";
}

/** A configuration with every derived field resolved. */
export type RunConfig = Omit<RawConfig, keyof ResolvedFields> & ResolvedFields;

/** Derives the fields left null from `mode`. */
export function resolveConfig(raw: RawConfig): RunConfig {
  const regenerateEvery = raw.regenerateEvery ?? (raw.mode === "games" ? 4 : 8);
  return {
    ...raw,
    skills: raw.skills ?? DEFAULT_SKILLS[raw.mode],
    skillsPerRegen:
      raw.skillsPerRegen ??
      (raw.mode === "games" ? 3 : (raw.skills ?? DEFAULT_SKILLS[raw.mode]).length),
    regenerateEvery,
    rewardDelay: raw.rewardDelay ?? regenerateEvery,
    maxWords: raw.maxWords ?? (raw.mode === "games" ? 6000 : 4000),
    policy: raw.policy ?? (raw.engine !== null ? "tinker" : "openai"),
    hintMaxTokens: raw.hintMaxTokens ?? (raw.mode === "games" ? 4096 : 2048),
    klCoef: raw.klCoef ?? (raw.mode === "games" ? 0 : 0.005),
    // The tool-use script's --spade-compact-filter; the games script trains them.
    truncatedEpisodes: raw.truncatedEpisodes ?? (raw.mode === "games" ? "train" : "mask"),
  };
}

/** `key`, and the known setting it was likely meant to be. */
function withNearest(key: string, known: Iterable<string>): string {
  const near = nearestName(key, known);
  return near === undefined ? key : `${key} (did you mean ${near}?)`;
}

/**
 * Parses layered settings into a run configuration. Unknown keys and invalid values throw
 * E_CONFIG naming the key (and its flag).
 */
export function buildConfig(layers: Array<Record<string, unknown> | undefined>): RunConfig {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {}))
      if (value !== undefined) merged[key] = value;
  }
  const known = new Set(Object.keys(CONFIG_SCHEMA.shape));
  const unknown = Object.keys(merged).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw new SpadeError(
      "E_CONFIG",
      `unknown setting${unknown.length > 1 ? "s" : ""}: ${unknown.map((key) => withNearest(key, known)).join(", ")}`,
      { nextStep: "`spade run --help` lists every setting" },
    );
  }
  const parsed = CONFIG_SCHEMA.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const key = String(issue.path[0] ?? "");
    throw new SpadeError(
      "E_CONFIG",
      `setting ${key} (--${flagName(key)}): ${issue.message} (got ${JSON.stringify(merged[key])})`,
    );
  }
  return checkLoad(resolveConfig(parsed.data));
}

/** Most episodes one step may play: unhinted plays (`designsPerStep x plays`, or about `agentBatch`) plus `designsPerStep x hintedPlays`. */
export const MAX_EPISODES_PER_STEP = 65_536;

/** Bounds that span several settings (each setting's own bounds are in the schema). */
function checkLoad(config: RunConfig): RunConfig {
  // Unhinted plays: plays per environment when set, else about agentBatch (ceil(agentBatch / pool) x pool).
  const unhinted =
    config.plays !== null
      ? config.designsPerStep * config.plays
      : config.agentBatch + config.designsPerStep;
  const episodes = unhinted + config.designsPerStep * config.hintedPlays;
  if (episodes > MAX_EPISODES_PER_STEP) {
    const plays =
      config.plays !== null ? `--plays ${config.plays}` : `--agent-batch ${config.agentBatch}`;
    throw new SpadeError(
      "E_CONFIG",
      `a step would play ${episodes} episodes (--designs-per-step ${config.designsPerStep}, ${plays}, --hinted-plays ${config.hintedPlays}), over the limit of ${MAX_EPISODES_PER_STEP}`,
      {
        nextStep:
          "lower --designs-per-step, --plays, --agent-batch or --hinted-plays (every play of a step is held in memory for scoring)",
      },
    );
  }
  if (config.envPool === "rlve" || config.envPool === "rlve:") {
    throw new SpadeError(
      "E_CONFIG",
      "--env-pool rlve names no RLVE checkout (RLVE is not bundled with SPADE)",
      {
        nextStep:
          "git clone https://github.com/Zhiyuan-Zeng/RLVE and give --env-pool rlve:DIR, DIR the folder holding Gym/ (docs/sandbox.md, RLVE)",
      },
    );
  }
  if (config.envPool !== "library" && config.designer !== "off") {
    throw new SpadeError(
      "E_CONFIG",
      `--env-pool ${config.envPool} is the pool of the fixed-environment baseline`,
      { nextStep: "add --designer off, or leave --env-pool at library" },
    );
  }
  return config;
}

/** A preset by name, or E_CONFIG listing the presets. */
export function preset(name: string | undefined): Record<string, unknown> | undefined {
  if (name === undefined) return undefined;
  const found = PRESETS[name];
  if (!found)
    throw new SpadeError("E_CONFIG", `unknown preset "${name}"`, {
      nextStep: `use one of ${Object.keys(PRESETS).join(", ")}`,
    });
  return found;
}

/** The value of an environment variable (only config/ reads the environment). */
export function envVar(name: string): string | undefined {
  return process.env[name];
}

/**
 * Settings a resumed run may change besides `steps`: where the model server is and how its
 * requests are retried. None changes what the run computes (a server that came back at another
 * address, or needs longer timeouts, serves the same model).
 */
export const RESUME_SERVER_KEYS: readonly ConfigKey[] = Object.freeze([
  "baseUrl",
  "apiKeyEnv",
  "requestTimeout",
  "retryBudget",
  "maxRetries",
  "maxAnswerBytes",
  "outageAfter",
]);

/**
 * The stored configuration of a resumed run with the settings given on the command line applied:
 * `steps` and `RESUME_SERVER_KEYS`, each checked by the schema; any other is E_CONFIG. The stored
 * settings are not derived again, so a setting added after the run began stays unset, which the
 * loop reads as the behaviour the run began with.
 */
export function resumeConfig(stored: RunConfig, given: Record<string, unknown>): RunConfig {
  const allowed = new Set<string>(["steps", ...RESUME_SERVER_KEYS]);
  const keys = Object.keys(given).filter((k) => given[k] !== undefined);
  const refused = keys.filter((k) => !allowed.has(k));
  if (refused.length > 0)
    throw new SpadeError(
      "E_CONFIG",
      `a resumed run keeps its settings; only --steps and how the model server is reached (${RESUME_SERVER_KEYS.map((k) => `--${flagName(k)}`).join(", ")}) may change (got ${refused.map((k) => `--${flagName(k)}`).join(", ")})`,
    );
  if (keys.length === 0) return stored;
  const checked = buildConfig([given]);
  return { ...stored, ...Object.fromEntries(keys.map((k) => [k, checked[k as ConfigKey]])) };
}
