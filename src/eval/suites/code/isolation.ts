/**
 * @module eval/suites/code/isolation
 * Finding how this machine can isolate a Python child: fresh network, PID, IPC, UTS and mount
 * namespaces via `unshare` (as root, or unprivileged through a user namespace), a drop to the
 * `nobody` user via `setpriv` when root, and resource limits via `prlimit`. Refuses, with a coded error, when
 * the network cannot be cut, unless the caller explicitly allows running without isolation.
 */
import { spawn } from "node:child_process";
import { SpadeError } from "../../../errors.js";

/** How runs are isolated. */
export interface IsolationPlan {
  /** `root`: namespaces as root; `user`: namespaces inside a user namespace; `none`: no namespaces (explicitly allowed). */
  mode: "root" | "user" | "none";
  /** argv prefix that enters the namespaces (empty for `none`). */
  namespacePrefix: string[];
  /** argv prefix that drops to the unprivileged user (empty unless root). */
  dropPrefix: string[];
  /** uid/gid the program runs as, when dropped (its scratch directory is handed to it). */
  runAs: { uid: number; gid: number } | null;
}

/** Commands used for isolation; tests point them elsewhere to simulate a machine without them. */
export interface IsolationCommands {
  /** Default `unshare`. */
  unshare: string;
  /** Default `setpriv`. */
  setpriv: string;
  /** Default `prlimit`. */
  prlimit: string;
}

/** The default isolation commands (util-linux). */
export const DEFAULT_ISOLATION_COMMANDS: Readonly<IsolationCommands> = Object.freeze({
  unshare: "unshare",
  setpriv: "setpriv",
  prlimit: "prlimit",
});

/** The unprivileged user that programs run as when the host is root (`nobody`). */
export const SANDBOX_UID = 65534;

/** Runs a command to completion; resolves to its exit code (-1 when it could not start). */
export function runQuiet(
  argv: readonly string[],
  timeoutMs = 5000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    const child = spawn(argv[0] ?? "", argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: stderr + err.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/**
 * `--mount-proc`: a mount namespace whose /proc is the new PID namespace's (no host processes);
 * its propagation private (unshare's default, said here), so no mount made in it reaches the host.
 */
const NAMESPACES = [
  "--net",
  "--pid",
  "--fork",
  "--kill-child",
  "--ipc",
  "--uts",
  "--mount-proc",
  "--propagation",
  "private",
];

/**
 * Run by the namespaces' root before the drop. The IPC namespace is fresh but its defaults
 * allow 4096 System V segments of any size, 32000 message queues and 10^9 semaphores: a detached
 * segment keeps its pages and RLIMIT_AS counts only what is mapped, so a 1 GiB run held 3 GiB of
 * the host's memory. Python's standard library needs none of them, nor POSIX message queues.
 *
 * The mount namespace is a private copy of the host's (nothing done here reaches the host):
 * every writable mount but the scratch directory turns read-only, and /dev/shm becomes a tmpfs
 * of its own of `$1` bytes. Before, a run left files in /tmp, /var/tmp, /run/lock and the host's
 * /dev/shm, and put 2000 MiB of the host's memory there in 3 s, kept after it ended. Kernel file
 * systems nobody can write (proc, sysfs, cgroup, devpts) are left as they are.
 *
 * The scratch directory (the working directory) becomes a tmpfs of `$2` bytes and 4096 inodes,
 * owned as the directory was, with main.py copied in from the directory it covers: on disk a
 * run wrote 960 MiB there in 3 s, and 68k symlinks in 2 s. The tmpfs goes with the namespace.
 */
const CONFINE_SCRIPT = [
  "set -e",
  "echo 0 > /proc/sys/kernel/shmmni",
  "echo 0 > /proc/sys/kernel/msgmni",
  'echo "0 0 0 0" > /proc/sys/kernel/sem',
  "echo 0 > /proc/sys/fs/mqueue/queues_max",
  'mount -t tmpfs -o size="$2",nr_inodes=4096,mode=0700,uid="$(stat -c %u .)",gid="$(stat -c %g .)" spade-scratch "$PWD"',
  "# main.py resolves in the covered directory, still the shell's working directory.",
  'cp -p main.py "$PWD/main.py"',
  "for m in $(findmnt -rno TARGET -O rw -t nosysfs,nocgroup,nocgroup2,noproc,nodevpts); do",
  '  [ "$m" = "$PWD" ] || mount -o remount,bind,ro "$m"',
  "done",
  "if [ -d /dev/shm ]; then",
  '  mount -t tmpfs -o size="$1",nr_inodes=256,mode=1777,nosuid,nodev spade-shm /dev/shm',
  "fi",
  'cd "$PWD"',
  "unset OLDPWD",
  "shift 2",
  'exec "$@"',
].join("\n");

/**
 * argv prefix run inside the namespaces, before the limits and the drop, that closes what the
 * namespaces leave open (see CONFINE_SCRIPT), with a /dev/shm of `shmBytes` and a scratch
 * directory of `scratchBytes`; not for mode `none`.
 */
export function confinePrefix(shmBytes: number, scratchBytes: number): string[] {
  return ["/bin/sh", "-c", CONFINE_SCRIPT, "spade-confine", String(shmBytes), String(scratchBytes)];
}

/**
 * Probes the machine and returns the isolation plan. Throws E_SANDBOX_UNAVAILABLE when `prlimit`
 * is missing, or when no network namespace can be made and `allowNoIsolation` is false.
 */
export async function planIsolation(
  commands: IsolationCommands,
  allowNoIsolation: boolean,
): Promise<IsolationPlan> {
  if ((await runQuiet([commands.prlimit, "--version"])).code !== 0) {
    throw new SpadeError(
      "E_SANDBOX_UNAVAILABLE",
      `\`${commands.prlimit}\` (util-linux) is needed to limit Python's memory, CPU and processes`,
      {
        nextStep: "install util-linux",
      },
    );
  }
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const dropPrefix = [
    commands.setpriv,
    `--reuid=${SANDBOX_UID}`,
    `--regid=${SANDBOX_UID}`,
    "--clear-groups",
    "--",
  ];
  const canDrop = isRoot && (await runQuiet([...dropPrefix, "true"])).code === 0;
  const drop = canDrop
    ? { dropPrefix, runAs: { uid: SANDBOX_UID, gid: SANDBOX_UID } }
    : { dropPrefix: [], runAs: null };

  const candidates: Array<{ mode: "root" | "user"; prefix: string[] }> = isRoot
    ? [{ mode: "root", prefix: [commands.unshare, ...NAMESPACES, "--"] }]
    : [
        {
          mode: "user",
          prefix: [commands.unshare, "--user", "--map-root-user", ...NAMESPACES, "--"],
        },
      ];
  for (const candidate of candidates) {
    if ((await runQuiet([...candidate.prefix, "true"])).code === 0) {
      return { mode: candidate.mode, namespacePrefix: candidate.prefix, ...drop };
    }
  }
  if (!allowNoIsolation) {
    throw new SpadeError(
      "E_SANDBOX_UNAVAILABLE",
      "cannot create a network namespace to cut untrusted Python code off the network",
      {
        nextStep:
          "run as root or enable unprivileged user namespaces (kernel.unprivileged_userns_clone=1); to run model-written code WITHOUT network isolation anyway, pass --allow-no-isolation",
      },
    );
  }
  return { mode: "none", namespacePrefix: [], ...drop };
}
