/**
 * @module eval/rg/worker
 * The client of the reasoning-gym worker (`worker.py`): one long-lived Python process, spoken to
 * in JSON lines over stdin/stdout, that generates hard-split problems and grades answers with the
 * real `reasoning_gym` package. Requests are answered in order; a crash or a timeout fails the
 * requests in flight with E_WORKER and the next request starts a fresh process.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { SpadeError } from "../../errors.js";
import type { JsonObject } from "../../env/index.js";

/** The worker program (beside this module's source; `dist/` resolves to the same file). */
export const RG_WORKER_SCRIPT = fileURLToPath(
  new URL("../../../src/eval/rg/worker.py", import.meta.url),
);

/** The project's virtual environment interpreter (made by scripts/setup-python.sh). */
export const PROJECT_VENV_PYTHON = fileURLToPath(
  new URL("../../../.venv/bin/python", import.meta.url),
);

/** The interpreter used when none is given: the project's .venv if present, else `python3`. */
export function defaultRgPython(): string {
  return existsSync(PROJECT_VENV_PYTHON) ? PROJECT_VENV_PYTHON : "python3";
}

/** Options of `RgWorker`. */
export interface RgWorkerOptions {
  /** Python interpreter with `reasoning_gym` installed. Default `defaultRgPython()`. */
  python?: string;
  /**
   * Longest run of one request inside the worker; it then answers E_WORKER and stays up. Default
   * 240 s: one knight_swap problem takes about a minute to generate, and some number_sequence
   * problems never finish.
   */
  requestSeconds?: number;
  /** Longest wait for one answer before the process is killed. Default `requestSeconds` + 60 s. */
  timeoutMs?: number;
  /** The program to run (tests replace it). Default `RG_WORKER_SCRIPT`. */
  script?: string;
}

/** A generated problem. */
export interface RgProblem {
  /** The question as the reference's environment shows it (with its `\boxed{}` line). */
  question: string;
  /** The dataset index the episode drew, as reasoning-gym records it. */
  index: number | null;
  /** A reference answer (the entry's, or one built from its metadata), or null when there is none. */
  reference: string | null;
  /** Where the reference answer came from (`answer`, `metadata.possible_answer`, ...). */
  referenceSource: string;
}

/** A graded answer. */
export interface RgScore {
  /** `score_answer`'s value in [0, 1]. */
  score: number;
  /** What was extracted from the text (`<answer>` payload or `\boxed{}`), or null. */
  extracted: string | null;
}

interface Pending {
  resolve: (value: JsonObject) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

const STDERR_KEPT_CHARS = 4000;

/** One reasoning-gym worker process (started on first use). */
export class RgWorker {
  private readonly python: string;
  private readonly timeoutMs: number;
  private readonly requestSeconds: number;
  private readonly script: string;
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = "";
  private closed = false;

  constructor(options: RgWorkerOptions = {}) {
    this.python = options.python ?? defaultRgPython();
    this.requestSeconds = options.requestSeconds ?? 240;
    this.timeoutMs = options.timeoutMs ?? (this.requestSeconds + 60) * 1000;
    this.script = options.script ?? RG_WORKER_SCRIPT;
  }

  /** Checks that the worker runs and `reasoning_gym` imports; its versions. E_DEPENDENCY_MISSING otherwise. */
  async hello(): Promise<{ python: string; reasoningGym: string }> {
    const r = await this.request({ op: "hello" });
    return { python: String(r.python), reasoningGym: String(r.reasoningGym) };
  }

  /** The problem of `episode` (0-based) of dataset `dataset` with keyword arguments `config`. */
  async generate(dataset: string, config: JsonObject, episode: number): Promise<RgProblem> {
    const r = await this.request({ op: "generate", dataset, config, episode });
    return {
      question: String(r.question),
      index: typeof r.index === "number" ? r.index : null,
      reference: typeof r.reference === "string" ? r.reference : null,
      referenceSource: String(r.referenceSource),
    };
  }

  /** Grades the model's whole answer text on that problem. */
  async score(
    dataset: string,
    config: JsonObject,
    episode: number,
    text: string,
  ): Promise<RgScore> {
    const r = await this.request({ op: "score", dataset, config, episode, text });
    if (typeof r.score !== "number" || !Number.isFinite(r.score)) {
      throw new SpadeError(
        "E_WORKER",
        `reasoning-gym worker returned a non-numeric score for ${dataset}`,
        { nextStep: "report this dataset" },
      );
    }
    return { score: r.score, extracted: typeof r.extracted === "string" ? r.extracted : null };
  }

  /** Ends the process; later requests reject with E_WORKER. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop(new SpadeError("E_WORKER", "reasoning-gym worker closed"));
  }

  private start(): ChildProcessWithoutNullStreams {
    const env = { ...process.env, SPADE_RG_REQUEST_SECONDS: String(this.requestSeconds) };
    const child = spawn(this.python, ["-u", this.script], { stdio: ["pipe", "pipe", "pipe"], env });
    this.child = child;
    this.stderrTail = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_KEPT_CHARS);
    });
    createInterface({ input: child.stdout }).on("line", (line) => this.onLine(line));
    child.on("error", (err) => {
      if (this.child !== child) return;
      this.stop(
        new SpadeError(
          "E_DEPENDENCY_MISSING",
          `cannot start Python "${this.python}" for the reasoning-gym worker: ${err.message}`,
          {
            nextStep:
              "run `bash scripts/setup-python.sh` (it makes .venv with reasoning-gym) or pass --python",
            cause: err,
          },
        ),
      );
    });
    child.on("exit", (code, signal) => {
      if (this.child !== child) return;
      this.stop(this.crashError(`exited (${signal ?? `status ${code}`})`));
    });
    // A request written to a process that died is reported by "exit"; ignore the pipe error.
    child.stdin.on("error", () => {});
    return child;
  }

  private crashError(what: string): SpadeError {
    const tail = this.stderrTail.trim().split("\n").slice(-5).join(" | ");
    return new SpadeError("E_WORKER", `reasoning-gym worker ${what}${tail ? `: ${tail}` : ""}`, {
      nextStep:
        "check the Python environment (`bash scripts/setup-python.sh`); the next request starts a new worker",
    });
  }

  private stop(err: unknown): void {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(err);
    }
  }

  private onLine(line: string): void {
    let message: JsonObject;
    try {
      message = JSON.parse(line) as JsonObject;
    } catch {
      this.stop(
        this.crashError(`wrote a line that is not JSON (${JSON.stringify(line.slice(0, 200))})`),
      );
      return;
    }
    const id = typeof message.id === "number" ? message.id : -1;
    const p = this.pending.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(id);
    if (message.ok === true) {
      p.resolve(message);
      return;
    }
    const error = String(message.error ?? "unknown error");
    if (message.kind === "import") {
      p.reject(
        new SpadeError(
          "E_DEPENDENCY_MISSING",
          `the reasoning-gym worker cannot import reasoning_gym with ${this.python}: ${error}`,
          {
            nextStep:
              "run `bash scripts/setup-python.sh` (requirements-test.txt pins reasoning-gym) or pass --python with an interpreter that has it",
          },
        ),
      );
    } else {
      p.reject(
        new SpadeError("E_WORKER", `reasoning-gym worker: ${error}`, {
          nextStep: "the request failed inside reasoning_gym; the episode is recorded as failed",
        }),
      );
    }
  }

  private request(body: JsonObject): Promise<JsonObject> {
    if (this.closed)
      return Promise.reject(new SpadeError("E_WORKER", "reasoning-gym worker closed"));
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.child === child)
          this.stop(this.crashError(`did not answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      child.stdin.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }
}

/**
 * Several workers, each dataset always served by the same one (its problems are cached there and
 * some datasets take a minute to generate one problem, which then blocks only that worker).
 */
export class RgWorkerPool {
  private readonly workers: RgWorker[];

  constructor(size: number, options: RgWorkerOptions = {}) {
    if (!Number.isInteger(size) || size < 1)
      throw new SpadeError(
        "E_CONFIG",
        `reasoning-gym workers must be an integer >= 1 (got ${size})`,
      );
    this.workers = Array.from({ length: size }, () => new RgWorker(options));
  }

  /** The worker of a dataset (a fixed hash of its name). */
  workerFor(dataset: string): RgWorker {
    let hash = 0;
    for (const ch of dataset) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    return this.workers[hash % this.workers.length] as RgWorker;
  }

  /** Checks the first worker (same interpreter for all). */
  hello(): Promise<{ python: string; reasoningGym: string }> {
    return (this.workers[0] as RgWorker).hello();
  }

  /** See `RgWorker.generate`. */
  generate(dataset: string, config: JsonObject, episode: number): Promise<RgProblem> {
    return this.workerFor(dataset).generate(dataset, config, episode);
  }

  /** See `RgWorker.score`. */
  score(dataset: string, config: JsonObject, episode: number, text: string): Promise<RgScore> {
    return this.workerFor(dataset).score(dataset, config, episode, text);
  }

  /** Ends every worker. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}

/** What the environment needs of a worker or a pool. */
export type RgService = Pick<RgWorker, "generate" | "score">;
