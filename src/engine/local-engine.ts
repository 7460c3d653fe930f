/**
 * @module engine/local-engine
 * A Tinker-compatible training engine started as a child process: SkyRL's server through
 * scripts/engine/launch.py, waited for with progress, stopped with its whole process group, and
 * reported with its log tail when it fails to start or dies. Shared by `spade run --engine local`
 * and the engine tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath } from "node:url";
import { SpadeError } from "../errors.js";

/** The launcher script, in the package (`src/engine` and `dist/engine` are both two levels below the root). */
export const ENGINE_LAUNCHER = fileURLToPath(
  new URL("../../scripts/engine/launch.py", import.meta.url),
);

/** The longest unfinished stdout line kept while looking for the ready lines (they are short). */
export const MAX_READY_LINE_CHARS = 64 * 1024;

/**
 * The launcher's ready lines (`SPADE_ENGINE_MODEL=...`, `SPADE_ENGINE_URL=...`) found in its stdout
 * a chunk at a time. Only whole lines are read, so a line cut between chunks is not taken half, and
 * only the unfinished last one is kept (at most MAX_READY_LINE_CHARS): SkyRL logs to stdout for
 * the engine's whole life, which must cost no memory here.
 */
export class ReadyLines {
  url: string | undefined;
  model: string | undefined;
  #partial = "";
  readonly #decoder = new StringDecoder("utf8");

  /** Reads one chunk of stdout; true once both lines have been seen. */
  feed(chunk: Buffer): boolean {
    const lines = (this.#partial + this.#decoder.write(chunk)).split("\n");
    this.#partial = (lines.pop() ?? "").slice(-MAX_READY_LINE_CHARS);
    for (const line of lines) {
      this.url ??= /SPADE_ENGINE_URL=(\S+)/.exec(line)?.[1];
      this.model ??= /SPADE_ENGINE_MODEL=(.+)/.exec(line)?.[1]?.trim() || undefined;
    }
    return this.url !== undefined && this.model !== undefined;
  }

  /** Characters held for the unfinished last line. */
  get bufferedChars(): number {
    return this.#partial.length;
  }
}

/** SkyRL's training backends. */
export type EngineBackend = "jax" | "fsdp" | "megatron";

/** How to start a local engine. */
export interface LocalEngineOptions {
  /** The engine venv's Python (scripts/setup-engine.sh prints it). */
  python: string;
  /** A local model folder (config, safetensors, tokenizer) or a Hugging Face name. */
  baseModel: string;
  /** The engine's database and checkpoints; kept, so a resumed run finds its saved weights. */
  workDir: string;
  /** Port on 127.0.0.1; 0 (default) for any free one. */
  port?: number;
  /** SkyRL backend. Default `jax`. */
  backend?: EngineBackend;
  /** SkyRL's `--backend-config` (e.g. `{ train_micro_batch_size: 1 }`). Default `{}`. */
  backendConfig?: Record<string, unknown>;
  /** Time allowed until the engine is ready. Default 600,000 ms. */
  readyTimeoutMs?: number;
  /** Niceness of the engine's processes (0: as this process). Default 0. */
  nice?: number;
  /** Environment of the child. Default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Progress while waiting: called every `progressEveryMs` with the seconds so far and the log's last line. */
  onProgress?: (waitedSeconds: number, lastLogLine: string) => void;
  /** Default 5,000. */
  progressEveryMs?: number;
  /** A file the engine's log is also written to (appended). Default none. */
  logFile?: string;
  /** Launcher script. Default `ENGINE_LAUNCHER`. */
  launcher?: string;
  /** Cancels the start (Ctrl-C): the child is stopped and E_CANCELLED thrown. */
  signal?: AbortSignal;
}

/** How a child process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running local engine. */
export interface LocalEngine {
  /** Server root, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The base model as the engine names it (what `create_model` must be given). */
  readonly baseModel: string;
  /** The local folder of the base model (its tokenizer files render prompts). */
  readonly modelDir: string;
  /** Seconds from spawn to ready. */
  readonly readySeconds: number;
  /** Process id of the launcher, the leader of the engine's process group. */
  readonly pid: number;
  /** The last 200,000 characters of the engine's log (stdout and stderr). */
  log(): string;
  /** Resolves when the engine's launcher exits, for whatever reason. */
  readonly exited: Promise<ExitStatus>;
  /** True once `stop()` was called (an exit after it is not a crash). */
  readonly stopping: boolean;
  /** Stops the engine's whole process group (SIGTERM, SIGKILL after `graceMs`, default 15,000) and waits for it. */
  stop(graceMs?: number): Promise<void>;
}

/** The last `lines` lines of a log, for error messages. */
export function logTail(log: string, lines = 20): string {
  return log.trimEnd().split("\n").slice(-lines).join("\n");
}

/** Resolves when nothing listens on `port` of 127.0.0.1; E_PORT_IN_USE otherwise. Port 0 always passes. */
export async function checkPortFree(port: number, flag = "--engine-port"): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EADDRINUSE") {
        reject(
          new SpadeError("E_PORT_IN_USE", `port ${port} on 127.0.0.1 is already in use`, {
            nextStep: `stop what listens there, or pass another ${flag} (0: any free port)`,
          }),
        );
      } else
        reject(
          new SpadeError(
            "E_PORT_IN_USE",
            `cannot listen on port ${port} of 127.0.0.1 (${err.message})`,
            { nextStep: `pass another ${flag} (0: any free port)` },
          ),
        );
    });
    server.listen(port, "127.0.0.1", () => server.close(() => resolve()));
  });
}

/** Sends `signal` to the process group led by `pid` (the launcher and the engine it started); ignores a group already gone. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group has exited.
  }
}

/**
 * Starts the engine and resolves once it answers and has loaded the base model (the launcher
 * prints `SPADE_ENGINE_URL=...` then). E_DEPENDENCY_MISSING when the engine's Python is absent,
 * E_PORT_IN_USE for a taken port, E_ENGINE_START with the log tail when it exits or times out
 * first, E_CANCELLED when `signal` fires. In every failure the child's process group is gone
 * before the promise rejects.
 */
export async function startLocalEngine(options: LocalEngineOptions): Promise<LocalEngine> {
  if (!existsSync(options.python)) {
    throw new SpadeError(
      "E_DEPENDENCY_MISSING",
      `the training engine is not installed (no ${options.python})`,
      {
        nextStep:
          "run `bash scripts/setup-engine.sh` (about 1 GB, cached in ~/.cache/spade/engine), or set SPADE_ENGINE_DIR to an installed engine",
      },
    );
  }
  const port = options.port ?? 0;
  await checkPortFree(port);
  if (options.signal?.aborted)
    throw new SpadeError("E_CANCELLED", "the engine start was cancelled");
  mkdirSync(options.workDir, { recursive: true });
  const started = Date.now();
  const args = [
    options.launcher ?? ENGINE_LAUNCHER,
    "--base-model",
    options.baseModel,
    "--work-dir",
    options.workDir,
    "--port",
    String(port),
    "--backend",
    options.backend ?? "jax",
    "--backend-config",
    JSON.stringify(options.backendConfig ?? {}),
    "--nice",
    String(options.nice ?? 0),
  ];
  // Its own process group: stop() signals the launcher and the engine process it starts together.
  const child: ChildProcess = spawn(options.python, args, {
    env: { PYTHONDONTWRITEBYTECODE: "1", ...(options.env ?? process.env) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pid = child.pid ?? -1;
  let log = "";
  const readyLines = new ReadyLines();
  let stopping = false;
  let ready = false;
  // SkyRL logs to stdout, Python warnings go to stderr: one log of both, its tail only.
  const file = options.logFile ? createWriteStream(options.logFile, { flags: "a" }) : null;
  file?.on("error", () => {}); // the log file is a convenience; the tail in memory is what errors carry
  const append = (c: Buffer) => {
    log = (log + c.toString()).slice(-200_000);
    file?.write(c);
  };
  child.stderr!.on("data", append);
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once("error", (err) => {
      append(Buffer.from(`spawn failed: ${err.message}\n`));
      resolve({ code: -1, signal: null });
    });
    child.once("exit", (code, signal) => {
      file?.end();
      resolve({ code, signal });
    });
  });
  const stop = async (graceMs = 15_000) => {
    stopping = true;
    if (pid < 0) return;
    signalGroup(pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(pid, "SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
    // The engine process may outlive the launcher by a moment; the group goes with SIGKILL.
    signalGroup(pid, "SIGKILL");
  };
  const timeoutMs = options.readyTimeoutMs ?? 600_000;
  return new Promise<LocalEngine>((resolve, reject) => {
    const fail = (err: SpadeError) => {
      clearTimeout(timer);
      clearInterval(ticker);
      options.signal?.removeEventListener("abort", onAbort);
      void stop(2_000).then(() => reject(err));
    };
    const onAbort = () =>
      fail(new SpadeError("E_CANCELLED", "the engine start was cancelled; the engine was stopped"));
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => {
      fail(
        new SpadeError(
          "E_ENGINE_START",
          `the engine was not ready within ${Math.round(timeoutMs / 1000)} s; the last lines of its log:\n${logTail(log)}`,
          {
            nextStep:
              "a large model loads slowly on CPU: raise --engine-start-timeout, or use a smaller --base-model",
          },
        ),
      );
    }, timeoutMs);
    const ticker = setInterval(
      () => options.onProgress?.(Math.round((Date.now() - started) / 1000), logTail(log, 1)),
      options.progressEveryMs ?? 5_000,
    );
    child.stdout!.on("data", (c: Buffer) => {
      append(c);
      if (ready || !readyLines.feed(c)) return;
      const { url, model } = readyLines as { url: string; model: string };
      ready = true;
      clearTimeout(timer);
      clearInterval(ticker);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        url,
        baseModel: model,
        modelDir: model,
        readySeconds: (Date.now() - started) / 1000,
        pid,
        log: () => log,
        exited,
        get stopping() {
          return stopping;
        },
        stop,
      });
    });
    void exited.then(({ code, signal }) => {
      if (stopping || ready) return;
      fail(
        new SpadeError(
          "E_ENGINE_START",
          `the engine exited before it was ready (${signal ?? `exit code ${code}`}); the last lines of its log:\n${logTail(log)}`,
          {
            nextStep: "read the log above; `spade doctor` checks the engine's installation",
          },
        ),
      );
    });
  });
}
