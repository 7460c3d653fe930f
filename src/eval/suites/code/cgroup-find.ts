/**
 * @module eval/suites/code/cgroup-find
 * Where runs' cgroups (cgroup.ts) are made, found from this process's own cgroups: cgroup v2
 * where `memory` is in its `subtree_control` (or can be put there: only where it holds no
 * process, so in practice the hierarchy's root, tried next, for root), else the v1 `memory`
 * hierarchy (with the `cpu` and `pids` ones where they are mounted); a directory given by the
 * user (a delegated subtree) is used as it is; `self` is this process's own v2 cgroup, delegated
 * to it (`systemd-run --user --scope -p Delegate=yes spade ...`). A v2 cgroup that holds
 * processes cannot give controllers to its children (the kernel's "no internal processes" rule),
 * so a named one's processes first move into a leaf of it (`vacate`). Memory is required; cpu and
 * pids are taken where a run's cgroups can be made, joined and removed with them. Leftovers of
 * dead hosts are removed when the place is found.
 */
import { mkdir, readdir, readFile, rmdir, statfs, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { SpadeError } from "../../../errors.js";
import {
  CONTROLLERS,
  type CgroupParent,
  type Controller,
  exists,
  killAll,
  RunCgroup,
  hostLeafName,
  runCgroupHost,
} from "./cgroup.js";
import { runQuiet } from "./isolation.js";

/**
 * Where runs' cgroups go: found (`auto`), none (`off`), this process's own v2 cgroup, delegated
 * to it (`self`), or a directory of the user's.
 */
export type CgroupSetting = "auto" | "off" | "self" | (string & {});

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

/** Whether this process is one of `dir`'s own (not of a child cgroup's). */
async function holdsThis(dir: string): Promise<boolean> {
  const procs = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
  return procs.split("\n").includes(String(process.pid));
}

/**
 * v2: moves every process of `dir` into its leaf `hostLeafName(pid)`, so that `dir` holds none
 * and may give controllers to its children; they stay in its subtree, under every limit of `dir`
 * and above. Processes that fork meanwhile are moved on the next pass. Returns how many moved;
 * E_SANDBOX_UNAVAILABLE when one cannot be.
 */
export async function vacate(dir: string, pid: number = process.pid): Promise<number> {
  const procs = async () =>
    (await readFile(join(dir, "cgroup.procs"), "utf8")).split("\n").filter((p) => p !== "");
  let left = await procs();
  if (left.length === 0) return 0;
  const leaf = join(dir, hostLeafName(pid));
  const refused = (what: string, code: string | undefined) =>
    new SpadeError(
      "E_SANDBOX_UNAVAILABLE",
      `cannot ${what} (${code}): a cgroup that holds processes cannot give controllers to its children`,
      { nextStep: "name a cgroup delegated to this user, or start SPADE alone in one" },
    );
  await mkdir(leaf).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EEXIST") throw refused(`make ${leaf}`, err.code);
  });
  let moved = 0;
  for (let pass = 0; left.length > 0; pass++) {
    if (pass === 8) {
      throw new SpadeError(
        "E_SANDBOX_UNAVAILABLE",
        `processes keep appearing in ${dir} (${left.length} after ${pass} passes)`,
        { nextStep: "start SPADE alone in the cgroup, or name an empty one" },
      );
    }
    for (const p of left) {
      try {
        await writeFile(join(leaf, "cgroup.procs"), p);
        moved++;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // Gone since it was listed.
        if (code === "ESRCH") continue;
        throw refused(`move process ${p} out of ${dir} into ${leaf}`, code);
      }
    }
    left = await procs();
  }
  return moved;
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
      const pid = runCgroupHost(name);
      if (pid === null || alive(pid)) continue;
      // A host's leaf holds what moved there with it (a shell, say): removed only once empty.
      if (name !== hostLeafName(pid)) await killAll(join(dir, name), parent.version);
      await rmdir(join(dir, name)).catch(() => undefined);
    }
  }
}

/**
 * This process's own v2 cgroup (`self`); the one above where it is a leaf that an earlier host
 * moved it into (a shell's second `spade` in one delegated scope).
 */
async function selfCgroup(proc: { mountinfo: string; cgroup: string }): Promise<string> {
  const read = (file: string) => readFile(file, "utf8").catch(() => "");
  const own = ownCgroups(await read(proc.mountinfo), await read(proc.cgroup)).find(
    (c) => c.version === 2,
  );
  if (!own) {
    throw new SpadeError(
      "E_SANDBOX_UNAVAILABLE",
      "--cgroups self needs cgroup v2, and this process has no v2 cgroup",
      {
        nextStep: "use --cgroups auto, which takes the v1 hierarchies, or name a cgroup directory",
      },
    );
  }
  const dir = own.dirs.memory;
  return basename(dir).startsWith("spade-host-") ? dirname(dir) : dir;
}

/**
 * Undoes `vacate(dir, pid)`, where `dir` then proved unusable: what is in its leaf moves back,
 * and the leaf goes (best effort: the processes are where they were, or in the leaf).
 */
export async function unvacate(dir: string, pid: number = process.pid): Promise<void> {
  const leaf = join(dir, hostLeafName(pid));
  const procs = await readFile(join(leaf, "cgroup.procs"), "utf8").catch(() => "");
  for (const p of procs.split("\n").filter((p) => p !== "")) {
    await writeFile(join(dir, "cgroup.procs"), p).catch(() => undefined);
  }
  await rmdir(leaf).catch(() => undefined);
}

/** `unvacate(dir)`, then rethrows `err`. */
async function unvacateThen(dir: string, err: unknown): Promise<never> {
  await unvacate(dir);
  throw err;
}

/**
 * Where runs' cgroups go in the directory `dir` the user named (`setting`: it, or `self`). A v2
 * one that holds this process is first vacated, and put back as it was if it proves unusable;
 * never the hierarchy's root, which has no cgroup.type (it may hold processes and give
 * controllers all the same). E_SANDBOX_UNAVAILABLE where it cannot hold runs' cgroups.
 */
async function resolveNamed(dir: string, setting: CgroupSetting): Promise<CgroupParent> {
  const version = await cgroupVersion(dir);
  const toVacate =
    version === 2 && (await exists(join(dir, "cgroup.type"))) && (await holdsThis(dir));
  // A move refused halfway is undone too.
  const vacated = toVacate ? await vacate(dir).catch((err) => unvacateThen(dir, err)) : 0;
  const cpuAndPids = version === 2 ? dir : null;
  const parent =
    version &&
    (await usable({ version, dirs: { memory: dir, cpu: cpuAndPids, pids: cpuAndPids } }));
  if (parent) {
    await sweepLeftovers(parent);
    return parent;
  }
  if (vacated > 0) await unvacate(dir);
  throw new SpadeError(
    "E_SANDBOX_UNAVAILABLE",
    `cannot make memory cgroups in ${dir}${setting === "self" ? " (this process's own)" : ""}: it must be a cgroup directory this user may write, with the memory controller for its children`,
    {
      nextStep:
        "run SPADE inside `systemd-run --user --scope -p Delegate=yes` with --cgroups self, or use --cgroups auto or off",
    },
  );
}

/**
 * Where runs' cgroups are made, or null for none (`off`, or `auto` on a machine that offers no
 * memory cgroup). A directory the user names (or `self`) must be usable: E_SANDBOX_UNAVAILABLE.
 */
export async function resolveCgroups(
  setting: CgroupSetting,
  proc: { mountinfo: string; cgroup: string } = {
    mountinfo: "/proc/self/mountinfo",
    cgroup: "/proc/self/cgroup",
  },
): Promise<CgroupParent | null> {
  if (setting === "off") return null;
  if (setting !== "auto") {
    return resolveNamed(setting === "self" ? await selfCgroup(proc) : setting, setting);
  }
  const read = (file: string) => readFile(file, "utf8").catch(() => "");
  for (const candidate of ownCgroups(await read(proc.mountinfo), await read(proc.cgroup))) {
    const parent = await usable(candidate);
    if (parent) {
      await sweepLeftovers(parent);
      return parent;
    }
  }
  return null;
}
