/**
 * @module test/engine/engine-server
 * The independent engine for the engine tests: SkyRL's Tinker-compatible server (installed by
 * scripts/setup-engine.sh into a cached venv outside the repository), started on loopback through
 * scripts/engine/launch.py over a tiny random Qwen3 model that the tests build themselves.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startLocalEngine, type LocalEngine } from "../../src/engine/index.js";
import { writeTinyModel } from "../fakes/tiny-model.js";
import { skipWithout } from "../missing.js";

const SCRIPTS = fileURLToPath(new URL("../../scripts/engine/", import.meta.url));

/** The engine's virtual environment: `$SPADE_ENGINE_DIR`, default `~/.cache/spade/engine` (as setup-engine.sh). */
export const ENGINE_DIR =
  process.env.SPADE_ENGINE_DIR ?? join(homedir(), ".cache", "spade", "engine");

/** The engine venv's Python. */
export const ENGINE_PYTHON = join(ENGINE_DIR, "bin", "python");

/** True when the engine is installed. */
export const ENGINE_PRESENT = existsSync(ENGINE_PYTHON);

/**
 * Skip the engine tests only when the engine is absent AND this is not CI: CI installs it
 * (`npm test` runs scripts/setup-engine.sh), so there a missing engine fails the tests instead
 * (test/missing.ts, the rule for every test whose needs are missing).
 */
export const SKIP_ENGINE = skipWithout(
  ENGINE_PRESENT ? null : `no engine at ${ENGINE_PYTHON}; run scripts/setup-engine.sh`,
);

/** Why the engine tests are skipped, for the describe title. */
export const SKIP_REASON = `(skipped: no engine at ${ENGINE_PYTHON}; run scripts/setup-engine.sh)`;

/** Throws a precise error when the engine is absent (CI, where it must be there). */
export function requireEngine(): void {
  if (!ENGINE_PRESENT) {
    throw new Error(
      `the training engine is not installed at ${ENGINE_PYTHON}: run bash scripts/setup-engine.sh (npm test does), or set SPADE_ENGINE_DIR`,
    );
  }
}

/** Python settings for the engine's scripts: no bytecode files in the repository. */
const PY_ENV = { ...process.env, PYTHONDONTWRITEBYTECODE: "1" };

/** Texts of the project that its BPE variant learns merges from: what SPADE's prompts and episodes are made of. */
function bpeTrainingFiles(): string[] {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const library = join(root, "src", "envs", "library");
  return [
    ...readdirSync(library)
      .filter((f) => f.endsWith(".js"))
      .sort()
      .map((f) => join(library, f)),
    ...[
      "src/designer/prompt-text.ts",
      "src/policy/chat-agent.ts",
      "src/grounding/corpus/default.jsonl",
    ].map((f) => join(root, f)),
  ];
}

/**
 * Builds the tiny model in `dir`: the TS tokenizer files (`writeTinyModel`, the same ones SPADE's
 * renderer reads), then config and random weights by scripts/engine/tiny_model.py. With
 * `bpeVocab`, the tokenizer first gains BPE merges learned from the project's texts (same ids
 * for every existing token). Returns `dir`.
 */
export function buildTinyEngineModel(
  dir: string,
  options: { seed?: number; bpeVocab?: number } = {},
): string {
  writeTinyModel(dir);
  const bpe = options.bpeVocab
    ? ["--bpe-vocab", String(options.bpeVocab), "--bpe-train", ...bpeTrainingFiles()]
    : [];
  const run = spawnSync(
    ENGINE_PYTHON,
    [join(SCRIPTS, "tiny_model.py"), "--out", dir, "--seed", String(options.seed ?? 0), ...bpe],
    { env: PY_ENV, encoding: "utf8" },
  );
  if (run.status !== 0)
    throw new Error(`tiny_model.py failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return dir;
}

function reference(
  modelDir: string,
  request: { sequences?: number[][]; texts?: string[] },
): { logprobs: number[][]; ids?: number[][] } {
  const run = spawnSync(ENGINE_PYTHON, [join(SCRIPTS, "reference.py"), "--model", modelDir], {
    env: PY_ENV,
    encoding: "utf8",
    input: JSON.stringify(request),
  });
  if (run.status !== 0)
    throw new Error(`reference.py failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return JSON.parse(run.stdout) as { logprobs: number[][]; ids?: number[][] };
}

/** log p(tokens[i+1] | tokens[..i]) of each sequence under the base model, by the numpy reference forward pass. */
export function referenceLogprobs(modelDir: string, sequences: number[][]): number[][] {
  return reference(modelDir, { sequences }).logprobs;
}

/** Each text as Python's `tokenizers` library encodes it with the model folder's tokenizer.json. */
export function pythonTokenIds(modelDir: string, texts: string[]): number[][] {
  return reference(modelDir, { texts }).ids ?? [];
}

/** A running engine (src/engine's `LocalEngine`, started as `spade run --engine local` starts it). */
export type RunningEngine = LocalEngine;

/**
 * Starts the engine on an ephemeral loopback port over `modelDir`; its database and checkpoints go
 * to `workDir`. `backendConfig` is SkyRL's JAX backend config (e.g. `train_micro_batch_size`).
 */
export function startEngine(
  modelDir: string,
  workDir: string,
  options: { readyTimeoutMs?: number; backendConfig?: Record<string, unknown> } = {},
): Promise<RunningEngine> {
  // Niceness 10: the engine's JAX threads take every core, and the other test files run beside it.
  return startLocalEngine({
    python: ENGINE_PYTHON,
    baseModel: modelDir,
    workDir,
    backendConfig: options.backendConfig,
    readyTimeoutMs: options.readyTimeoutMs ?? 120_000,
    nice: 10,
  });
}
