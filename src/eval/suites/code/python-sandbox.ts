/**
 * @module eval/suites/code/python-sandbox
 * Running untrusted Python 3 (model-written solutions plus their tests): one child process per
 * program, in fresh namespaces with no network, as an unprivileged user, under CPU, memory, file
 * size, process and open-file limits, in cgroups of its own (memory, cpu, pids) where the
 * machine offers them, in a scratch directory removed afterwards, with a clean environment and a
 * wall-clock limit; at most `maxConcurrency` at once.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { SpadeError } from "../../../errors.js";
import { Limiter } from "../../../policy/index.js";
import { OOM_FIRST_SH } from "../../../sandbox/oom.js";
import {
  confinePrefix,
  DEFAULT_ISOLATION_COMMANDS,
  HOST_PID_ENV,
  planIsolation,
  rootLayout,
  runQuiet,
  type IsolationCommands,
  type IsolationPlan,
  type RootEntry,
} from "./isolation.js";
import { classifyRun, type PythonOutcome } from "./outcome.js";
import { CONTROLLERS, RunCgroup, type CgroupParent, type Controller } from "./cgroup.js";
import { resolveCgroups, type CgroupSetting } from "./cgroup-find.js";
import { TailBuffer } from "./tail-buffer.js";

/** Limits of one run. */
export interface PythonLimits {
  /** Wall-clock limit; the whole process tree is killed after it. Default 10,000 ms. */
  timeoutMs: number;
  /** CPU seconds (RLIMIT_CPU soft limit; SIGXCPU). Default 10. */
  cpuSeconds: number;
  /**
   * Address space of each process (RLIMIT_AS); with a memory cgroup (see `cgroups`), also
   * what all of the run's processes hold together, its scratch and /dev/shm files aside.
   * Default 1 GiB.
   */
  memoryBytes: number;
  /** Largest file the program may write (RLIMIT_FSIZE). Default 16 MiB. */
  fileBytes: number;
  /**
   * Bytes all files of the scratch directory hold together (a tmpfs of this size and 4096
   * inodes; host memory, not counted in `memoryBytes`). Default 64 MiB.
   */
  scratchBytes: number;
  /** Processes of the sandbox user (RLIMIT_NPROC; a fork bomb stops here). Default 64. */
  processes: number;
  /** Open file descriptors (RLIMIT_NOFILE). Default 64. */
  openFiles: number;
  /** Bytes kept of stdout and of stderr each (the end is kept: tracebacks end there). Default 64 KiB. */
  outputBytes: number;
}

/** The defaults of `PythonLimits`. */
export const DEFAULT_PYTHON_LIMITS: Readonly<PythonLimits> = Object.freeze({
  timeoutMs: 10_000,
  cpuSeconds: 10,
  memoryBytes: 1024 * 1024 * 1024,
  fileBytes: 16 * 1024 * 1024,
  scratchBytes: 64 * 1024 * 1024,
  processes: 64,
  openFiles: 64,
  outputBytes: 64 * 1024,
});

/** Options of `PythonSandbox.create`. */
export interface PythonSandboxOptions {
  /**
   * Python 3 interpreter. Default: `python3` from PATH, or `/usr/bin/python3` when the former
   * cannot run as the unprivileged sandbox user (e.g. a pyenv build under /root).
   */
  python?: string;
  /** Limits of each run; missing fields take `DEFAULT_PYTHON_LIMITS`. */
  limits?: Partial<PythonLimits>;
  /** Runs at once. Default: min(4, available CPUs). */
  maxConcurrency?: number;
  /** Run WITHOUT namespaces (no network cut) when they are unavailable. Default false: refuse. */
  allowNoIsolation?: boolean;
  /** Isolation commands (tests replace them). */
  commands?: Partial<IsolationCommands>;
  /** Where scratch directories are made; the sandbox user must be able to enter it. Default the OS temp dir. */
  tmpDir?: string;
  /**
   * Cgroups per run: memory, capping what all its processes hold together (RLIMIT_AS caps each
   * alone, and a run may fork), and where they can be had cpu (an equal share per run, however
   * many sessions it makes) and pids (`processes` of its own). `auto` (default) where this
   * process's cgroups allow (the v1 hierarchies, or v2 with the controllers for its children),
   * `off`, `self` (this process's own v2 cgroup, delegated to it), or a cgroup directory to make
   * them in; a named v2 one that holds this process is vacated first (cgroup-find.ts). Refused
   * with E_SANDBOX_UNAVAILABLE if unusable.
   */
  cgroups?: CgroupSetting;
}

/** How a sandbox's runs are confined (`PythonSandbox.confinement`). */
export type SandboxConfinement = {
  /** `user` or `root` (namespaces, as whom), `none` (--allow-no-isolation: no network cut). */
  isolation: IsolationPlan["mode"];
  /** The cgroups of each run, or null (per-process caps only). */
  cgroups: { version: 1 | 2; controllers: Controller[] } | null;
  /** The limits of each run (a benchmark may override some per run). */
  limits: { [K in keyof PythonLimits]: number };
};

/** What one run produced. */
export interface PythonRunResult {
  /** Why it ended. */
  outcome: PythonOutcome;
  /** The exception line or signal behind the outcome ("" when passed). */
  detail: string;
  /** Exit status of the sandbox, or null when killed by a signal. */
  exitCode: number | null;
  /** The last `outputBytes` of stdout. */
  stdout: string;
  /** The last `outputBytes` of stderr. */
  stderr: string;
  /** Wall time of the run. */
  durationMs: number;
}

/**
 * A clean environment: no inherited variables, home and temp inside the scratch directory, and
 * one thread for OpenMP, OpenBLAS and MKL as human-eval's and LiveCodeBench's `reliability_guard`
 * sets it (a grade then does not depend on the machine's cores: a BLAS pool of one thread per
 * core would meet `processes`, which counts threads too).
 */
function cleanEnv(dir: string, diesWithHost: boolean): NodeJS.ProcessEnv {
  return {
    ...(diesWithHost ? { [HOST_PID_ENV]: String(process.pid) } : {}),
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: dir,
    TMPDIR: dir,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    OMP_NUM_THREADS: "1",
  };
}

/** Python: the executable, then the real directories the interpreter needs (its prefixes, its binary's). */
const INTERPRETER_DIRS_PY = [
  "import json, os, sys",
  "real = os.path.realpath",
  "dirs = [real(sys.base_prefix), real(sys.prefix), os.path.dirname(real(sys.executable))]",
  "print(json.dumps([sys.executable, *dirs]))",
].join("\n");

/** The interpreter `command` names (absolute) and the directories a jail must show it, or null. */
async function findInterpreter(command: string): Promise<{ path: string; dirs: string[] } | null> {
  const resolved = await runQuiet([command, "-I", "-c", INTERPRETER_DIRS_PY]);
  if (resolved.code !== 0) return null;
  try {
    const [path, ...dirs] = JSON.parse(resolved.stdout) as string[];
    return path ? { path, dirs } : null;
  } catch {
    return null;
  }
}

/** Runs Python programs in isolation. Create with `PythonSandbox.create`. */
export class PythonSandbox {
  private readonly limit: Limiter;

  private constructor(
    /** The isolation in force. */
    readonly isolation: IsolationPlan,
    /** Absolute path of the interpreter. */
    readonly python: string,
    /** Limits of each run. */
    readonly limits: Readonly<PythonLimits>,
    /** The root file system runs see: the system's directories and the interpreter's prefix. */
    readonly layout: readonly RootEntry[],
    /**
     * Where each run's cgroups are made (memory; cpu and pids where they can be had); null when
     * runs have none (per-process caps only).
     */
    readonly cgroup: CgroupParent | null,
    maxConcurrency: number,
    private readonly prlimit: string,
    private readonly tmpDir: string,
  ) {
    this.limit = new Limiter(Math.max(1, Math.floor(maxConcurrency)));
  }

  /**
   * Probes isolation and the interpreter (a smoke run inside the sandbox). Throws
   * E_SANDBOX_UNAVAILABLE when the network cannot be cut (unless `allowNoIsolation`), when
   * `prlimit` is missing, or when no Python 3 runs inside the sandbox.
   */
  static async create(options: PythonSandboxOptions = {}): Promise<PythonSandbox> {
    const commands = { ...DEFAULT_ISOLATION_COMMANDS, ...options.commands };
    const plan = await planIsolation(commands, options.allowNoIsolation ?? false);
    const cgroup = await resolveCgroups(options.cgroups ?? "auto");
    const limits = { ...DEFAULT_PYTHON_LIMITS, ...options.limits };
    const concurrency = options.maxConcurrency ?? Math.min(4, availableParallelism());
    const tmpDir = options.tmpDir ?? tmpdir();
    const candidates =
      options.python !== undefined ? [options.python] : ["python3", "/usr/bin/python3"];
    const problems: string[] = [];
    for (const candidate of candidates) {
      const found = await findInterpreter(candidate);
      if (!found) {
        problems.push(`${candidate}: not runnable`);
        continue;
      }
      const { path, dirs } = found;
      const layout = rootLayout(dirs);
      const sandbox = new PythonSandbox(
        plan,
        path,
        limits,
        layout,
        cgroup,
        concurrency,
        commands.prlimit,
        tmpDir,
      );
      const smoke = await sandbox.run("import sys\nassert sys.version_info[0] == 3\n");
      if (smoke.outcome === "passed") return sandbox;
      problems.push(
        `${path}: ${smoke.outcome} ${smoke.detail} ${smoke.stderr.trim().slice(-200)}`.trim(),
      );
    }
    throw new SpadeError(
      "E_SANDBOX_UNAVAILABLE",
      `no Python 3 interpreter runs inside the sandbox (${problems.join("; ")})`,
      {
        nextStep:
          "install python3 where the unprivileged user can execute it, or pass its path with --python",
      },
    );
  }

  /**
   * How runs are confined, as results record it (a grade can depend on it: a run killed at a
   * memory cgroup's cap passes where only each process is capped): the isolation mode, the
   * cgroups per run (null: none), and the limits of each run.
   */
  confinement(): SandboxConfinement {
    const cgroups = this.cgroup && {
      version: this.cgroup.version,
      controllers: CONTROLLERS.filter((c) => this.cgroup?.dirs[c] != null),
    };
    return { isolation: this.isolation.mode, cgroups, limits: { ...this.limits } };
  }

  /**
   * Runs `source` as `main.py`; never rejects for the program's own failures (they are the
   * result). `limits` overrides the sandbox's limits for this run (e.g. a benchmark's time limit).
   */
  run(source: string, limits?: Partial<PythonLimits>): Promise<PythonRunResult> {
    const merged = limits ? { ...this.limits, ...limits } : this.limits;
    return this.limit.run(() => this.runNow(source, merged));
  }

  private argv(l: Readonly<PythonLimits>, group: RunCgroup | null): string[] {
    const limits = [
      this.prlimit,
      `--as=${l.memoryBytes}`,
      `--cpu=${l.cpuSeconds}:${l.cpuSeconds + 1}`,
      `--fsize=${l.fileBytes}`,
      `--nproc=${l.processes}`,
      `--nofile=${l.openFiles}`,
      "--core=0",
      "--",
    ];
    // A shell is the namespace's PID 1 so Python gets normal signal handling (PID 1 ignores
    // SIGXCPU) and its status comes back as 128 + signal; when it exits, the kernel kills
    // everything left in the namespace (forked children included). It and all it starts are
    // the first the kernel kills when memory runs out (sandbox/oom.ts).
    const init = ["/bin/sh", "-c", `${OOM_FIRST_SH}; "$@"; exit $?`, "spade-init"];
    const confine =
      this.isolation.mode === "none"
        ? []
        : confinePrefix(
            this.python,
            this.isolation.mode === "user",
            l.fileBytes,
            l.scratchBytes,
            this.layout,
          );
    return [
      ...(group ? group.joinPrefix() : []),
      ...this.isolation.namespacePrefix,
      ...confine,
      ...limits,
      ...this.isolation.dropPrefix,
      ...init,
      this.python,
      "-I",
      "-B",
      "main.py",
    ];
  }

  private async runNow(source: string, limits: Readonly<PythonLimits>): Promise<PythonRunResult> {
    // All runs share one sandbox user, so a run's directory sits, under an unguessable name,
    // inside a parent the user may enter but not list: concurrent runs cannot find each other.
    const outer = await mkdtemp(join(this.tmpDir, "spade-py-"));
    const dir = join(outer, randomBytes(16).toString("hex"));
    const started = Date.now();
    let group: RunCgroup | null = null;
    try {
      await chmod(outer, 0o711);
      await mkdir(dir, { mode: 0o700 });
      await writeFile(join(dir, "main.py"), source, { mode: 0o600 });
      if (this.isolation.runAs) {
        await chown(dir, this.isolation.runAs.uid, this.isolation.runAs.gid);
        await chown(join(dir, "main.py"), this.isolation.runAs.uid, this.isolation.runAs.gid);
      }
      if (this.cgroup) {
        // Its files are host memory too: the scratch tmpfs and /dev/shm are charged to the run.
        const cap = limits.memoryBytes + limits.scratchBytes + limits.fileBytes;
        group = await RunCgroup.create(this.cgroup, {
          memoryBytes: cap,
          processes: limits.processes,
        });
      }
      const argv = this.argv(limits, group);
      const child = spawn(argv[0] ?? "", argv.slice(1), {
        cwd: dir,
        env: cleanEnv(dir, this.isolation.diesWithHost),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      const stdout = new TailBuffer(limits.outputBytes);
      const stderr = new TailBuffer(limits.outputBytes);
      child.stdout.on("data", (d: Buffer) => stdout.push(d));
      child.stderr.on("data", (d: Buffer) => stderr.push(d));
      let timedOut = false;
      const killTree = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killTree();
      }, limits.timeoutMs);
      const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>(
        (resolve) => {
          child.on("error", (err) => {
            stderr.push(Buffer.from(`\nspawn failed: ${err.message}\n`));
            resolve({ code: 127, signal: null });
          });
          child.on("close", (c, s) => resolve({ code: c, signal: s }));
        },
      );
      clearTimeout(timer);
      // Without a PID namespace (mode `none`) children may outlive the shell: kill its group.
      // With one, they are already dead, and a reaped group id must not be signalled again.
      if (this.isolation.mode === "none") killTree();
      const err = stderr.text();
      const memoryKills = group ? await group.memoryKills() : 0;
      const { outcome, detail } = classifyRun({
        exitCode: code,
        signal,
        timedOut,
        stderr: err,
        memoryKills,
      });
      return {
        outcome,
        detail,
        exitCode: code,
        stdout: stdout.text(),
        stderr: err,
        durationMs: Date.now() - started,
      };
    } finally {
      try {
        await group?.remove();
      } finally {
        await rm(outer, { recursive: true, force: true });
      }
    }
  }
}
