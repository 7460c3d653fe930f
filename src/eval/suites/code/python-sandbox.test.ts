import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, readdir, readFile, readlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSpadeError } from "../../../errors.js";
import { HOST_PID_ENV } from "./isolation.js";
import { PythonSandbox } from "./python-sandbox.js";
import { sandboxMissing } from "./testing/sandbox-probe.js";
import { skipWithout } from "../../../../test/missing.js";
import { fileTempDir } from "../../../../test/cleanup.js";

const scratchRoot = fileTempDir("spade-sandbox-test-");
/** Files the tests' stand-in hosts write to say how far they got (the scratch root stays empty). */
const markers = fileTempDir("spade-sandbox-markers-");
await chmod(scratchRoot, 0o711); // the sandbox user must be able to enter it, as it can /tmp

const limits = { timeoutMs: 3000, cpuSeconds: 1, processes: 16 };
/** A Python program from its lines. */
const python = (...lines: string[]) => lines.join("\n");
/** Python: `write(path, size)` writes `size` bytes and says "ok" or the errno's name. */
const WRITE_PY = python(
  "import errno",
  "def write(path, size):",
  "    try:",
  "        with open(path, 'wb') as f:",
  "            f.write(b'0' * size)",
  "        return 'ok'",
  "    except OSError as e:",
  "        return errno.errorcode[e.errno]",
);
/** Python: its own out-of-memory score adjustment and a forked child's. */
const OOM_SCORES_PY = python(
  "import os",
  "score = lambda: open('/proc/self/oom_score_adj').read().strip()",
  "r, w = os.pipe()",
  "if os.fork() == 0:",
  "    os.write(w, score().encode())",
  "    os._exit(0)",
  "os.close(w)",
  "print(score(), os.read(r, 16).decode())",
);

/** Python: `call(name, *args)` calls libc and says "ok" or the errno's name. */
const LIBC_PY = python(
  "import ctypes, errno",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "def call(name, *args):",
  "    r = getattr(libc, name)(*args)",
  "    return 'ok' if r >= 0 else errno.errorcode[ctypes.get_errno()]",
);
const probe = await PythonSandbox.create({ limits, maxConcurrency: 2, tmpDir: scratchRoot }).catch(
  (err: unknown) => err,
);
const sandbox = probe as PythonSandbox;

/** The names in `/` of a run: the layout's, dev, proc, and the way to the scratch directory. */
function rootNames(of: PythonSandbox): string[] {
  const names = of.layout.map((entry) => entry.path.split("/")[1] ?? "");
  return [...new Set([...names, "dev", "proc", scratchRoot.split("/")[1] ?? ""])].sort();
}

/** How Python prints a list of strings. */
const pythonList = (items: string[]) => `[${items.map((item) => `'${item}'`).join(", ")}]`;

/** Processes whose working directory is under the test's scratch root (leftovers of a run). */
async function processesInScratch(): Promise<number> {
  let n = 0;
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => "");
    if (cwd.startsWith(scratchRoot)) n++;
  }
  return n;
}

/** `argv` behind the namespaces' prefix, as a run's command sits behind it. */
const prefixOf = (...argv: string[]) => [...sandbox.isolation.namespacePrefix, ...argv];

/** Processes running `/bin/sleep ARG` (their whole command line: not those that will exec it). */
async function sleepers(arg: string): Promise<number> {
  let n = 0;
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline === `/bin/sleep\0${arg}\0`) n++;
  }
  return n;
}

/** Waits until `done()` holds, up to `ms`; says whether it did. */
async function until(done: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (await done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return done();
}

describe.skipIf(skipWithout(sandboxMissing(probe)))("PythonSandbox (isolated runs)", () => {
  it("is isolated by namespaces", () => {
    expect(["root", "user"]).toContain(sandbox.isolation.mode);
  });

  it("records passed, failed and error runs with their reason", async () => {
    expect((await sandbox.run("print('hi')")).outcome).toBe("passed");
    expect((await sandbox.run("print('hi')")).stdout).toBe("hi\n");
    const failed = await sandbox.run("assert 1 == 2, 'nope'");
    expect([failed.outcome, failed.detail]).toEqual(["failed", "AssertionError: nope"]);
    const error = await sandbox.run("raise ValueError('bad')");
    expect([error.outcome, error.detail]).toEqual(["error", "ValueError: bad"]);
  });

  it("stops an infinite loop at the CPU limit and a sleeper at the wall-clock limit", async () => {
    const loop = await sandbox.run("while True:\n    pass\n");
    expect([loop.outcome, loop.detail]).toEqual(["timeout", "CPU limit (SIGXCPU)"]);
    const sleeper = await sandbox.run("import time\ntime.sleep(60)\n");
    expect([sleeper.outcome, sleeper.detail]).toEqual(["timeout", "wall-clock limit"]);
    expect(sleeper.durationMs).toBeLessThan(limits.timeoutMs + 2000);
  });

  it("stops a memory bomb at the address-space limit", async () => {
    const bomb = await sandbox.run("x = bytearray(4 * 1024 ** 3)\n");
    expect([bomb.outcome, bomb.detail]).toEqual(["memory", "MemoryError"]);
    const list = await sandbox.run("x = [0] * (10 ** 10)\n");
    expect(list.outcome).toBe("memory");
  });

  it("has no network", async () => {
    const connect = await sandbox.run(
      "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)\n",
    );
    expect([connect.outcome, connect.detail]).toEqual([
      "network",
      "OSError: [Errno 101] Network is unreachable",
    ]);
    const dns = await sandbox.run("import socket\nsocket.getaddrinfo('example.com', 80)\n");
    expect(dns.outcome).toBe("network");
  });

  it("refuses System V IPC and POSIX message queues (memory RLIMIT_AS does not count)", async () => {
    const ipc = await sandbox.run(
      python(
        "import os",
        LIBC_PY,
        "libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]",
        "print(call('shmget', 0, 4096, 0o1600), call('msgget', 0, 0o1600),",
        "      call('semget', 0, 1, 0o1600), call('mq_open', b'/q', os.O_CREAT | os.O_RDWR, 0o600, None))",
      ),
    );
    // ENOSPC for segments, message queues and POSIX queues; EINVAL for a set above 0 semaphores.
    expect(ipc.stdout).toBe("ENOSPC ENOSPC EINVAL ENOSPC\n");
  });

  it("caps processes, and nothing forked survives the run", async () => {
    const bomb = await sandbox.run(
      "import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)\n",
    );
    expect(bomb.outcome).toBe("error");
    expect(bomb.detail).toBe("BlockingIOError: [Errno 11] Resource temporarily unavailable");
    expect(await processesInScratch()).toBe(0);
    expect(await readdir(scratchRoot)).toEqual([]);
  });

  /** Python: fork four children holding 200 MiB each, one after another; say how many still do. */
  const HOLD_PY = python(
    "import os, signal, time",
    "pids = []",
    "for i in range(4):",
    "    r, w = os.pipe()",
    "    pid = os.fork()",
    "    if pid == 0:",
    "        held = b'x' * (200 << 20)",
    "        os.write(w, b'k')",
    "        time.sleep(30)",
    "        os._exit(0)",
    "    os.close(w)",
    "    os.read(r, 1)",
    "    pids.append(pid)",
    "# A killed child may take a while to exit on a loaded machine: wait up to 3 s for three.",
    "ended = {}",
    "deadline = time.time() + 3",
    "while len(ended) < 3 and time.time() < deadline:",
    "    for pid in pids:",
    "        if pid not in ended:",
    "            done, status = os.waitpid(pid, os.WNOHANG)",
    "            if done:",
    "                ended[pid] = status",
    "    time.sleep(0.05)",
    "killed = [os.WIFSIGNALED(s) and os.WTERMSIG(s) == signal.SIGKILL for s in ended.values()]",
    "print('held=%d killed=%d' % (len(pids) - len(ended), killed.count(True)))",
  );
  const cgroupMissing = sandbox.cgroup
    ? null
    : "no memory cgroup this user may make children in (v1, or v2 with memory for children)";

  it.skipIf(skipWithout(cgroupMissing))(
    "caps what all its processes hold together (a memory cgroup per run; RLIMIT_AS is each one's)",
    async () => {
      // Time for the children and the wait for their ends (up to 3 s).
      const small = { memoryBytes: 256 * 1024 * 1024, timeoutMs: 8000 };
      const uncapped = await PythonSandbox.create({
        limits,
        tmpDir: scratchRoot,
        cgroups: "off",
      });
      expect(uncapped.cgroup).toBeNull();
      const before = await uncapped.run(HOLD_PY, small);
      expect([before.outcome, before.stdout]).toEqual(["passed", "held=4 killed=0\n"]);
      // The cap is 256 + 64 (scratch) + 16 (/dev/shm) MiB: each child's 200 MiB evicts the last.
      const after = await sandbox.run(HOLD_PY, small);
      expect([after.outcome, after.stdout]).toEqual(["passed", "held=1 killed=3\n"]);
    },
  );

  it.skipIf(skipWithout(cgroupMissing))(
    "counts memfd pages, and a run killed at its cap ends as memory",
    async () => {
      const memfds = await sandbox.run(
        python(
          "import os",
          "fds = [os.memfd_create('m%d' % i) for i in range(40)]",
          "for fd in fds:",
          "    os.write(fd, b'x' * (16 << 20))",
          "print('held all')",
        ),
        { memoryBytes: 256 * 1024 * 1024 },
      );
      expect([memfds.outcome, memfds.detail, memfds.stdout]).toEqual([
        "memory",
        "memory cgroup limit (1 process killed)",
        "",
      ]);
    },
  );

  it.skipIf(skipWithout(cgroupMissing))(
    "puts each run, its new sessions too, in a cpu cgroup of its own (a fair share per run)",
    async () => {
      const cpuLine = python(
        "import os",
        "def cpu():",
        "    lines = open('/proc/self/cgroup').read().splitlines()",
        "    return [l.split(':')[2] for l in lines if 'cpu' in l.split(':')[1].split(',') or l.startswith('0::')][0]",
        "r, w = os.pipe()",
        "if os.fork() == 0:",
        "    os.setsid()",
        "    os.write(w, cpu().encode())",
        "    os._exit(0)",
        "os.wait()",
        "print(cpu(), os.read(r, 4096).decode())",
      );
      const [a, b] = await Promise.all([sandbox.run(cpuLine), sandbox.run(cpuLine)]);
      const [mine, child] = a.stdout.trim().split(" ");
      expect(mine).toMatch(/\/spade-py-\d+-\d+-[0-9a-f]{12}$/);
      expect(child).toBe(mine);
      expect(b.stdout.trim().split(" ")[0]).toMatch(/\/spade-py-\d+-\d+-[0-9a-f]{12}$/);
      expect(b.stdout.trim().split(" ")[0]).not.toBe(mine);
    },
  );

  it("dies with its host: a host killed with SIGKILL leaves no process of its runs", async () => {
    const arg = `59.${process.pid}`;
    // A shell stands for the host: the namespaces' first process is its child, as a run's is Node's.
    const host = spawn(
      "/bin/sh",
      ["-c", `${HOST_PID_ENV}=$$ "$@" & wait`, "spade-host", ...prefixOf("/bin/sleep", arg)],
      { stdio: "ignore" },
    );
    expect(await until(async () => (await sleepers(arg)) === 1)).toBe(true);
    host.kill("SIGKILL");
    expect(await until(async () => (await sleepers(arg)) === 0)).toBe(true);
  });

  it("does not start once its host is gone: a kill before the parent-death signal is set", async () => {
    const arg = `58.${process.pid}`;
    const started = join(markers, "started");
    // The host dies while its child is still on the way to setpriv; the child goes on, orphaned.
    const late = `${HOST_PID_ENV}=$$ sh -c 'sleep 0.3; : > "$0"; exec "$@"' "${started}" "$@" & wait`;
    const host = spawn("/bin/sh", ["-c", late, "spade-host", ...prefixOf("/bin/sleep", arg)], {
      stdio: "ignore",
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    host.kill("SIGKILL");
    expect(await until(async () => existsSync(started))).toBe(true);
    // Without the check the orphan's sleep starts within milliseconds, and runs for 58 s.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await sleepers(arg)).toBe(0);
  });

  it("gives a clean environment and a scratch working directory, and caps file size", async () => {
    const env = await sandbox.run(
      "import os\nprint(sorted(os.environ), os.environ['OMP_NUM_THREADS'])\nprint(os.getcwd() == os.environ['HOME'] == os.environ['TMPDIR'])\n",
    );
    expect(env.stdout).toBe(
      "['HOME', 'LANG', 'LC_ALL', 'OMP_NUM_THREADS', 'PATH', 'PWD', 'TMPDIR'] 1\nTrue\n",
    );
    const big = await sandbox.run("open('big', 'wb').write(b'0' * (32 * 1024 * 1024))\n");
    expect([big.outcome, big.detail]).toEqual(["error", "OSError: [Errno 27] File too large"]);
  });

  it("writes nowhere but its scratch directory and a private /dev/shm of fileBytes", async () => {
    const name = `spade-test-${process.pid}`;
    const files = await sandbox.run(
      python(
        "import errno, multiprocessing",
        WRITE_PY,
        `for d in ['/tmp', '/var/tmp', '/run/lock', '/dev/shm']:`,
        `    print(d, write(d + '/${name}', 1))`,
        "multiprocessing.Lock()",
        "print(write('/dev/shm/a', 12 << 20), write('/dev/shm/b', 12 << 20), write('here', 12 << 20))",
      ),
    );
    expect(files.stdout).toBe(
      // /tmp is in the read-only root only as the way to the scratch directory.
      "/tmp EROFS\n/var/tmp ENOENT\n/run/lock ENOENT\n/dev/shm ok\nok ENOSPC ok\n",
    );
    expect(files.outcome).toBe("passed");
    const left = await Promise.all(
      ["/tmp", "/var/tmp", "/run/lock", "/dev/shm"].map((d) => readdir(d).catch(() => [])),
    );
    expect(left.flat().filter((f) => f === name)).toEqual([]);
  });

  it("holds at most scratchBytes and 4096 inodes in its scratch directory", async () => {
    const fill = await sandbox.run(
      python(
        "import errno, os",
        WRITE_PY,
        "print([write('f%d' % i, 12 << 20) for i in range(6)])",
        "for i in range(6):",
        "    os.remove('f%d' % i)",
        "n = 0",
        "try:",
        "    while True:",
        "        os.symlink('t', 'l%d' % n)",
        "        n += 1",
        "except OSError as e:",
        "    print(n, errno.errorcode[e.errno])",
      ),
    );
    // 5 x 12 MiB fit in 64 MiB; the tmpfs's root and main.py take 2 of the 4096 inodes.
    expect(fill.stdout).toBe("['ok', 'ok', 'ok', 'ok', 'ok', 'ENOSPC']\n4094 ENOSPC\n");
    const killed = await sandbox.run(
      "import time\nopen('x', 'wb').write(b'0' * (12 << 20))\ntime.sleep(60)\n",
    );
    expect(killed.outcome).toBe("timeout");
    expect(await readdir(scratchRoot)).toEqual([]);
  });

  it("sees the system's directories and its own, not the host's files or home", async () => {
    const seen = await sandbox.run(
      python(
        "import os",
        "print(sorted(os.listdir('/')))",
        `print([p for p in ['/root', '/home', '/etc', ${JSON.stringify(process.cwd())}] if os.path.exists(p)])`,
      ),
    );
    expect(seen.stdout).toBe(`${pythonList(rootNames(sandbox))}\n[]\n`);
  });

  it("has no capabilities and cannot make a user namespace, mount, or raise the IPC limits", async () => {
    const tries = await sandbox.run(
      python(
        LIBC_PY,
        "status = dict(l.split(':', 1) for l in open('/proc/self/status'))",
        "print([status[k].strip() for k in ['CapEff', 'CapBnd', 'NoNewPrivs']])",
        "print(call('unshare', 0x10000000), call('unshare', 0x08000000))",
        "print(call('mount', b'x', b'/tmp', b'tmpfs', 0, None))",
        "try:",
        "    open('/proc/sys/kernel/shmmni', 'w').write('4096')",
        "except OSError as e:",
        "    print(errno.errorcode[e.errno])",
      ),
    );
    // A nested user namespace would hold every capability again (a tmpfs of any size, a fresh
    // IPC namespace): ENOSPC, the run's own namespace allows none.
    const nested = sandbox.isolation.mode === "user" ? "ENOSPC" : "EPERM";
    expect(tries.stdout).toBe(
      `['0000000000000000', '0000000000000000', '1']\n${nested} EPERM\nEPERM\nEROFS\n`,
    );
  });

  it("is the first the kernel kills when memory runs out, its children too", async () => {
    const scores = await sandbox.run(OOM_SCORES_PY);
    expect([scores.outcome, scores.stdout]).toEqual(["passed", "1000 1000\n"]);
  });

  it("sees only its own processes in /proc, not the host's", async () => {
    const procs = await sandbox.run(
      python(
        "import os",
        "pids = [int(p) for p in os.listdir('/proc') if p.isdigit()]",
        "print(len(pids), 1 in pids, os.getpid() in pids)",
      ),
    );
    // The namespace's init shell and the program itself.
    expect(procs.stdout).toBe("2 True True\n");
  });

  it.skipIf(sandbox?.isolation?.runAs == null)(
    "runs as an unprivileged user who cannot write outside its scratch directory",
    async () => {
      const write = await sandbox.run(
        `open(${JSON.stringify(join(scratchRoot, "escape"))}, 'w')\n`,
      );
      expect([write.outcome, write.detail]).toEqual([
        "error",
        `OSError: [Errno 30] Read-only file system: '${join(scratchRoot, "escape")}'`,
      ]);
    },
  );

  it("runs at most maxConcurrency programs at once", async () => {
    const program =
      "import time\nstart = time.time()\ntime.sleep(0.3)\nprint(start, time.time())\n";
    const runs = await Promise.all([0, 1, 2, 3, 4].map(() => sandbox.run(program)));
    const spans = runs.map((r) => r.stdout.trim().split(" ").map(Number) as [number, number]);
    const overlapAt = (t: number) => spans.filter(([s, e]) => s <= t && t < e).length;
    expect(Math.max(...spans.map(([s]) => overlapAt(s)))).toBeLessThanOrEqual(2);
  });
});

describe.skipIf(skipWithout(sandboxMissing(probe)))(
  "PythonSandbox as root without user namespaces",
  () => {
    it("falls back to namespaces made as root and a drop to nobody", async () => {
      // A stand-in for util-linux's unshare that cannot make user namespaces (as on a host that
      // refuses them to unprivileged users).
      const fake = join(scratchRoot, "unshare-no-user");
      await writeFile(
        fake,
        '#!/bin/sh\ncase " $* " in *" --user "*) exit 1;; esac\nexec unshare "$@"\n',
      );
      await chmod(fake, 0o755);
      const asRoot = await PythonSandbox.create({
        commands: { unshare: fake },
        tmpDir: scratchRoot,
      });
      expect(asRoot.isolation.mode).toBe("root");
      const run = await asRoot.run(
        python(
          "import os",
          WRITE_PY,
          "print(os.getuid(), write('/tmp/x', 1), write('here', 1), sorted(os.listdir('/')))",
        ),
      );
      expect(run.stdout).toBe(`65534 EROFS ok ${pythonList(rootNames(asRoot))}\n`);
    });
  },
);

describe("PythonSandbox.create refusals", () => {
  it("refuses with E_SANDBOX_UNAVAILABLE when no network namespace can be made", async () => {
    const err = await PythonSandbox.create({ commands: { unshare: "/nonexistent/unshare" } }).catch(
      (e: unknown) => e,
    );
    expect(isSpadeError(err, "E_SANDBOX_UNAVAILABLE")).toBe(true);
    expect(String((err as Error).message)).toContain("--allow-no-isolation");
  });

  it("runs without namespaces only when explicitly allowed", async () => {
    const unisolated = await PythonSandbox.create({
      commands: { unshare: "/nonexistent/unshare" },
      allowNoIsolation: true,
      tmpDir: scratchRoot,
    });
    expect(unisolated.isolation.mode).toBe("none");
    expect((await unisolated.run("print(2 + 2)")).stdout).toBe("4\n");
    expect((await unisolated.run(OOM_SCORES_PY)).stdout).toBe("1000 1000\n");
  });

  it("refuses without prlimit, and without a runnable Python", async () => {
    const noLimits = await PythonSandbox.create({
      commands: { prlimit: "/nonexistent/prlimit" },
    }).catch((e: unknown) => e);
    expect(isSpadeError(noLimits, "E_SANDBOX_UNAVAILABLE")).toBe(true);
    const noPython = await PythonSandbox.create({
      python: "/nonexistent/python3",
      allowNoIsolation: true,
    }).catch((e: unknown) => e);
    expect(isSpadeError(noPython, "E_SANDBOX_UNAVAILABLE")).toBe(true);
  });
});
