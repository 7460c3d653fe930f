// The Python attack suite: hostile programs against the jailed interpreter (issue 17). Each must
// end in an exact code (or a harmless answer), the host's files and RSS untouched.
import { existsSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../errors.js";
import { loadProgram, type SandboxLimits } from "../index.js";
import { IDLE_STOP_MS } from "./backend.js";
import { escapeMarker, hostRss, MIB } from "../testing/host.js";

/** The host file escapes try to create; its Python literal. */
const { path: MARKER, literal: M } = escapeMarker("python");
/** The jail's limits here, and how much one program may grow the host's RSS or raise its peak. */
const LIMITS: Partial<SandboxLimits> = {
  memoryBytes: 32 * MIB,
  stepTimeoutMs: 300,
  compileTimeoutMs: 1000,
};
const RSS_BOUND_BYTES = 64 * MIB;

/** Guest helpers: the two classic ways out of a Python-level jail. */
const HELPERS = `
def os_globals():
    for c in ().__class__.__base__.__subclasses__():
        if c.__name__ == "_wrap_close":
            return c.__init__.__globals__
    raise LookupError("no os._wrap_close")

def runner_globals():
    try:
        raise Exception()
    except Exception as e:
        f = e.__traceback__.tb_frame
    while f is not None:
        if "_real_import" in f.f_globals:
            return f.f_globals
        f = f.f_back
    raise LookupError("no runner frame")

def host_import(name):
    return runner_globals()["_real_import"](name)
`;

/** A program whose step() runs `body` (or whose top level runs `top`). */
function program(body: string, top = ""): string {
  const indented = body
    .split("\n")
    .map((line) => `        ${line}`)
    .join("\n");
  return `${HELPERS}\n${top}\nclass AttackEnv:\n    def reset(self, seed=None):\n        return "start", {}\n    def step(self, action):\n${indented}\n        return "done", 0.0, False, False, {}\n    def hint(self):\n        return "h"\n`;
}

interface Attack {
  name: string;
  at: "load" | "step";
  code: string;
  outcome: ErrorCode | "ok";
  /** For "ok": the observation; for errors: a pattern the message matches. */
  expect: string | RegExp;
  limits?: Partial<SandboxLimits>;
}

const BOMB: Partial<SandboxLimits> = { stepTimeoutMs: 5000 };

const ATTACKS: Attack[] = [
  // Imports of the dangerous modules: each refused at load, naming the module.
  ...(
    [
      ["import os", "os"],
      ["import subprocess", "subprocess"],
      ["import socket", "socket"],
      ["import ctypes", "ctypes"],
      ["from os import system", "os"],
      ["__import__('importlib')", "importlib"],
      ["import gc", "gc"],
    ] as const
  ).map(
    ([code, module]): Attack => ({
      name: module === "gc" ? `${code} (object graph walking)` : code,
      at: "load",
      code,
      outcome: "E_SANDBOX_COMPILE",
      expect: new RegExp(`ImportError: import of '${module}' is not allowed`),
    }),
  ),
  {
    name: "open() at the top level",
    at: "load",
    code: "open('/etc/passwd')",
    outcome: "E_SANDBOX_COMPILE",
    expect: /NameError: name 'open' is not defined/,
  },
  {
    name: "eval and exec are gone",
    at: "load",
    code: "exec('1')",
    outcome: "E_SANDBOX_COMPILE",
    expect: /NameError: name 'exec'/,
  },
  {
    name: "an infinite loop at the top level",
    at: "load",
    code: "while True:\n    pass",
    outcome: "E_SANDBOX_TIMEOUT",
    expect: /deadline/,
  },
  // Past the import guard (subclasses, frames): the jail holds.
  {
    name: "__subclasses__ to os.system",
    at: "step",
    code: `rc = os_globals()["system"]("touch " + ${M})\nassert rc == 0, "system() returned %d" % rc`,
    outcome: "E_SANDBOX_THROW",
    expect: /system\(\) returned/,
  },
  {
    name: "__subclasses__ to os.fork",
    at: "step",
    code: `os_globals()["fork"]()`,
    outcome: "E_SANDBOX_THROW",
    expect: /PermissionError: \[Errno 1\] Operation not permitted/,
  },
  {
    name: "__subclasses__ to os.open a host file",
    at: "step",
    code: `os_globals()["open"]("/etc/passwd", 0)`,
    outcome: "E_SANDBOX_THROW",
    expect: /FileNotFoundError/,
  },
  {
    name: "frame walking to the runner's os.system",
    at: "step",
    code: `rc = runner_globals()["os"].system("id")\nassert rc == 0, "system() returned %d" % rc`,
    outcome: "E_SANDBOX_THROW",
    expect: /system\(\) returned/,
  },
  {
    name: "frame walking to subprocess",
    at: "step",
    code: `host_import("subprocess").run(["/bin/sh", "-c", "touch " + ${M}])`,
    outcome: "E_SANDBOX_THROW",
    expect: /PermissionError|FileNotFoundError/,
  },
  {
    name: "a socket to the host",
    at: "step",
    code: `s = host_import("socket").socket()\ns.connect(("127.0.0.1", 22))`,
    outcome: "E_SANDBOX_THROW",
    expect: /Operation not permitted/,
  },
  {
    name: "ctypes calling libc fork",
    at: "step",
    code: `ct = host_import("ctypes")\npid = ct.CDLL(None).fork()\nassert pid >= 0, "fork() returned %d" % pid`,
    outcome: "E_SANDBOX_THROW",
    expect: /fork\(\) returned -1/,
  },
  {
    name: "ctypes calling raw syscall socket",
    at: "step",
    code: `ct = host_import("ctypes")\nfd = ct.CDLL(None).syscall(41, 2, 1, 0)\nassert fd >= 0, "socket() returned %d" % fd`,
    outcome: "E_SANDBOX_THROW",
    expect: /socket\(\) returned -1/,
  },
  // Memory RLIMIT_AS does not count (seccomp refuses System V IPC): 24 detached 32 MiB segments held 768 MB.
  {
    name: "System V shared memory kept after detaching",
    at: "step",
    code: `ct = host_import("ctypes")\nlibc = ct.CDLL(None, use_errno=True)\nlibc.shmat.restype = ct.c_void_p\nfor i in range(24):\n    sid = libc.shmget(0, 32 << 20, 0o1600)\n    assert sid >= 0, "shmget() errno %d" % ct.get_errno()\n    addr = ct.c_void_p(libc.shmat(sid, None, 0))\n    ct.memset(addr, 1, 32 << 20)\n    libc.shmdt(addr)`,
    outcome: "E_SANDBOX_THROW",
    expect: /AssertionError: shmget\(\) errno 1 /,
    limits: BOMB,
  },
  {
    name: "System V message queues filled",
    at: "step",
    code: `ct = host_import("ctypes")\nlibc = ct.CDLL(None, use_errno=True)\nbuf = ct.create_string_buffer(b"\\x01" + b"m" * 8199)\nfor q in range(4000):\n    qid = libc.msgget(0, 0o1600)\n    assert qid >= 0, "msgget() errno %d" % ct.get_errno()\n    while libc.msgsnd(qid, buf, 8192, 0o4000) == 0:\n        pass`,
    outcome: "E_SANDBOX_THROW",
    expect: /AssertionError: msgget\(\) errno 1 /,
    limits: BOMB,
  },
  {
    name: "a thread",
    at: "step",
    code: `host_import("threading").Thread(target=lambda: None).start()`,
    outcome: "E_SANDBOX_THROW",
    expect: /can't start new thread/,
  },
  {
    name: "the host's files are not there",
    at: "step",
    code: `p = host_import("os").path\nreturn str([p.exists(x) for x in ["/etc/passwd", "/home", "/work", "/proc/1", "/tmp", ${M}]]), 0.0, False, False, {}`,
    outcome: "ok",
    expect: "[False, False, False, False, False, False]",
  },
  {
    name: "writing a file",
    at: "step",
    code: `os_globals()["mkdir"]("/escape")`,
    outcome: "E_SANDBOX_THROW",
    expect: /Read-only file system/,
  },
  {
    // A tmpfs's files are kernel memory outside RLIMIT_AS: 200k such links held 800 MB.
    name: "filling /dev with 4 KB symlinks",
    at: "step",
    code: `for i in range(200000):\n    os_globals()["symlink"]("a" * 4000, "/dev/shm/l%d" % i)`,
    outcome: "E_SANDBOX_THROW",
    expect: /^step\(\): OSError: \[Errno 30\] Read-only file system: 'a{300}/,
    limits: BOMB,
  },
  {
    name: "reading the host's environment",
    at: "step",
    code: `e = os_globals()["environ"]\nreturn ",".join(sorted(k + "=" + v for k, v in e.items())), 0.0, False, False, {}`,
    outcome: "ok",
    expect: "LC_ALL=C.UTF-8,OPENBLAS_NUM_THREADS=1,PWD=/,PYTHONHASHSEED=0,TZ=UTC",
  },
  {
    name: "/proc/self/environ",
    at: "step",
    code: `os_globals()["open"]("/proc/self/environ", 0)`,
    outcome: "E_SANDBOX_THROW",
    expect: /FileNotFoundError/,
  },
  // CPU: deadlines that no except clause can catch.
  {
    name: "an infinite loop",
    at: "step",
    code: "while True:\n    pass",
    outcome: "E_SANDBOX_TIMEOUT",
    expect: /deadline/,
  },
  {
    name: "an exception-swallowing loop",
    at: "step",
    code: "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass",
    outcome: "E_SANDBOX_TIMEOUT",
    expect: /deadline/,
  },
  {
    name: "ignoring the deadline signal",
    at: "step",
    code: `sig = host_import("signal")\nsig.signal(sig.SIGPROF, sig.SIG_IGN)\nwhile True:\n    pass`,
    outcome: "E_SANDBOX_TIMEOUT",
    expect: /deadline/,
  },
  {
    name: "sleeping past the deadline (no CPU used)",
    at: "step",
    code: `host_import("time").sleep(60)`,
    outcome: "E_SANDBOX_TIMEOUT",
    expect: /deadline/,
  },
  {
    name: "catastrophic regex backtracking (one long C call)",
    at: "step",
    code: `re.match(r"(a+)+$", "a" * 40 + "b")`,
    outcome: "E_SANDBOX_TIMEOUT",
    expect: /deadline/,
  },
  // Memory and recursion.
  {
    name: "a 1 GB bytearray",
    at: "step",
    code: "x = bytearray(10 ** 9)",
    outcome: "E_SANDBOX_MEMORY",
    expect: /MemoryError/,
    limits: BOMB,
  },
  {
    name: "a growing list of strings",
    at: "step",
    code: `a = []\nwhile True:\n    a.append("x" * 10 ** 6)`,
    outcome: "E_SANDBOX_MEMORY",
    expect: /MemoryError/,
    limits: BOMB,
  },
  {
    name: "a MemoryError-swallowing allocation loop",
    at: "step",
    code: `a = []\nwhile True:\n    try:\n        a.append(bytearray(10 ** 7))\n    except MemoryError:\n        pass`,
    outcome: "E_SANDBOX_TIMEOUT",
    expect: /deadline/,
  },
  {
    name: "infinite recursion",
    at: "step",
    code: "def f(n):\n    return f(n + 1)\nf(0)",
    outcome: "E_SANDBOX_MEMORY",
    expect: /RecursionError/,
  },
  {
    name: "recursion past a raised limit (C stack)",
    at: "step",
    code: `host_import("sys").setrecursionlimit(10 ** 8)\njson.loads("[" * 10 ** 7)`,
    outcome: "E_SANDBOX_MEMORY",
    expect: /died \(SIGSEGV|signal 11\)/,
    limits: BOMB,
  },
  // Output.
  {
    name: "a 2 MB observation",
    at: "step",
    code: `return "x" * (2 * 1024 * 1024), 0.0, False, False, {}`,
    outcome: "E_SANDBOX_OUTPUT_SIZE",
    expect: /over the 1048576-byte limit/,
  },
  {
    name: "a flood written straight into the protocol pipe",
    at: "step",
    code: `out = runner_globals()["_out"]\nout.write("O" + "x" * (4 * 1024 * 1024))\nout.flush()`,
    outcome: "E_SANDBOX_OUTPUT_SIZE",
    expect: /over the 1048576-byte limit/,
  },
  {
    name: "a forged protocol answer",
    at: "step",
    code: `out = runner_globals()["_out"]\nout.write("Onot json\\n")\nout.flush()`,
    outcome: "E_ENV_CONTRACT",
    expect: /not JSON/,
  },
  {
    name: "print floods go nowhere",
    at: "step",
    code: `print("x" * 10 ** 7)\nreturn "quiet", 0.0, False, False, {}`,
    outcome: "ok",
    expect: "quiet",
  },
  {
    name: "a value that is not JSON",
    at: "step",
    code: `return "o", 0.0, False, False, {"x": object()}`,
    outcome: "E_ENV_CONTRACT",
    expect: /not JSON/,
  },
  {
    name: "a NaN reward",
    at: "step",
    code: `return "o", float("nan"), False, False, {}`,
    outcome: "E_ENV_CONTRACT",
    expect: /not JSON/,
  },
  {
    name: "an answer nested 100 levels deep",
    at: "step",
    code: `v = []\nfor _ in range(100):\n    v = [v]\nreturn "o", 0.0, False, False, {"v": v}`,
    outcome: "E_ENV_CONTRACT",
    expect: /nested deeper than 64/,
  },
];

const rssRows: string[] = [];
afterAll(() => {
  process.stdout.write(
    `host RSS after each Python attack (change; peak growth; bound ${RSS_BOUND_BYTES / MIB} MiB):\n${rssRows.join("\n")}\n`,
  );
});

describe("Python attack suite", () => {
  it("has at least 30 programs", () => {
    expect(ATTACKS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(ATTACKS.map((a) => [a.name, a] as const))("%s", async (name, attack) => {
    const before = hostRss();
    const source = attack.at === "load" ? program("pass", attack.code) : program(attack.code);
    const limits = { ...LIMITS, ...attack.limits };
    let outcome: string;
    let text: string;
    try {
      const env = await loadProgram(source, { language: "python", limits });
      try {
        await env.reset(1);
        const result = await env.step({ text: "go", answer: null, toolCalls: [] });
        outcome = "ok";
        text = result.observation;
      } finally {
        await env.close();
      }
    } catch (err) {
      outcome = (err as { code?: string }).code ?? `uncoded: ${String(err)}`;
      text = (err as Error).message;
    }
    expect(outcome, text).toBe(attack.outcome);
    if (typeof attack.expect === "string") expect(text).toBe(attack.expect);
    else expect(text).toMatch(attack.expect);
    expect(existsSync(MARKER)).toBe(false);
    const after = hostRss();
    rssRows.push(
      `${name.padEnd(56)} rss ${(after.rss / MIB).toFixed(1)} MiB (${((after.rss - before.rss) / MIB).toFixed(1)}) peak +${((after.peak - before.peak) / MIB).toFixed(1)}`,
    );
    expect(after.rss - before.rss).toBeLessThan(RSS_BOUND_BYTES);
    expect(after.peak - before.peak).toBeLessThan(RSS_BOUND_BYTES);
  });

  it("a guest that spins between calls is stopped there", async () => {
    // step("patch") makes the runner spin after each answer until the next request is readable;
    // step("report") answers the CPU time that spin took. Unstopped, it burned the whole wait
    // (555 ms of a 600 ms wait); stopped, at most the two idle checks before it is stopped.
    const patch = [
      `if action == "report":`,
      `    return "%d" % round(AttackEnv.spun * 1000), 0.0, False, False, {}`,
      `g = runner_globals()`,
      `answer, clock, select = g["_answer"], host_import("time").process_time, host_import("select").select`,
      `AttackEnv.spun = 0.0`,
      `def spin(line):`,
      `    answer(line)`,
      `    start = clock()`,
      `    while not select([g["_in"]], [], [], 0)[0]:`,
      `        pass`,
      `    AttackEnv.spun = clock() - start`,
      `g["_answer"] = spin`,
    ].join("\n");
    const env = await loadProgram(program(patch), { language: "python", limits: LIMITS });
    try {
      await env.reset(1);
      expect((await env.step({ text: "patch", answer: null, toolCalls: [] })).observation).toBe(
        "done",
      );
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const spunMs = Number(
        (await env.step({ text: "report", answer: null, toolCalls: [] })).observation,
      );
      expect(spunMs).toBeLessThan(2 * IDLE_STOP_MS + 100);
    } finally {
      await env.close();
    }
  });

  it("a broken guest is replaced at the next reset", async () => {
    const env = await loadProgram(program("if action == 'loop':\n    while True:\n        pass"), {
      language: "python",
      limits: LIMITS,
    });
    await env.reset(1);
    await expect(env.step({ text: "loop", answer: null, toolCalls: [] })).rejects.toMatchObject({
      code: "E_SANDBOX_TIMEOUT",
    });
    await expect(env.step({ text: "go", answer: null, toolCalls: [] })).rejects.toMatchObject({
      code: "E_ENV_CONTRACT",
    });
    expect(await env.reset(2)).toEqual({ observation: "start", info: {} });
    expect(env.replacements).toBe(1);
    expect((await env.step({ text: "go", answer: null, toolCalls: [] })).observation).toBe("done");
    await env.close();
  });
});
