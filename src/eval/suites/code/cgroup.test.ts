import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SpadeError } from "../../../errors.js";
import { codeAndMessageOfAsync } from "../../../../test/assert.js";
import { fileTempDir } from "../../../../test/cleanup.js";
import { skipWithout } from "../../../../test/missing.js";
import { hostLeafName, RunCgroup, runCgroupPrefix } from "./cgroup.js";
import { ownCgroups, resolveCgroups, vacate } from "./cgroup-find.js";
import { runQuiet } from "./isolation.js";

/** A mountinfo line: `root` of the file system mounted at `point`. */
const mount = (point: string, root: string, type: string, options: string) =>
  `35 31 0:32 ${root} ${point} rw,relatime - ${type} ${type} rw,${options}`;

/** Kills `child` (a test's sleeper) and waits for it to go, if it has not gone already. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await gone;
}

/** v2 candidates: `dir` for every controller. */
const v2 = (dir: string) => ({ version: 2, dirs: { memory: dir, cpu: dir, pids: dir } });

describe("ownCgroups", () => {
  it("reads a hybrid machine: v2 without controllers first, then the v1 hierarchies", () => {
    const mountinfo = [
      mount("/sys/fs/cgroup/cpu,cpuacct", "/", "cgroup", "cpu,cpuacct"),
      mount("/sys/fs/cgroup/memory", "/", "cgroup", "memory"),
      mount("/sys/fs/cgroup/unified", "/", "cgroup2", "nsdelegate"),
    ].join("\n");
    const cgroups = "4:memory:/process_api/a1\n1:cpu,cpuacct:/\n0::/\n";
    expect(ownCgroups(mountinfo, cgroups)).toEqual([
      v2("/sys/fs/cgroup/unified"),
      {
        version: 1,
        dirs: {
          memory: "/sys/fs/cgroup/memory/process_api/a1",
          cpu: "/sys/fs/cgroup/cpu,cpuacct",
          pids: null,
        },
      },
    ]);
  });

  it("offers v2's own cgroup, then the hierarchy's root", () => {
    const mountinfo = mount("/sys/fs/cgroup", "/", "cgroup2", "nsdelegate");
    expect(ownCgroups(mountinfo, "0::/user.slice/session-2.scope\n")).toEqual([
      v2("/sys/fs/cgroup/user.slice/session-2.scope"),
      v2("/sys/fs/cgroup"),
    ]);
  });

  it("places a path below a mounted subtree, and skips one outside it", () => {
    const mountinfo = mount("/sys/fs/cgroup/memory", "/docker/c1", "cgroup", "memory");
    const memoryAt = (dir: string) => [
      { version: 1, dirs: { memory: dir, cpu: null, pids: null } },
    ];
    expect(ownCgroups(mountinfo, "9:memory:/docker/c1/job\n")).toEqual(
      memoryAt("/sys/fs/cgroup/memory/job"),
    );
    expect(ownCgroups(mountinfo, "9:memory:/docker/c1\n")).toEqual(
      memoryAt("/sys/fs/cgroup/memory"),
    );
    expect(ownCgroups(mountinfo, "9:memory:/docker/c10\n")).toEqual([]);
  });

  it("finds nothing without a memory hierarchy", () => {
    const mountinfo = [
      mount("/sys/fs/cgroup/cpu", "/", "cgroup", "cpu,cpuacct"),
      mount("/sys/fs/cgroup/pids", "/", "cgroup", "pids"),
    ].join("\n");
    expect(ownCgroups(mountinfo, "3:cpu,cpuacct:/\n2:pids:/\n")).toEqual([]);
  });
});

describe("resolveCgroups", () => {
  it("gives none when off, and refuses a named directory that is no cgroup", async () => {
    expect(await resolveCgroups("off")).toBeNull();
    const plain = fileTempDir("spade-cgroup-test-");
    const refused = await resolveCgroups(plain).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SpadeError);
    expect((refused as SpadeError).code).toBe("E_SANDBOX_UNAVAILABLE");
    expect(existsSync(join(plain, "cgroup.procs"))).toBe(false);
  });

  it("takes `self` from the v2 line, above a leaf an earlier host moved it into", async () => {
    const dir = fileTempDir("spade-cgroup-self-");
    const files = { mountinfo: join(dir, "mountinfo"), cgroup: join(dir, "cgroup") };
    await writeFile(files.mountinfo, mount(join(dir, "v2"), "/", "cgroup2", "nsdelegate"));
    await writeFile(files.cgroup, "0::/app.slice/run-u7.scope/spade-host-1-2\n");
    expect(await codeAndMessageOfAsync(resolveCgroups("self", files))).toEqual({
      code: "E_SANDBOX_UNAVAILABLE",
      message: `cannot make memory cgroups in ${join(dir, "v2/app.slice/run-u7.scope")} (this process's own): it must be a cgroup directory this user may write, with the memory controller for its children (run SPADE inside \`systemd-run --user --scope -p Delegate=yes\` with --cgroups self, or use --cgroups auto or off)`,
    });
    await writeFile(files.cgroup, "4:memory:/job\n");
    expect(await codeAndMessageOfAsync(resolveCgroups("self", files))).toEqual({
      code: "E_SANDBOX_UNAVAILABLE",
      message:
        "--cgroups self needs cgroup v2, and this process has no v2 cgroup (use --cgroups auto, which takes the v1 hierarchies, or name a cgroup directory)",
    });
  });

  it("gives none on a machine whose proc files show no memory hierarchy", async () => {
    const dir = fileTempDir("spade-cgroup-proc-");
    const files = { mountinfo: join(dir, "mountinfo"), cgroup: join(dir, "cgroup") };
    expect(await resolveCgroups("auto", files)).toBeNull();
  });
});

const parent = await resolveCgroups("auto");

describe.skipIf(
  skipWithout(
    parent
      ? null
      : "no memory cgroup this user may make children in (v1, or v2 with memory for children)",
  ),
)("RunCgroup (on this machine)", () => {
  const found = parent ?? { version: 1 as const, dirs: { memory: "", cpu: null, pids: null } };
  const limitFile = found.version === 2 ? "memory.max" : "memory.limit_in_bytes";

  it("finds memory, cpu and pids here (v1: their own hierarchies)", () => {
    expect(Object.values(found.dirs).every((dir) => dir?.startsWith("/sys/fs/cgroup/"))).toBe(true);
  });

  it("caps, is joined by the first process, and is removed with what is left in it", async () => {
    const group = await RunCgroup.create(found, { memoryBytes: 48 * 1024 * 1024, processes: 10 });
    expect((await readFile(join(group.dir, limitFile), "utf8")).trim()).toBe(String(48 << 20));
    const pidsDir = group.dirs.find((dir) => dir.startsWith(found.dirs.pids ?? "-")) ?? "";
    // The program's 10, and the jail's own processes.
    expect((await readFile(join(pidsDir, "pids.max"), "utf8")).trim()).toBe("14");
    const ran = await runQuiet([...group.joinPrefix(), "/bin/sh", "-c", "cat /proc/self/cgroup"]);
    const name = group.dir.slice(found.dirs.memory.length);
    expect(ran.code).toBe(0);
    // In a cgroup of the run's own in each hierarchy (v1: memory, cpu and pids; v2: the one).
    const lines = ran.stdout.split("\n").filter((line) => line.endsWith(name));
    expect(lines).toHaveLength(found.version === 2 ? 1 : 3);
    const sleeper = spawnSync("/bin/sh", [
      "-c",
      `echo $$ > ${join(group.dir, "cgroup.procs")}; sleep 30 > /dev/null 2>&1 & echo started`,
    ]);
    expect(sleeper.stdout.toString()).toBe("started\n");
    expect((await readFile(join(group.dir, "cgroup.procs"), "utf8")).trim()).not.toBe("");
    expect(await group.memoryKills()).toBe(0);
    await group.remove();
    expect(existsSync(group.dir)).toBe(false);
  });

  it("counts the processes it killed at the cap", async () => {
    const group = await RunCgroup.create(found, { memoryBytes: 32 * 1024 * 1024, processes: 4 });
    const hog = await runQuiet([
      ...group.joinPrefix(),
      "/usr/bin/python3",
      "-c",
      "b = b'x' * (256 << 20)",
    ]);
    expect(hog.code).toBe(-1);
    expect(await group.memoryKills()).toBe(1);
    expect(await group.peakBytes()).toBeLessThanOrEqual(32 << 20);
    await group.remove();
  });

  it("removes a dead host's leftover cgroups when it is found again", async () => {
    const dead = spawnSync("/bin/true").pid;
    const leftover = join(found.dirs.memory, `${runCgroupPrefix(dead)}0123456789ab`);
    const mine = join(found.dirs.memory, `${runCgroupPrefix()}0123456789ab`);
    // Of a host in another PID namespace, whose pids say nothing here.
    const elsewhere = join(found.dirs.memory, `spade-py-1-${dead}-0123456789ab`);
    // A dead host's leaf (what `vacate` moved there, a shell say, lives on): emptied, or kept.
    const emptyLeaf = join(found.dirs.memory, hostLeafName(dead));
    const heldLeaf = join(found.dirs.memory, hostLeafName(spawnSync("/bin/true").pid));
    const shell = spawn("/bin/sleep", ["30"], { stdio: "ignore" });
    for (const dir of [leftover, mine, elsewhere, emptyLeaf, heldLeaf]) await mkdir(dir);
    try {
      await writeFile(join(heldLeaf, "cgroup.procs"), String(shell.pid));
      expect(await resolveCgroups("auto")).toEqual(found);
      expect([leftover, mine, elsewhere, emptyLeaf, heldLeaf].map((d) => existsSync(d))).toEqual([
        false,
        true,
        true,
        false,
        true,
      ]);
      expect(shell.exitCode === null && shell.signalCode === null).toBe(true);
    } finally {
      await stop(shell);
      spawnSync("rmdir", [mine, leftover, elsewhere, emptyLeaf, heldLeaf]);
    }
  });
});

/** The v2 hierarchy's root here and a controller it offers its children, if any. */
async function v2Root(): Promise<{ root: string; controller: string } | null> {
  const found = ownCgroups(
    await readFile("/proc/self/mountinfo", "utf8"),
    await readFile("/proc/self/cgroup", "utf8"),
  ).filter((c) => c.version === 2);
  const root = found.at(-1)?.dirs.memory;
  if (root === undefined) return null;
  const offered = await readFile(join(root, "cgroup.controllers"), "utf8").catch(() => "");
  const controller = offered.split(/\s+/).find((c) => c !== "");
  return controller ? { root, controller } : null;
}

const unified = process.getuid?.() === 0 ? await v2Root() : null;

describe.skipIf(
  skipWithout(
    unified ? null : "no cgroup v2 hierarchy with a controller, as root, to move processes in",
  ),
)("vacate (on this machine's v2 hierarchy)", () => {
  const { root, controller } = unified ?? { root: "", controller: "" };

  it("moves a cgroup's processes into a leaf, after which it may give controllers", async () => {
    const subtree = join(root, "cgroup.subtree_control");
    const wasOn = (await readFile(subtree, "utf8")).split(/\s+/).includes(controller);
    if (!wasOn) await writeFile(subtree, `+${controller}`);
    const dir = join(root, `spade-test-vacate-${process.pid}`);
    await mkdir(dir);
    const sleeper = spawn("/bin/sleep", ["30"], { stdio: "ignore" });
    const leaf = join(dir, hostLeafName(4242));
    try {
      await writeFile(join(dir, "cgroup.procs"), String(sleeper.pid));
      // The kernel's rule: a cgroup that holds a process gives its children no controller.
      const busy = await writeFile(join(dir, "cgroup.subtree_control"), `+${controller}`).catch(
        (err: NodeJS.ErrnoException) => err.code,
      );
      expect(busy).toBe("EBUSY");
      expect(await vacate(dir, 4242)).toBe(1);
      expect((await readFile(join(dir, "cgroup.procs"), "utf8")).trim()).toBe("");
      expect((await readFile(join(leaf, "cgroup.procs"), "utf8")).trim()).toBe(String(sleeper.pid));
      await writeFile(join(dir, "cgroup.subtree_control"), `+${controller}`);
      expect((await readFile(join(dir, "cgroup.subtree_control"), "utf8")).trim()).toBe(controller);
      // Empty, it has nothing to move.
      expect(await vacate(dir, 4242)).toBe(0);
    } finally {
      await stop(sleeper);
      spawnSync("rmdir", [leaf, dir]);
      if (!wasOn) await writeFile(subtree, `-${controller}`).catch(() => undefined);
    }
    expect(existsSync(dir)).toBe(false);
  });

  it("vacates a named cgroup that holds this process, and puts it back when it proves unusable", async () => {
    const own = (await readFile("/proc/self/cgroup", "utf8")).match(/^0::(.*)$/m)?.[1] ?? "/";
    const dir = join(root, `spade-test-named-${process.pid}`);
    const leaf = join(dir, hostLeafName());
    const whereAmI = async () =>
      (await readFile("/proc/self/cgroup", "utf8")).match(/^0::(.*)$/m)?.[1];
    await mkdir(dir);
    try {
      await writeFile(join(dir, "cgroup.procs"), String(process.pid));
      const offered = await readFile(join(root, "cgroup.controllers"), "utf8");
      if (offered.split(/\s+/).includes("memory")) {
        // A hierarchy with memory for children: the runs' cgroups go beside this process's leaf.
        expect((await resolveCgroups(dir))?.dirs.memory).toBe(dir);
        expect(await whereAmI()).toBe(leaf.slice(root.length));
      } else {
        expect(await codeAndMessageOfAsync(resolveCgroups(dir))).toMatchObject({
          code: "E_SANDBOX_UNAVAILABLE",
        });
        expect([await whereAmI(), existsSync(leaf)]).toEqual([dir.slice(root.length), false]);
      }
    } finally {
      await writeFile(join(root, own, "cgroup.procs"), String(process.pid));
      spawnSync("rmdir", [leaf, dir]);
    }
    expect([await whereAmI(), existsSync(dir)]).toEqual([own, false]);
  });
});
