/**
 * @module eval/tau2/driver
 * Starts the Python-side driver (scripts/tau2/driver.py) in the tau2 virtual environment, sends
 * it one request and reads its JSON-line events from file descriptor 3. Harness failures become
 * coded errors: a missing install E_DEPENDENCY_MISSING, a crash E_TAU2_HARNESS.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { SpadeError } from "../../errors.js";
import type { JsonObject } from "../../env/index.js";

/** A model for one tau2 role: litellm's model string and its call arguments. */
export interface Tau2Model {
  /** e.g. `openai/Qwen3-8B` (litellm's `openai/` provider: any OpenAI-compatible server). */
  model: string;
  /** litellm arguments: api_base, api_key, temperature, max_tokens, extra_body... */
  args: JsonObject;
}

/** What the driver is asked to run. */
export interface Tau2DriverRequest {
  domains: string[];
  split: string;
  limit: number | null;
  /** Task ids to leave out per domain (finished in an earlier run). */
  skip: Record<string, string[]>;
  trials: number;
  max_steps: number;
  max_errors: number;
  max_concurrency: number;
  seed: number;
  agent: Tau2Model;
  user: Tau2Model;
  judge: Tau2Model;
  /** `llm_agent`: tau2's own agent. `tagged`: the same agent naming its task in a header (scripted players). */
  agent_impl: "llm_agent" | "tagged";
  evaluation_type: string;
  /** Where tau2 saves its own results files (one per domain and run). */
  save_dir: string | null;
  /** Path pattern (`{domain}`) for the ground truth that scripted players read, or null. */
  ground_truth_file: string | null;
  log_level: string;
}

/** One finished simulation, scored by tau2. */
export interface Tau2SimulationEvent {
  event: "simulation";
  domain: string;
  taskId: string;
  seed: number;
  reward: number;
  success: boolean;
  terminationReason: string;
  messages: number;
  rewardBreakdown: Record<string, number>;
  note: string | null;
}

/** The driver's events. */
export type Tau2Event =
  | { event: "ready"; dataDir: string; version: string | null }
  | { event: "tasks"; domain: string; taskIds: string[]; todo: string[] }
  | Tau2SimulationEvent
  | {
      event: "simulation_error";
      domain: string;
      taskId: string;
      seed: number | null;
      message: string;
      /** E_POLICY_HTTP / E_POLICY_TIMEOUT when a model server failed the call; null (or absent) otherwise. */
      code?: string | null;
    }
  | {
      event: "domain_done";
      domain: string;
      passHatK: Record<string, number>;
      avgReward: number | null;
      simulations: number;
      savedTo?: string | null;
    }
  | { event: "error"; code: string; message: string; nextStep: string }
  | { event: "done" };

/** The repository's scripts/tau2/driver.py (three folders up from src/eval/tau2 and dist/eval/tau2). */
export function driverScript(): string {
  return fileURLToPath(new URL("../../../scripts/tau2/driver.py", import.meta.url));
}

/** The tau2 environment's Python: $SPADE_TAU2_DIR/bin/python, default ~/.cache/spade/tau2. */
export function tau2Python(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.SPADE_TAU2_DIR || join(env.HOME || homedir(), ".cache", "spade", "tau2");
  return join(dir, "bin", "python");
}

/** Options of one driver run. */
export interface RunDriverOptions {
  request: Tau2DriverRequest;
  onEvent: (event: Tau2Event) => void | Promise<void>;
  /** Default `tau2Python()`. */
  python?: string;
  signal?: AbortSignal;
  /** Extra environment for the harness (API keys stay in the caller's environment). */
  env?: NodeJS.ProcessEnv;
}

/** The result of a driver run that was not interrupted. */
export interface DriverOutcome {
  interrupted: boolean;
}

const MISSING_NEXT_STEP =
  "run `bash scripts/setup-tau2.sh` (npm test runs it), or set SPADE_TAU2_DIR to where it installed";

/**
 * Runs the driver to its end. Resolves when it finished (or was interrupted through `signal`);
 * rejects with E_DEPENDENCY_MISSING when the harness is not installed and E_TAU2_HARNESS when it
 * failed. Events are handled one at a time, in order.
 */
export async function runDriver(options: RunDriverOptions): Promise<DriverOutcome> {
  const python = options.python ?? tau2Python();
  if (!existsSync(python)) {
    throw new SpadeError(
      "E_DEPENDENCY_MISSING",
      `tau2-bench's harness is not installed (no ${python})`,
      { nextStep: MISSING_NEXT_STEP },
    );
  }
  const child = spawn(python, [driverScript()], {
    stdio: ["pipe", "ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env, PYTHONUNBUFFERED: "1" },
  });
  let stderrTail = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-4000);
  });
  let interrupted = false;
  const onAbort = () => {
    interrupted = true;
    child.kill("SIGTERM");
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  child.stdin!.end(JSON.stringify(options.request));
  const exited = new Promise<{ code: number | null; spawnError: Error | null }>((resolve) => {
    child.once("error", (err) => resolve({ code: null, spawnError: err }));
    child.once("close", (code) => resolve({ code, spawnError: null }));
    // Stopped on request: its exit is enough (a grandchild may hold stderr open).
    child.once("exit", (code) => {
      if (interrupted) resolve({ code, spawnError: null });
    });
  });
  let reported: { code: string; message: string; nextStep: string } | null = null;
  let handlerError: unknown = null;
  const eventStream = child.stdio[3] as NodeJS.ReadableStream & { destroy(): void };
  const lines = createInterface({ input: eventStream });
  // Once stopped on request, do not wait for the pipe's end: a grandchild may still hold it.
  child.once("exit", () => {
    if (!interrupted) return;
    lines.close();
    eventStream.destroy();
    child.stderr!.destroy();
  });
  try {
    for await (const line of lines) {
      if (line.trim() === "") continue;
      let event: Tau2Event;
      try {
        event = JSON.parse(line) as Tau2Event;
      } catch {
        continue;
      }
      if (event.event === "error") {
        reported = event;
        continue;
      }
      if (handlerError === null) {
        try {
          await options.onEvent(event);
        } catch (err) {
          handlerError = err;
          child.kill("SIGTERM");
        }
      }
    }
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  const { code, spawnError } = await exited;
  if (handlerError !== null) throw handlerError;
  if (spawnError)
    throw new SpadeError("E_DEPENDENCY_MISSING", `cannot start ${python}: ${spawnError.message}`, {
      nextStep: MISSING_NEXT_STEP,
      cause: spawnError,
    });
  if (interrupted) return { interrupted: true };
  if (reported) {
    const errorCode =
      reported.code === "E_DEPENDENCY_MISSING" ? "E_DEPENDENCY_MISSING" : "E_TAU2_HARNESS";
    throw new SpadeError(errorCode, reported.message, { nextStep: reported.nextStep });
  }
  if (code !== 0) {
    throw new SpadeError(
      "E_TAU2_HARNESS",
      `the tau2 driver exited with code ${code}: ${stderrTail.trim().split("\n").slice(-8).join("\n")}`,
      {
        nextStep: "read the harness output above; finished tasks are kept (continue with --resume)",
      },
    );
  }
  return { interrupted: false };
}
