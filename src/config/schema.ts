/**
 * @module config/schema
 * The run configuration: one flat, documented zod schema. Every key is also a command-line flag
 * (`designsPerStep` -> `--designs-per-step`). Defaults follow the reference's hyperparameters
 * (docs/reference-notes.md); `null` means "derived from `mode`" (see `resolveConfig`).
 */
import { z } from "zod";

const int = (min: number) => z.coerce.number().int().min(min);
const num = z.coerce.number().finite();
const bool = z.preprocess((v) => (v === "true" ? true : v === "false" ? false : v), z.boolean());
const list = z.preprocess((v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v), z.array(z.string().min(1)).min(1));

/** The schema. Each field's description is its documentation (README "Configuration" is generated from it). */
export const CONFIG_SCHEMA = z.object({
  // The run
  seed: int(0).default(0).describe("run seed: environment seeds, design documents and memory draws derive from it"),
  steps: int(1).default(400).describe("training steps to run (the reference's 30B runs: 400)"),
  mode: z.enum(["games", "tool-use"]).default("games").describe("environment family: reasoning games or multi-step tool use (sets R, D, skills and document length when those are left unset)"),
  skills: list.nullable().default(null).describe('comma-separated skills; design slot i gets skill i mod k (default: the mode\'s six skills)'),
  // Designer
  designer: z.enum(["on", "off"]).default("on").describe("on: the model designs environments (SPADE); off: the agent trains on the built-in library only (fixed-environment baseline)"),
  designsPerStep: int(1).default(24).describe("new environments designed at each regeneration"),
  regenerateEvery: int(1).nullable().default(null).describe("R: design new environments every R steps and replay them in between (default 4 for games, 8 for tool use)"),
  rewardDelay: int(1).nullable().default(null).describe("D: the designer's reward is computed D steps after its environment was created, over all its plays (default R)"),
  maxAttempts: int(1).default(5).describe("design attempts per slot, each with a fresh document"),
  repairTurns: int(0).default(0).describe("times a failed design is sent back with its validation report before a fresh attempt"),
  hints: z.enum(["program", "model"]).default("program").describe("program: the environment's hint(); model: a second, untrained call of the model writes the hint from the code (the reference's way)"),
  hintTemplate: z.string().default("{observation}\n\nHINT: {hint}").describe("how the hint is added to the first observation"),
  // Rewards
  reward: z.enum(["blend", "regret", "solveRate", "learningPotential"]).default("blend").describe("designer reward: blend (0.4 regret + 0.6 win-rate plateau), regret, solveRate (plateau only), learningPotential"),
  regretFloor: num.positive().default(0.15).describe("regret at which the regret term saturates: clip(regret / floor, 0, 1)"),
  invalidDesign: z.enum(["lowest", "drop"]).default("lowest").describe("invalid designs: lowest (a sample with the lowest reward, so the designer learns to write valid programs) or drop (the reference)"),
  advantageStd: bool.default(true).describe("divide agent advantages by the group's standard deviation (GRPO)"),
  // Plays
  plays: int(1).default(8).describe("unhinted plays per environment per step"),
  hintedPlays: int(0).default(16).describe("hinted plays per designed environment, on the step that created it, on seeds paired with its unhinted plays (hinted play i uses unhinted seed i mod plays); never trained"),
  concurrency: int(1).default(32).describe("episodes in flight at once"),
  // Grounding and memory
  corpus: z.string().default("default").describe('grounding corpus: "default" (the bundled documents), a JSONL/Parquet file or a folder of .txt/.md'),
  corpusField: z.string().default("text").describe("JSONL/Parquet field holding the document text"),
  maxWords: int(1).nullable().default(null).describe("documents are truncated to this many words (default 6,000 for games, 4,000 for tool use)"),
  memoryWindow: int(1).default(200).describe("the memory considers the last N environments"),
  // Model
  policy: z.enum(["openai", "tinker"]).nullable().default(null).describe("model backend: openai (any OpenAI-compatible server, chat-level) or tinker (token by token from --engine, rendered with the chat template in --model-path; what training needs) (default: tinker when --engine is set, else openai)"),
  baseUrl: z.string().nullable().default(null).describe("model server URL, e.g. http://localhost:8000/v1"),
  model: z.string().nullable().default(null).describe("model name as the server knows it"),
  apiKeyEnv: z.string().nullable().default(null).describe("name of the environment variable holding the API key (never put keys in files)"),
  temperature: num.min(0).default(0.6).describe("sampling temperature of both roles (the reference's)"),
  maxTokens: int(1).default(8192).describe("most tokens per agent turn"),
  designerMaxTokens: int(1).default(16384).describe("most tokens per designer completion"),
  // Training
  train: bool.default(true).describe("update weights each step (needs --engine); --no-train runs inference-only self-play"),
  engine: z.string().nullable().default(null).describe("Tinker-compatible training engine (server root, e.g. http://127.0.0.1:8000): Tinker, SkyRL tx, verl's Tinker gateway; it trains and serves the token-level sampling of both roles"),
  baseModel: z.string().nullable().default(null).describe("base model exactly as the engine names it (SkyRL tx: its --base-model string)"),
  modelPath: z.string().nullable().default(null).describe("folder with the base model's tokenizer.json and tokenizer_config.json (its chat template renders both roles' prompts into tokens)"),
  loraRank: int(1).default(32).describe("LoRA rank of the trained adapter (the reference's Tinker scripts use 32)"),
  learningRate: num.positive().default(1e-6).describe("Adam learning rate, constant (betas 0.9 / 0.98, weight decay 0.1, as the reference). 1e-6 is the reference's, for full fine-tuning of 30B models and kept in its LoRA scripts; LoRA usually wants about 10x the full-fine-tuning rate, so raise it for small models or short runs"),
  fwdbwdEncoding: z.enum(["auto", "protobuf", "json"]).default("auto").describe("how forward_backward bodies go to the engine: auto sends protobuf as the official Tinker SDK 0.38.0 does (zstd-compressed when the service asks) and switches to JSON for the session when the engine refuses it (HTTP 415/422: SkyRL tx); protobuf or json force one"),
  loss: z.enum(["importance_sampling", "ppo"]).default("importance_sampling").describe("policy-gradient loss: importance_sampling (REINFORCE weighted by p_theta / p_sampler, which corrects the designer samples trained D steps after sampling) or ppo (the same ratio clipped to [0.8, 1.28], the reference's bounds)"),
  // Execution
  sandbox: z.enum(["isolated-vm", "quickjs"]).default("isolated-vm").describe("sandbox backend for environment programs"),
});

/** Keys whose null default is derived from other settings by `resolveConfig`; other nulls mean "not set". */
export const DERIVED_KEYS: readonly string[] = Object.freeze(["skills", "regenerateEvery", "rewardDelay", "maxWords", "policy"]);

/** A configuration as written (fields may be null = derived or not set). */
export type RawConfig = z.infer<typeof CONFIG_SCHEMA>;

/** A configuration with every derived field resolved. */
export type RunConfig = Omit<RawConfig, "skills" | "regenerateEvery" | "rewardDelay" | "maxWords" | "policy"> & {
  policy: "openai" | "tinker";
  skills: string[];
  regenerateEvery: number;
  rewardDelay: number;
  maxWords: number;
};

/** The keys of the configuration. */
export type ConfigKey = keyof RawConfig;
