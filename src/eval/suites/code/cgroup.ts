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
 * Found from this process's own cgroups: cgroup v2 where `memory` is in its `subtree_control`
 * (or can be put there: only where it holds no process, so in practice the hierarchy's root,
 * tried next, for root), else the v1 `memory` hierarchy (with the `cpu` and `pids` ones where
 * they are mounted); a directory given by the user (a delegated subtree, e.g. one `systemd-run
 * --user -p Delegate=yes` made) is used as it is. Memory is required; cpu and pids are taken
 * where they can be had.
 */
import { randomBytes } from "node:crypto";
import { readlinkSync } from "node:fs";
import {
  access,
  appendFile,
  mkdir,
  readdir,
  readFile,
  rmdir,
  statfs,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { SpadeError } from "../../../errors.js";
import { runQuiet } from "./isolation.js";

/** The controllers a run's cgroups use. */
export type Controller = "memory" | "cpu" | "pids";

/** The controllers, memory (required) first. */
const CONTROLLERS: readonly Controller[] = ["memory", "cpu", "pids"];

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

/** Where runs' cgroups go: found (`auto`), none (`off`), or a directory of the user's. */
export type CgroupSetting = "auto" | "off" | (string & {});

/** The inode of this process's PID namespace ("0" where there is no /proc): pids compare within one. */
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

/** Processes a run's jail holds besides the program's (the namespaces' parent, the init shell). */
const JAIL_PROCESSES = 4;

/**
 * Where runs' cgroups may go, best first: this process's own cgroup and the hierarchy's root in
 * v2, then its own in each v1 hierarchy (memory, cpu, pids; null where one is not mounted);
 * read from `/proc/self/mountinfo` and `/proc/self/cgroup` text. Only candidates with a memory
 * directory are given. Pure.
 */
export function ownCgroups(mountinfo: string, cgroups: string): CgroupParent[] {
  const paths = new Map<string, string>();
  for (const line of cgroups.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, controllers = "", path = ""] = match;
    if (controllers === "") paths.set("v2", path);
    for (const c of controllers.split(",")) paths.set(c, path);
  }
  const v1: Record<Controller, string | null> = { memory: null, cpu: null, pids: null };
  const v2: string[] = [];
  for (const line of mountinfo.split("\n")) {
    const [mount = "", fs = ""] = line.split(" - ");
    const fields = mount.split(" ");
    const [type = "", , superOptions = ""] = fs.split(" ");
    const root = fields[3] ?? "";
    const point = fields[4] ?? "";
    const keys =
      type === "cgroup2"
        ? ["v2"]
        : type === "cgroup"
          ? CONTROLLERS.filter((c) => superOptions.split(",").includes(c))
          : [];
    for (const key of keys) {
      const path = paths.get(key);
      if (path === undefined) continue;
      // A cgroup namespace or a bind of a subtree: the mount shows `root`, the path lies below it.
      let inside: string;
      if (root === "/") inside = path;
      else if (path === root) inside = "/";
      else if (path.startsWith(`${root}/`)) inside = path.slice(root.length);
      else continue;
      const dir = inside === "/" ? point : join(point, inside);
      if (key === "v2") v2.push(dir, ...(inside === "/" ? [] : [point]));
      else v1[key as Controller] = dir;
    }
  }
  const found: CgroupParent[] = v2.map((dir) => ({
    version: 2,
    dirs: { memory: dir, cpu: dir, pids: dir },
  }));
  if (v1.memory) found.push({ version: 1, dirs: { ...v1, memory: v1.memory } });
  return found;
}

/** Whether `file` can be read (the cgroup file exists). */
async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Whether a process with this pid lives. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** v2: whether children of `dir` get `controller` (enabled here if it is not yet). */
async function forChildren(dir: string, controller: Controller): Promise<boolean> {
  const file = join(dir, "cgroup.subtree_control");
  const enabled = async () => (await readFile(file, "utf8")).split(/\s+/).includes(controller);
  try {
    if (await enabled()) return true;
    await writeFile(file, `+${controller}`);
    return await enabled();
  } catch {
    return false;
  }
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
async function killAll(dir: string, version: 1 | 2): Promise<void> {
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

/** statfs magic numbers of the cgroup file systems. */
const CGROUP2_MAGIC = 0x63677270;
const CGROUP1_MAGIC = 0x27e0eb;

/** The cgroup version of the file system `dir` lies on, or null when it is not a cgroup's. */
async function cgroupVersion(dir: string): Promise<1 | 2 | null> {
  const type = await statfs(dir).then(
    (s) => s.type,
    () => null,
  );
  return type === CGROUP2_MAGIC ? 2 : type === CGROUP1_MAGIC ? 1 : null;
}

/**
 * Whether a child of `dir` can have `controller`: v2, enabled for its children; v1, a directory of
 * that controller's hierarchy (memory: with its limit file; the others are found by their mount).
 */
async function offers(version: 1 | 2, dir: string, controller: Controller): Promise<boolean> {
  if ((await cgroupVersion(dir)) !== version) return false;
  if (version === 2) return forChildren(dir, controller);
  return controller !== "memory" || exists(join(dir, "memory.limit_in_bytes"));
}

/** Whether a run's cgroups can be made, joined and removed in `parent`. */
async function trial(parent: CgroupParent): Promise<boolean> {
  let group: RunCgroup;
  try {
    group = await RunCgroup.create(parent, { memoryBytes: 64 * 1024 * 1024, processes: 8 });
  } catch {
    return false;
  }
  try {
    return (await runQuiet([...group.joinPrefix(), "true"])).code === 0;
  } finally {
    await group.remove().catch(() => undefined);
  }
}

/**
 * `candidate` with the controllers that work there (null otherwise), or null when memory does
 * not: each is offered, and a run's cgroups are made, joined and removed.
 */
async function usable(candidate: CgroupParent): Promise<CgroupParent | null> {
  const { version, dirs } = candidate;
  if (!(await offers(version, dirs.memory, "memory"))) return null;
  let parent: CgroupParent = { version, dirs: { memory: dirs.memory, cpu: null, pids: null } };
  if (!(await trial(parent))) return null;
  for (const c of ["cpu", "pids"] as const) {
    const dir = dirs[c];
    if (dir === null || !(await offers(version, dir, c))) continue;
    const withIt: CgroupParent = { version, dirs: { ...parent.dirs, [c]: dir } };
    if (await trial(withIt)) parent = withIt;
  }
  return parent;
}

/** Removes the cgroups of runs whose host process died before it could (a crash, a kill -9). */
async function sweepLeftovers(parent: CgroupParent): Promise<void> {
  const dirs = new Set(CONTROLLERS.map((c) => parent.dirs[c]).filter((d) => d !== null));
  for (const dir of dirs) {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const mine = new RegExp(`^spade-py-${pidNamespace()}-(\\d+)-`).exec(name);
      const pid = Number(mine?.[1] ?? Number.NaN);
      if (Number.isNaN(pid) || alive(pid)) continue;
      await killAll(join(dir, name), parent.version);
      await rmdir(join(dir, name)).catch(() => undefined);
    }
  }
}

/**
 * Where runs' cgroups are made, or null for none (`off`, or `auto` on a machine that offers no
 * memory cgroup). A directory the user names must be usable: E_SANDBOX_UNAVAILABLE.
 */
export async function resolveCgroups(
  setting: CgroupSetting,
  proc: { mountinfo: string; cgroup: string } = {
    mountinfo: "/proc/self/mountinfo",
    cgroup: "/proc/self/cgroup",
  },
): Promise<CgroupParent | null> {
  if (setting === "off") return null;
  let candidates: CgroupParent[];
  if (setting === "auto") {
    const read = (file: string) => readFile(file, "utf8").catch(() => "");
    candidates = ownCgroups(await read(proc.mountinfo), await read(proc.cgroup));
  } else {
    const version = await cgroupVersion(setting);
    const cpuAndPids = version === 2 ? setting : null;
    candidates = version
      ? [{ version, dirs: { memory: setting, cpu: cpuAndPids, pids: cpuAndPids } }]
      : [];
  }
  for (const candidate of candidates) {
    const parent = await usable(candidate);
    if (parent) {
      await sweepLeftovers(parent);
      return parent;
    }
  }
  if (setting !== "auto") {
    throw new SpadeError(
      "E_SANDBOX_UNAVAILABLE",
      `cannot make memory cgroups in ${setting} (it must be a cgroup directory this user may write, with the memory controller for its children)`,
      {
        nextStep:
          "name a delegated cgroup (e.g. made by `systemd-run --user -p Delegate=yes --scope`), or use --cgroups auto or off",
      },
    );
  }
  return null;
}
