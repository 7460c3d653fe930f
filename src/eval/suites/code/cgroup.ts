/**
 * @module eval/suites/code/cgroup
 * A memory cgroup per run, where the machine lets SPADE make one: the cap on what all of a run's
 * processes hold together. RLIMIT_AS is per process and a run may fork up to `processes`
 * children, each with an address space of its own and its own memfd files (pages no rlimit
 * counts): four children of a 256 MiB run held 800 MiB, and at the defaults (64 processes of
 * 1 GiB) a run could take more than the host has. The kernel charges a cgroup's anonymous
 * memory, its tmpfs and memfd pages and its kernel objects, and kills inside it at the cap.
 *
 * Found from this process's own cgroup: cgroup v2 where `memory` is in its `subtree_control`
 * (or can be put there: only where it holds no process, so in practice the hierarchy's root,
 * tried next, for root), else the v1 `memory` hierarchy; a directory given by the user (a
 * delegated subtree, e.g. one `systemd-run --user -p Delegate=yes` made) is used as it is.
 */
import { randomBytes } from "node:crypto";
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

/** A cgroup directory in which runs' cgroups are made. */
export interface CgroupParent {
  /** 1: the v1 `memory` hierarchy; 2: the unified hierarchy. */
  version: 1 | 2;
  /** The directory. */
  dir: string;
}

/** Where runs' memory cgroups go: found (`auto`), none (`off`), or a directory of the user's. */
export type MemoryCgroupSetting = "auto" | "off" | (string & {});

/** Name prefix of a run's cgroup; the host's pid follows, so a dead host's leftovers are known. */
const RUN_PREFIX = "spade-py-";

/**
 * Where runs' cgroups may go, best first: this process's own cgroup and the hierarchy's root in
 * v2, then its own in the v1 memory hierarchy; read from `/proc/self/mountinfo` and
 * `/proc/self/cgroup` text. Pure.
 */
export function ownMemoryCgroups(mountinfo: string, cgroups: string): CgroupParent[] {
  const paths = new Map<string, string>();
  for (const line of cgroups.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, controllers = "", path = ""] = match;
    if (controllers === "") paths.set("v2", path);
    else if (controllers.split(",").includes("memory")) paths.set("v1", path);
  }
  const found: CgroupParent[] = [];
  for (const line of mountinfo.split("\n")) {
    const [mount = "", fs = ""] = line.split(" - ");
    const fields = mount.split(" ");
    const [type = "", , superOptions = ""] = fs.split(" ");
    const root = fields[3] ?? "";
    const point = fields[4] ?? "";
    const key =
      type === "cgroup2"
        ? "v2"
        : type === "cgroup" && superOptions.split(",").includes("memory")
          ? "v1"
          : null;
    const path = key ? paths.get(key) : undefined;
    if (!key || path === undefined) continue;
    // A cgroup namespace or a bind of a subtree: the mount shows `root`, the path lies below it.
    let inside: string;
    if (root === "/") inside = path;
    else if (path === root) inside = "/";
    else if (path.startsWith(`${root}/`)) inside = path.slice(root.length);
    else continue;
    const version = key === "v2" ? 2 : 1;
    found.push({ version, dir: inside === "/" ? point : join(point, inside) });
    if (version === 2 && inside !== "/") found.push({ version, dir: point });
  }
  return found.sort((a, b) => b.version - a.version);
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

/** v2: children of `dir` get a memory controller (enabled here if it is not yet). */
async function memoryForChildren(dir: string): Promise<boolean> {
  const enabled = async () =>
    (await readFile(join(dir, "cgroup.subtree_control"), "utf8")).split(/\s+/).includes("memory");
  try {
    if (await enabled()) return true;
    await writeFile(join(dir, "cgroup.subtree_control"), "+memory");
    return await enabled();
  } catch {
    return false;
  }
}

/** A cgroup of one run: made with its cap, joined by the run's first process, removed after. */
export class RunCgroup {
  private constructor(
    /** The run's cgroup directory. */
    readonly dir: string,
    private readonly version: 1 | 2,
  ) {}

  /** Makes a cgroup under `parent` whose processes hold at most `bytes` (no swap). */
  static async create(parent: CgroupParent, bytes: number): Promise<RunCgroup> {
    const dir = join(parent.dir, `${RUN_PREFIX}${process.pid}-${randomBytes(6).toString("hex")}`);
    await mkdir(dir);
    const group = new RunCgroup(dir, parent.version);
    try {
      if (parent.version === 2) {
        await writeFile(join(dir, "memory.max"), String(bytes));
        if (await exists(join(dir, "memory.swap.max"))) {
          await writeFile(join(dir, "memory.swap.max"), "0");
        }
      } else {
        await writeFile(join(dir, "memory.limit_in_bytes"), String(bytes));
        // With swap accounting, memory plus swap: the same cap, so nothing goes to swap.
        if (await exists(join(dir, "memory.memsw.limit_in_bytes"))) {
          await writeFile(join(dir, "memory.memsw.limit_in_bytes"), String(bytes));
        }
      }
    } catch (err) {
      await group.remove();
      throw err;
    }
    return group;
  }

  /**
   * argv prefix whose process joins this cgroup, then execs the rest: all it starts, and all
   * that forks, is born in the cgroup. It runs first, before any namespace is made, with the
   * host's pid and rights.
   */
  joinPrefix(): string[] {
    const procs = join(this.dir, "cgroup.procs");
    return ["/bin/sh", "-c", 'echo $$ > "$1" && shift && exec "$@"', "spade-cgroup", procs];
  }

  /** Processes the kernel killed in this cgroup for reaching the cap. */
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

  /** Kills what is left in it, then removes it (waiting up to a second for the dying to go). */
  async remove(): Promise<void> {
    await killAll(this.dir, this.version);
    for (let attempt = 0; ; attempt++) {
      try {
        await rmdir(this.dir);
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT") return;
        if (code !== "EBUSY" || attempt >= 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
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

/** Whether runs' cgroups can be made in `parent`: one is made, capped, joined and removed. */
async function usable(parent: CgroupParent): Promise<boolean> {
  if ((await cgroupVersion(parent.dir)) !== parent.version) return false;
  if (parent.version === 1 && !(await exists(join(parent.dir, "memory.limit_in_bytes")))) {
    return false;
  }
  if (parent.version === 2 && !(await memoryForChildren(parent.dir))) return false;
  let group: RunCgroup;
  try {
    group = await RunCgroup.create(parent, 64 * 1024 * 1024);
  } catch {
    return false;
  }
  try {
    return (await runQuiet([...group.joinPrefix(), "true"])).code === 0;
  } finally {
    await group.remove().catch(() => undefined);
  }
}

/** Removes the cgroups of runs whose host process died before it could (a crash, a kill -9). */
async function sweepLeftovers(parent: CgroupParent): Promise<void> {
  const names = await readdir(parent.dir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(new RegExp(`^${RUN_PREFIX}(\\d+)-`).exec(name)?.[1] ?? Number.NaN);
    if (Number.isNaN(pid) || alive(pid)) continue;
    await killAll(join(parent.dir, name), parent.version);
    await rmdir(join(parent.dir, name)).catch(() => undefined);
  }
}

/**
 * The cgroup directory runs' cgroups are made in, or null for none (`off`, or `auto` on a
 * machine that offers none). A directory the user names must be usable: E_SANDBOX_UNAVAILABLE.
 */
export async function resolveMemoryCgroup(
  setting: MemoryCgroupSetting,
  proc: { mountinfo: string; cgroup: string } = {
    mountinfo: "/proc/self/mountinfo",
    cgroup: "/proc/self/cgroup",
  },
): Promise<CgroupParent | null> {
  if (setting === "off") return null;
  let candidates: CgroupParent[];
  if (setting === "auto") {
    const read = (file: string) => readFile(file, "utf8").catch(() => "");
    candidates = ownMemoryCgroups(await read(proc.mountinfo), await read(proc.cgroup));
  } else {
    const version = await cgroupVersion(setting);
    candidates = version ? [{ version, dir: setting }] : [];
  }
  for (const candidate of candidates) {
    if (await usable(candidate)) {
      await sweepLeftovers(candidate);
      return candidate;
    }
  }
  if (setting !== "auto") {
    throw new SpadeError(
      "E_SANDBOX_UNAVAILABLE",
      `cannot make memory cgroups in ${setting} (it must be a cgroup directory this user may write, with the memory controller for its children)`,
      {
        nextStep:
          "name a delegated cgroup (e.g. made by `systemd-run --user -p Delegate=yes --scope`), or use --memory-cgroup auto or off",
      },
    );
  }
  return null;
}
