/**
 * @module config/schema
 * The run configuration: one flat, documented zod schema. Every key is also a command-line flag
 * (`designsPerStep` -> `--designs-per-step`). Defaults follow the reference's hyperparameters
 * (docs/reference-notes.md); `null` means "derived from `mode`" (see `resolveConfig`).
 */
import { z } from "zod";
import { bool, field, int, list, num, onOff, seconds, stepCount, tokenCount } from "./fields.js";

/** The schema. Each field's description is its documentation (README "Configuration" is generated from it). */
export const CONFIG_SCHEMA = z.object({
  // The run
  seed: field(
    int(0, Number.MAX_SAFE_INTEGER, "a safe integer"),
    0,
    "run seed: environment seeds, design documents and memory draws derive from it",
  ),
  steps: field(
    int(1, 1_000_000, "a million steps is years of training"),
    400,
    "training steps to run (the reference's 30B runs: 400)",
  ),
  mode: field(
    z.enum(["games", "tool-use"]),
    "games",
    "environment family: reasoning games or multi-step tool use (sets R, D, skills and document length when those are left unset)",
  ),
  skills: field(list.nullable(), null, "comma-separated skills (default: the mode's six skills)"),
  skillsPerRegen: field(
    int(1, 1024, "a window of skills to design for").nullable(),
    null,
    "skills designed for at each regeneration: a window of this many skills that moves on by as many every regeneration (the reference's select_active_skills), slot i getting the window's skill i mod k; all skills when it is >= their number (default 3 for games, so 24 designs are 8 per skill; all 6 for tool use, 4 each)",
  ),
  // Designer
  designer: field(
    onOff,
    "on",
    "on: the model designs environments (SPADE); off: the agent trains on the built-in library only (fixed-environment baseline)",
  ),
  envPool: field(
    z.string().min(1),
    "library",
    "the fixed-environment pool of --designer off: library (the built-in library); openenv+ws://HOST:PORT/NAME, a remote OpenEnv environment played over the network (several comma-separated; no hint or oracle); rlve:DIR, RLVE's environments from a local RLVE checkout DIR (the folder holding Gym/; the reference's official16 set, or rlve:DIR#* for all, rlve:DIR#Sorting,Division for some) with the sliding-window difficulty controller (--difficulty-tau-acc, --difficulty-tau-num, --difficulty-d-delta; docs/sandbox.md, RLVE); or a folder in the reference's GPT-5.5 pool layout (games/game_*.py with manifest.jsonl, validation_manifest.jsonl, checksums.sha256; checksums verified, games the pool's validation failed left out; Python programs, run in the python sandbox)",
  ),
  difficultyTauAcc: field(
    num.min(0).max(1),
    0.9,
    "RLVE difficulty controller (--env-pool rlve:DIR): the success rate at an environment's top difficulty that moves its window up (the reference's tau_acc)",
  ),
  difficultyTauNum: field(
    int(1, 1_000_000, "plays counted before each promotion check"),
    128,
    "RLVE difficulty controller: plays at an environment's top difficulty counted before each promotion check (the reference's RLVE runs: 128; its controller's own default is 8)",
  ),
  difficultyDDelta: field(
    int(1, 21, "RLVE difficulties are 0 to 20"),
    4,
    "RLVE difficulty controller: the widest difficulty window, high - low + 1 (the reference's d_delta)",
  ),
  envLanguage: field(
    z.enum(["javascript", "python"]),
    "javascript",
    "the language the designer writes environments in: javascript (the contract of README \"The environment contract\"; isolated-vm or QuickJS) or python (the reference's language: a class with reset/step/hint/solve, run in the Python sandbox, docs/sandbox.md; games and tool use, a tool-use program's step(action) getting the whole action as a dict and returning the tool results sixth; the library's JavaScript examples are left out of the prompt)",
  ),
  designsPerStep: field(
    int(1, 1024, "each design is a model call and a validated program per step"),
    24,
    "new environments designed at each regeneration",
  ),
  regenerateEvery: field(
    stepCount.nullable(),
    null,
    "R: design new environments every R steps and replay them in between (default 4 for games, 8 for tool use)",
  ),
  rewardDelay: field(
    stepCount.nullable(),
    null,
    "D: the designer's reward is computed D steps after its environment was created, over all its plays (default R)",
  ),
  maxAttempts: field(
    int(1, 100, "each attempt is a designer completion"),
    5,
    "design attempts per slot, each with a fresh document",
  ),
  repairTurns: field(
    int(0, 20, "each turn resends the whole design conversation"),
    0,
    "times a failed design is sent back with its validation report before a fresh attempt",
  ),
  hints: field(
    z.enum(["model", "program"]),
    "model",
    "model (the reference's way): a second, untrained call of the same model reads the program and writes the hint (never trained; no hint after hintRetries failed calls: no hinted plays, regret 0; not asked when hintedPlays is 0); program: the environment's own hint()",
  ),
  hintTemperature: field(
    num.min(0),
    0.3,
    "sampling temperature of the hint writer (--hints model; the reference's 0.3)",
  ),
  hintMaxTokens: field(
    tokenCount.nullable(),
    null,
    "most tokens of the hint writer's answer (default 4,096 for games, 2,048 for tool use, the reference's)",
  ),
  hintRetries: field(
    int(1, 20, "each retry is a model call"),
    3,
    "calls of the hint writer before the environment is left without a hint (the reference's 3)",
  ),
  hintTemplate: field(
    z.string(),
    "{observation}\n\nHINT: {hint}",
    "how the hint is added to the first observation",
  ),
  // Rewards
  reward: field(
    z.enum(["blend", "regret", "solveRate", "learningPotential", "microLp", "frontier"]),
    "blend",
    "designer reward: blend (0.4 regret + 0.6 win-rate plateau), regret, solveRate (plateau only), learningPotential, microLp (late-half minus early-half mean return over the window, floored at 0), frontier (0.4 regret - 0.6 (winRate - 0.5)^2 / frontierScale; designs below 0 are not trained); see docs/reference-notes.md",
  ),
  frontierScale: field(
    num.positive(),
    0.08,
    "reward frontier: the scale the penalty (winRate - 0.5)^2 is divided by (the reference's 0.08)",
  ),
  regretFloor: field(
    num.positive(),
    0.15,
    "regret at which the regret term saturates: clip(regret / floor, 0, 1)",
  ),
  invalidDesign: field(
    z.enum(["lowest", "drop"]),
    "lowest",
    "invalid designs: lowest (a sample with the lowest reward, so the designer learns to write valid programs) or drop (the reference)",
  ),
  agentBatch: field(
    int(1, 65_536, "every sample of a step is held in memory for scoring"),
    192,
    "agent samples per step (the reference's global batch, 192): each environment is played ceil(agentBatch / environments in the pool) times unless --plays is set, and with --batch-fit reference the batch is filled or trimmed to it",
  ),
  batchFit: field(
    z.enum(["reference", "off"]),
    "reference",
    "reference: too few agent samples are topped up with copies (round robin) to agentBatch minus this step's new designs, and designer samples plus agent samples are cut to agentBatch, designer first (the reference); off: every finished play is one sample, nothing added or cut",
  ),
  advantageStd: field(
    bool,
    true,
    "divide agent advantages by the group's standard deviation (GRPO)",
  ),
  // Plays
  plays: field(
    int(1, 1024, "every play of a step is held in memory for scoring").nullable(),
    null,
    "unhinted plays per environment per step (default: ceil(agentBatch / environments in the pool), the reference's; 8 for 24 environments, 16 when only 12 are valid). With --batch-fit reference the samples are still filled or cut to agentBatch, so set both, or --batch-fit off",
  ),
  maxTurnsCap: field(
    z.preprocess(
      (v) => (v === "none" ? null : v),
      int(1, 10_000, "each turn is a model call").nullable(),
    ),
    25,
    "agent turns per episode are min(the environment's maxTurns, this) (the reference's 25); \"none\" (null in a config file): the environment's maxTurns alone",
  ),
  episodeFailures: field(
    z.enum(["reference", "drop"]),
    "reference",
    "reference: a context overflow ends the episode as truncated with return 0 and it counts (GRPO group, win rate, regret); a malformed tool call is answered with an error observation, that turn is masked out of training, and the episode goes on. drop: both drop the episode like an infrastructure failure (server errors after retries, a crashed environment), which is never scored",
  ),
  truncatedEpisodes: field(
    z.enum(["train", "mask"]).nullable(),
    null,
    "agent episodes that did not terminate (the turn cap, the environment's truncation, a full context): train (trained with return 0, the reference's games) or mask (the reference's tool use, --spade-compact-filter: they still count in their GRPO group, the batch and the designer's scale, but are not trained) (default train for games, mask for tool use)",
  ),
  hintedPlays: field(
    int(0, 1024, "every play of a step is held in memory for scoring"),
    16,
    "hinted plays per designed environment, on the step that created it, on seeds paired with its unhinted plays (hinted play i uses unhinted seed i mod plays); never trained",
  ),
  concurrency: field(
    int(1, 1024, "each episode in flight holds a sandbox and a request"),
    32,
    "episodes in flight at once",
  ),
  // Grounding and memory
  corpus: field(
    z.string(),
    "default",
    'grounding corpus: "default" (the bundled documents), a JSONL/Parquet file, a folder of .txt/.md, or "none" (no grounding document: the ablation)',
  ),
  corpusField: field(z.string(), "text", "JSONL/Parquet field holding the document text"),
  maxWords: field(
    int(1, 1_000_000, "a document must fit in a prompt").nullable(),
    null,
    "documents are truncated to this many words (default 6,000 for games, 4,000 for tool use)",
  ),
  memoryWindow: field(
    int(1, 100_000, "the window is read at every design"),
    200,
    "the memory considers the last N environments",
  ),
  memoryDraws: field(
    z.enum(["attempt", "slot"]),
    "attempt",
    "attempt: every design attempt draws its own memory references (the reference builds the prompt afresh per attempt); slot: one draw per slot, shared by its attempts",
  ),
  memory: field(
    onOff,
    "on",
    "off: the designer sees no memory references, no environment to avoid and no library seeds (the ablation)",
  ),
  // Model
  policy: field(
    z.enum(["openai", "tinker", "gguf"]).nullable(),
    null,
    "model backend: openai (any OpenAI-compatible server, chat-level), tinker (token by token from --engine, rendered with the chat template in --model-path; what training needs) or gguf (a local GGUF model in --model-path run in-process by llama.cpp, inference only: --no-train is implied) (default: tinker when --engine is set, else openai)",
  ),
  baseUrl: field(z.string().nullable(), null, "model server URL, e.g. http://localhost:8000/v1"),
  model: field(z.string().nullable(), null, "model name as the server knows it"),
  apiKeyEnv: field(
    z.string().nullable(),
    null,
    "name of the environment variable holding the API key (never put keys in files)",
  ),
  temperature: field(num.min(0), 0.6, "sampling temperature of both roles (the reference's)"),
  topP: field(
    num.gt(0).max(1),
    0.95,
    "nucleus sampling of both roles (the reference's 0.95; 1 turns it off)",
  ),
  topK: field(
    int(0, 1_000_000, "larger than any vocabulary"),
    20,
    "top-k sampling of both roles (the reference's 20; 0: not sent). OpenAI-compatible servers get it as the body field top_k (vLLM, SGLang; set 0 for hosted APIs that refuse unknown fields), Tinker in its sampling parameters",
  ),
  maxTokens: field(tokenCount, 8192, "most tokens per agent turn"),
  designerMaxTokens: field(tokenCount, 16384, "most tokens per designer completion"),
  // Model server requests (every command that talks to a model server: run, env run, eval)
  requestTimeout: field(
    seconds(86_400),
    600,
    "seconds one request to a model server or engine may take before it is abandoned and retried",
  ),
  retryBudget: field(
    seconds(604_800),
    1800,
    "seconds one request may take with all its retries and waits; then it fails (an episode records the failure, a design attempt counts as failed)",
  ),
  maxRetries: field(
    int(0, 20, "the retry budget bounds the time anyway"),
    4,
    "retries of a failed request (429, 5xx, timeouts, dropped connections); retry-after is honoured",
  ),
  outageAfter: field(
    int(0, 1_000_000, "a count of requests"),
    16,
    "model requests failed in a row after their retries, none answered in between, that stop the work (E_POLICY_UNAVAILABLE): the server is down or the URL, key or model is wrong. Work in flight is dropped as on Ctrl-C and what finished is kept (spade run --resume, spade eval --resume; spade env run prints it and names the seeds to play again); 0: never stop, every request's failure is recorded and the work goes on",
  ),
  maxAnswerBytes: field(
    int(1024, 1_073_741_824, "1 GiB"),
    4_194_304,
    "largest chat answer accepted from a model server, in bytes (4 MiB: an answer of 16k tokens is well under 1 MiB without logprobs); a larger one fails with E_POLICY_OUTPUT",
  ),
  // Training
  train: field(
    bool,
    true,
    "update weights each step (needs --engine); --no-train runs inference-only self-play",
  ),
  engine: field(
    z.string().nullable(),
    null,
    "Tinker-compatible training engine (server root, e.g. http://127.0.0.1:8000): Tinker, SkyRL tx, verl's Tinker gateway; it trains and serves the token-level sampling of both roles. local: SPADE starts SkyRL's server (scripts/setup-engine.sh installs it) as a child process over --base-model and stops it with the run",
  ),
  enginePort: field(
    int(0, 65_535, "a TCP port"),
    0,
    "--engine local: the port the engine listens on, on 127.0.0.1 (0: any free port); a taken port fails E_PORT_IN_USE",
  ),
  engineStartTimeout: field(
    seconds(3600),
    600,
    "--engine local: seconds the engine may take to load the model and answer before the run fails E_ENGINE_START with its log tail",
  ),
  engineBackendConfig: field(
    z.string().refine((v) => {
      try {
        const o: unknown = JSON.parse(v);
        return typeof o === "object" && o !== null && !Array.isArray(o);
      } catch {
        return false;
      }
    }, "a JSON object"),
    "{}",
    "--engine local: SkyRL's --backend-config as a JSON object, e.g. {\"train_micro_batch_size\": 1} to keep a CPU engine's memory low",
  ),
  engineBackend: field(
    z.enum(["jax", "fsdp", "megatron"]),
    "jax",
    "--engine local: SkyRL's training backend: jax (CPU, or one GPU with jax[cuda] installed), fsdp or megatron (GPUs, with SkyRL's torch extras installed)",
  ),
  baseModel: field(
    z.string().nullable(),
    null,
    "base model exactly as the engine names it (SkyRL tx: its --base-model string); with --engine local a Hugging Face name or a local model folder",
  ),
  modelPath: field(
    z.string().nullable(),
    null,
    "--policy tinker: folder with the base model's tokenizer.json and tokenizer_config.json (its chat template renders both roles' prompts into tokens; with --engine local and a local --base-model folder, that folder by default); --policy gguf: a .gguf file or an hf:user/repo/file.gguf reference",
  ),
  loraRank: field(
    int(1, 1024, "engines refuse larger adapters"),
    32,
    "LoRA rank of the trained adapter (the reference's Tinker scripts use 32)",
  ),
  learningRate: field(
    num.positive(),
    1e-6,
    "Adam learning rate, constant (betas 0.9 / 0.98, weight decay 0.1, as the reference). 1e-6 is the reference's, for full fine-tuning of 30B models and kept in its LoRA scripts; LoRA usually wants about 10x the full-fine-tuning rate, so raise it for small models or short runs",
  ),
  fwdbwdEncoding: field(
    z.enum(["auto", "protobuf", "json"]),
    "auto",
    "how forward_backward bodies go to the engine: auto sends protobuf as the official Tinker SDK 0.38.0 does (zstd-compressed when the service asks) and switches to JSON for the session when the engine refuses it (HTTP 415/422: SkyRL tx); protobuf or json force one",
  ),
  loss: field(
    z.enum(["ppo", "importance_sampling"]),
    "ppo",
    "policy-gradient loss: ppo (the reference's: the ratio p_theta / p_sampler clipped to [1 - ppoClipLow, 1 + ppoClipHigh]; the sampler's logprobs make it the reference's truncated importance sampling too) or importance_sampling (REINFORCE weighted by the unclipped ratio)",
  ),
  ppoClipLow: field(
    num.min(0).max(1),
    0.2,
    "ppo: the ratio is clipped below at 1 - ppoClipLow (the reference's eps-clip 0.2)",
  ),
  ppoClipHigh: field(
    num.min(0),
    0.28,
    "ppo: the ratio is clipped above at 1 + ppoClipHigh (the reference's eps-clip-high 0.28)",
  ),
  lossAggregation: field(
    z.enum(["token-sum", "sample-mean"]),
    "token-sum",
    "how the per-token losses of a step add up: token-sum (Tinker's losses as they are: every trained token weighs the same, so a sample weighs by its length) or sample-mean (the reference's Slime runs, hence the paper's: each sample's mean over its trained tokens, summed and divided by the samples of the step's batch, masked ones included; carried in the advantages, each divided by the batch's samples times its sample's trained tokens). Runs stored before this setting existed keep token-sum",
  ),
  gradClipNorm: field(
    num.min(0),
    0,
    "the optimiser step clips the global gradient norm to this (Tinker's grad_clip_norm); 0: no clipping (the reference's Tinker backend). The reference's Slime runs clip at 1.0 (Megatron's default) over their sample-mean loss; an engine that ignores the field (SkyRL tx) does not clip. Runs stored before this setting existed keep 0",
  ),
  klCoef: field(
    num.min(0).nullable(),
    null,
    "KL penalty against the base model, folded into the per-token advantages (Tinker's losses have no KL term): A_t - klCoef (log q_t - log p_base_t - mean); default 0 for games, 0.005 for tool use (the reference's)",
  ),
  trainDesigner: field(
    onOff,
    "on",
    "off: designer samples are scored and stored but not trained (the ablation); the agent still trains",
  ),
  maxOffPolicy: field(
    int(0, 64, "each step ahead holds a step's samples and a training in flight"),
    0,
    "K: pipelined steps. 0 (the reference's order): a step samples from the weights its previous step trained. K >= 1: step t's designing and playing run while the trainings of steps t-K..t-1 are in flight, sampling from the newest committed weights (those after step t-K-1); each design and episode stores its weights version, and the loss's importance ratio p_theta / q corrects the lag (docs/reference-notes.md, \"Pipelined steps\")",
  ),
  // Execution
  sandbox: field(
    z.enum(["isolated-vm", "quickjs"]),
    "isolated-vm",
    "sandbox backend for environment programs",
  ),
  validation: field(
    z.enum(["strict", "reference"]),
    "strict",
    "strict: the full validator (the oracle must win, determinism, anti-trivial, limits); reference: the reference's gate only (loads, meta, reset, 3 steps, limits), for ablations and comparisons",
  ),
  validationBudgetS: field(
    num.positive().max(3600),
    60,
    "wall-time budget of validating one designed environment, in seconds; a design that uses it up fails E_TIME_BUDGET (each call also has its own sandbox deadline)",
  ),
});

/** A configuration as written (fields may be null = derived or not set). */
export type RawConfig = z.infer<typeof CONFIG_SCHEMA>;

/** The keys of the configuration. */
export type ConfigKey = keyof RawConfig;
