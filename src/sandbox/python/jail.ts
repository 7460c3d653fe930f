/**
 * @module sandbox/python/jail
 * Finds the host's bubblewrap and Python once, and builds the command line that starts one jailed
 * interpreter: empty namespaces (no network, no other processes, no host files but the interpreter
 * and its libraries, read-only), no capabilities, an empty environment, rlimits set by `sh`.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir, machine } from "node:os";
import { join } from "node:path";
import { SpadeError } from "../../errors.js";
import { hostDirEntries } from "../host-dirs.js";
import { OOM_FIRST_SH } from "../oom.js";
import { PYTHON_ALLOWED_MODULES, PYTHON_RUNNER } from "./runner.js";

/** The host programs the jail needs, resolved to absolute paths. */
export interface JailTools {
  /** Absolute path of `bwrap`. */
  bwrap: string;
  /** Absolute real path of the Python executable. */
  python: string;
  /** The interpreter's `sys.base_prefix` (bound read-only into the jail). */
  prefix: string;
  /** `major.minor` of the interpreter. */
  version: string;
  /** Folder of the packages offered to programs (numpy), bound read-only at `/spade-site`; null when absent. */
  site: string | null;
  /**
   * Absolute path of util-linux's `setarch` when it can turn address-space randomisation off
   * here (a container's seccomp profile may refuse that); null otherwise.
   */
  setarch: string | null;
  /** The fixed bytes the jail shows as `/dev/urandom` and `/dev/random` (`ensureEntropyFile`). */
  entropy: string;
}

/** Where `scripts/setup-sandbox.sh` installs the packages offered to programs (requirements-sandbox.txt). */
export const DEFAULT_SANDBOX_SITE = join(homedir(), ".cache", "spade", "sandbox-site");

/** Where the fixed bytes the jail reads as `/dev/urandom` are kept (see `ensureEntropyFile`). */
export const ENTROPY_FILE = join(homedir(), ".cache", "spade", "sandbox-entropy-v1");
/** Their size: 4 MiB, far more than seeding takes (32 bytes a `random.Random()`). */
export const ENTROPY_BYTES = 4 * 1024 * 1024;

/**
 * Writes `path` (ENTROPY_BYTES of SHA-256 over a counter, the same on every host) unless it is
 * there at its size. A jailed program's randomness from the system (`random.Random()` unseeded,
 * `SystemRandom`, numpy's `default_rng()`) reads it: with the kernel's entropy, two processes
 * of the same program and seeds played different episodes.
 */
export function ensureEntropyFile(path: string = ENTROPY_FILE): string {
  if (existsSync(path) && statSync(path).size === ENTROPY_BYTES) return path;
  const bytes = Buffer.alloc(ENTROPY_BYTES);
  for (let block = 0; block * 32 < ENTROPY_BYTES; block++) {
    createHash("sha256")
      .update(`spade sandbox entropy ${block}`)
      .digest()
      .copy(bytes, block * 32);
  }
  mkdirSync(join(path, ".."), { recursive: true });
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
  return path;
}

/** Where the jail shows that folder. */
const SITE_IN_JAIL = "/spade-site";

/** Options of `findJailTools`. */
export interface JailToolOptions {
  /** The Python interpreter to run programs with. Default `python3` from PATH. */
  python?: string;
  /** The bubblewrap executable. Default `bwrap` from PATH. */
  bwrap?: string;
  /** Folder of extra packages (numpy) offered to programs; null for none. Default `DEFAULT_SANDBOX_SITE` when it exists. */
  site?: string | null;
}

const NEXT_STEP =
  "install bubblewrap and python3 (Debian: apt-get install bubblewrap python3); `bash scripts/setup-sandbox.sh` does it as root";

function unavailable(problem: string, cause?: unknown): SpadeError {
  return new SpadeError("E_SANDBOX_UNAVAILABLE", `the Python sandbox cannot start: ${problem}`, {
    nextStep: NEXT_STEP,
    cause,
  });
}

/** The absolute path of `command` on PATH (or `command` itself when it is a path), else null. */
function which(command: string): string | null {
  if (command.includes("/")) return existsSync(command) ? command : null;
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(`${dir}/${command}`)) return `${dir}/${command}`;
  }
  return null;
}

/**
 * Resolves bubblewrap and the interpreter (asking the interpreter for its real executable and
 * prefix: pyenv's `python3` is a shell shim). E_SANDBOX_UNAVAILABLE when either is missing, the
 * host is not Linux, or the jail cannot start here (no user namespaces).
 */
export function findJailTools(options: JailToolOptions = {}): JailTools {
  if (process.platform !== "linux")
    throw unavailable(`it needs Linux namespaces, and this host is ${process.platform}`);
  const bwrap = which(options.bwrap ?? "bwrap");
  if (!bwrap) throw unavailable("bubblewrap (bwrap) is not on PATH");
  const pythonCommand = which(options.python ?? "python3");
  if (!pythonCommand) throw unavailable(`${options.python ?? "python3"} is not on PATH`);
  const probe = spawnSync(
    pythonCommand,
    [
      "-S",
      "-c",
      "import sys, os, json; print(json.dumps([os.path.realpath(sys.executable), sys.base_prefix, '%d.%d' % sys.version_info[:2]]))",
    ],
    {
      encoding: "utf8",
      timeout: 20_000,
    },
  );
  let answer: unknown;
  try {
    answer = JSON.parse(probe.stdout.trim().split("\n").pop() ?? "");
  } catch (cause) {
    throw unavailable(
      `${pythonCommand} did not say where it lives (${probe.stderr?.slice(0, 200) || probe.error?.message || "no output"})`,
      cause,
    );
  }
  const [python, prefix, version] = answer as [string, string, string];
  const [major, minor] = version.split(".").map(Number);
  if (major !== 3 || (minor as number) < 9)
    throw unavailable(`Python ${version} is too old: 3.9 or later is needed`);
  const site =
    options.site === undefined
      ? existsSync(DEFAULT_SANDBOX_SITE)
        ? DEFAULT_SANDBOX_SITE
        : null
      : options.site;
  const setarchPath = which("setarch");
  const setarch =
    setarchPath &&
    spawnSync(setarchPath, [machine(), "-R", python, "-S", "-c", "print('ok')"], {
      encoding: "utf8",
      timeout: 20_000,
    }).stdout?.trim() === "ok"
      ? setarchPath
      : null;
  let entropy: string;
  try {
    entropy = ensureEntropyFile();
  } catch (cause) {
    throw unavailable(
      `it could not write its fixed entropy file ${ENTROPY_FILE} (${(cause as Error).message}); make ~/.cache/spade writable`,
      cause,
    );
  }
  const tools = { bwrap, python, prefix, version, site, setarch, entropy };
  const smoke = spawnSync(bwrap, [...jailArgs(tools), python, "-S", "-c", "print('ok')"], {
    encoding: "utf8",
    timeout: 20_000,
  });
  if (smoke.stdout.trim() !== "ok") {
    throw unavailable(
      `bubblewrap could not start a jail (${(smoke.stderr || smoke.error?.message || `status ${smoke.status}`).trim().slice(0, 300)}); user namespaces may be disabled`,
    );
  }
  return tools;
}

/** Binds for the system's shared libraries: a symlinked /lib stays a symlink. */
function libraryBinds(): string[] {
  return hostDirEntries(["/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/lib32"]).flatMap(
    (entry) =>
      entry.kind === "link"
        ? ["--symlink", entry.target, entry.path]
        : ["--ro-bind", entry.path, entry.path],
  );
}

/** bubblewrap's options for one jail (without the command), `--seccomp 3` excepted. */
export function jailArgs(tools: JailTools): string[] {
  const prefixBind = ["/usr", "/usr/lib", "/usr/lib64", "/lib", "/lib64"].includes(tools.prefix)
    ? []
    : ["--ro-bind", tools.prefix, tools.prefix];
  return [
    "--unshare-all",
    "--unshare-user",
    "--uid",
    "65534",
    "--gid",
    "65534",
    "--die-with-parent",
    "--new-session",
    // The interpreter itself is the jail's pid 1 (no reaper: it cannot fork), so the pid that
    // --info-fd reports is the one the host stops between calls.
    "--as-pid-1",
    "--cap-drop",
    "ALL",
    "--clearenv",
    "--setenv",
    "PYTHONHASHSEED",
    "0",
    "--setenv",
    "LC_ALL",
    "C.UTF-8",
    "--setenv",
    "TZ",
    "UTC",
    // numpy's OpenBLAS would start threads, which the seccomp filter refuses.
    "--setenv",
    "OPENBLAS_NUM_THREADS",
    "1",
    ...libraryBinds(),
    ...(tools.site ? ["--ro-bind", tools.site, SITE_IN_JAIL] : []),
    ...(tools.prefix === "/usr" ? ["--ro-bind", "/usr", "/usr"] : prefixBind),
    "--dev",
    "/dev",
    "--ro-bind",
    tools.entropy,
    "/dev/urandom",
    "--ro-bind",
    tools.entropy,
    "/dev/random",
    // bwrap's /dev is a tmpfs the guest's uid owns: files there are kernel memory that
    // RLIMIT_AS never counts (200k symlinks held 800 MB for a 32 MiB guest). Device nodes stay usable.
    "--remount-ro",
    "/dev",
    "--remount-ro",
    "/",
    "--chdir",
    "/",
  ];
}

/** Extra address space a Python interpreter maps before a program runs (measured ~25 MB; doubled). */
export const PYTHON_BASE_ADDRESS_BYTES = 64 * 1024 * 1024;

/**
 * The full command (`sh` first) that starts one jailed runner with the seccomp filter on fd 3,
 * bwrap's JSON status (the interpreter's `child-pid`) written to fd 4, the highest out-of-memory
 * score (sandbox/oom.ts), and `RLIMIT_AS` =
 * `memoryBytes` + the interpreter's own, no core files, no file writes, 64 fds. Under `setarch -R`
 * where it works: without address-space randomisation, the order of a set of objects hashed by
 * identity (and `id()`) is the same in every process that made the same calls.
 */
export function jailCommand(
  tools: JailTools,
  memoryBytes: number,
): { command: string; args: string[] } {
  const addressKiB = Math.ceil((memoryBytes + PYTHON_BASE_ADDRESS_BYTES) / 1024);
  const limits = `ulimit -v ${addressKiB} && ulimit -c 0 && ulimit -f 0 && ulimit -n 64`;
  const shell = `${OOM_FIRST_SH}; ${limits} && exec "$@"`;
  return {
    command: "/bin/sh",
    args: [
      "-c",
      shell,
      "sh",
      ...(tools.setarch ? [tools.setarch, machine(), "-R"] : []),
      tools.bwrap,
      ...jailArgs(tools),
      "--seccomp",
      "3",
      "--info-fd",
      "4",
      tools.python,
      "-S",
      "-s",
      "-B",
      "-c",
      PYTHON_RUNNER,
      JSON.stringify(PYTHON_ALLOWED_MODULES),
      tools.site ? SITE_IN_JAIL : "",
    ],
  };
}
