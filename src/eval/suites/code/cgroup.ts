/**
 * @module eval/suites/code/cgroup
 * Cgroups per run, where the machine lets SPADE make them: the cap on what all of a run's
 * processes hold together, a fair share of the CPU between runs, and a process cap of the run's
 * own.
 *
 * Memory: RLIMIT_AS is per process and a run may fork up to `processes` children, each with an
 * address space of its own and its own memfd files (pages no rlimit counts): four children of a
 * 256 MiB run held 800 MiB, and at the defaults (64 processes of 1 GiB) a run could take more
 * than the host has. The kernel charges a cgroup's anonymous memory, its tmpfs and memfd pages
 * and its kernel objects, and kills inside it at the cap.
 *
 * CPU: the scheduler shares the CPU between sessions (autogroups) of the root cgroup, so a run
 * whose children each called `setsid()` took a share per child: beside 40 of them a concurrent
 * run's 0.94 s of work took 5.74 s, enough to fail a correct solution on its time limit. In a
 * cgroup of its own each run weighs the same, however many processes or sessions it makes.
 *
 * Processes: RLIMIT_NPROC counts per user, and where runs share one (`nobody`, in mode `root`)
 * one run's fork bomb took the others' processes; `pids.max` is the run's own.
 *
 * Where they are made is found by cgroup-find.ts.
 */
import { randomBytes } from "node:crypto";
import { readlinkSync } from "node:fs";
import { access, appendFile, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The controllers a run's cgroups use. */
export type Controller = "memory" | "cpu" | "pids";

/** The controllers, memory (required) first. */
export const CONTROLLERS: readonly Controller[] = ["memory", "cpu", "pids"];

/** Where runs' cgroups are made. */
export interface CgroupParent {
  /** 1: the v1 hierarchies (one per controller); 2: the unified hierarchy. */
  version: 1 | 2;
  /**
   * The directory per controller (v2: the same one for all); null where the controller cannot
   * be had. Memory is always there.
   */
  dirs: { memory: string; cpu: string | null; pids: string | null };
}

/** This process's PID namespace's inode ("0" without /proc): pids compare within one only. */
function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
  } catch {
    return "0";
  }
}

/**
 * The name prefix of the cgroups of runs that the host `pid` (of this PID namespace) made: a
 * leftover is known as a dead host's by it, and hosts of other PID namespaces (containers that
 * share a hierarchy) are never taken for dead.
 */
export function runCgroupPrefix(pid: number = process.pid): string {
  return `spade-py-${pidNamespace()}-${pid}-`;
}

/** The name of the leaf that a named v2 cgroup's processes move into (cgroup-find.ts's `vacate`). */
export function hostLeafName(pid: number = process.pid): string {
  return `spade-host-${pidNamespace()}-${pid}`;
}

/**
 * The pid of the host (of this PID namespace) whose run's cgroup, or leaf (cgroup-find.ts's
 * `vacate`), is named `name`, else null.
 */
export function runCgroupHost(name: string): number | null {
  const host = new RegExp(`^spade-(?:py|host)-${pidNamespace()}-(\\d+)(?:-|$)`).exec(name)?.[1];
  return host === undefined ? null : Number(host);
}

/** Processes a run's jail holds besides the program's (the namespaces' parent, the init shell). */
const JAIL_PROCESSES = 4;

/** Whether `file` can be read (the cgroup file exists). */
export async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Limits a run's cgroups hold it to. */
export interface RunCgroupLimits {
  /** What all its processes hold together (memory, no swap). */
  memoryBytes: number;
  /** Its processes and threads (pids; the jail's own come on top). */
  processes: number;
}

/** The cgroups of one run: made with its caps, joined by the run's first process, removed after. */
export class RunCgroup {
  private constructor(
    /** The run's cgroup directories, the memory one first (v2: that one alone). */
    readonly dirs: readonly string[],
    private readonly version: 1 | 2,
  ) {}

  /** The run's memory cgroup directory. */
  get dir(): string {
    return this.dirs[0] as string;
  }

  /** Makes the run's cgroups under `parent`, with `limits`. */
  static async create(parent: CgroupParent, limits: RunCgroupLimits): Promise<RunCgroup> {
    const name = `${runCgroupPrefix()}${randomBytes(6).toString("hex")}`;
    const parents = CONTROLLERS.map((c) => parent.dirs[c]).filter((d): d is string => d !== null);
    const made: string[] = [];
    const group = new RunCgroup(made, parent.version);
    try {
      for (const dir of new Set(parents)) {
        await mkdir(join(dir, name));
        made.push(join(dir, name));
      }
      const at = (c: Controller, file: string) => join(parent.dirs[c] as string, name, file);
      const bytes = String(limits.memoryBytes);
      if (parent.version === 2) {
        await writeFile(at("memory", "memory.max"), bytes);
        if (await exists(at("memory", "memory.swap.max"))) {
          await writeFile(at("memory", "memory.swap.max"), "0");
        }
      } else {
        await writeFile(at("memory", "memory.limit_in_bytes"), bytes);
        // With swap accounting, memory plus swap: the same cap, so nothing goes to swap.
        if (await exists(at("memory", "memory.memsw.limit_in_bytes"))) {
          await writeFile(at("memory", "memory.memsw.limit_in_bytes"), bytes);
        }
      }
      if (parent.dirs.pids) {
        await writeFile(at("pids", "pids.max"), String(limits.processes + JAIL_PROCESSES));
      }
      // cpu: nothing to set; a cgroup of its own weighs as much as any other.
    } catch (err) {
      await group.remove();
      throw err;
    }
    return group;
  }

  /**
   * argv prefix whose process joins these cgroups, then execs the rest: all it starts, and all
   * that forks, is born in them. It runs first, before any namespace is made, with the host's
   * pid and rights.
   */
  joinPrefix(): string[] {
    const script = [
      "n=$1",
      "shift",
      'while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 126; shift; n=$((n - 1)); done',
      'exec "$@"',
    ].join("\n");
    const procs = this.dirs.map((dir) => join(dir, "cgroup.procs"));
    return ["/bin/sh", "-c", script, "spade-cgroup", String(procs.length), ...procs];
  }

  /** Processes the kernel killed in the memory cgroup for reaching the cap. */
  async memoryKills(): Promise<number> {
    const file = this.version === 2 ? "memory.events" : "memory.oom_control";
    const text = await readFile(join(this.dir, file), "utf8").catch(() => "");
    return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
  }

  /** The most its processes held at once (bytes), where the kernel says. */
  async peakBytes(): Promise<number | null> {
    const file = this.version === 2 ? "memory.peak" : "memory.max_usage_in_bytes";
    const text = await readFile(join(this.dir, file), "utf8").catch(() => "");
    return text.trim() === "" ? null : Number(text.trim());
  }

  /** Kills what is left in them, then removes them (waiting up to a second for the dying to go). */
  async remove(): Promise<void> {
    for (const dir of this.dirs) await killAll(dir, this.version);
    for (const dir of this.dirs) await removeDir(dir);
  }
}

/** rmdir, retried while the cgroup's last processes exit; gone already is fine. */
async function removeDir(dir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rmdir(dir);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY" || attempt >= 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** SIGKILL to every process of a cgroup (v2's `cgroup.kill` where the kernel has it). */
export async function killAll(dir: string, version: 1 | 2): Promise<void> {
  if (version === 2 && (await exists(join(dir, "cgroup.kill")))) {
    await appendFile(join(dir, "cgroup.kill"), "1").catch(() => undefined);
    return;
  }
  const procs = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
  for (const pid of procs.split("\n").filter((p) => p !== "")) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
