/**
 * @module eval/suites/code/isolation
 * Finding how this machine can isolate a Python child: fresh user, network, PID, IPC, UTS and
 * mount namespaces via `unshare` (as the invoking user, or as `nobody` when that is root), a root
 * file system of the system's directories alone, no capabilities and no nested user namespaces;
 * resource limits via `prlimit`. Refuses, with a coded error, when the network cannot be cut,
 * unless the caller explicitly allows running without isolation.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { spawn } from "node:child_process";
import { SpadeError } from "../../../errors.js";

/** How runs are isolated. */
export interface IsolationPlan {
  /**
   * `user`: the namespaces sit in a user namespace of the run's own, whose root (the invoking
   * user, or `nobody` when that is root) sets the jail up and then runs the program with no
   * capabilities and no way to make another user namespace; `root`: the namespaces made as root,
   * the program dropped to `nobody`, only where `nobody` cannot make user namespaces (so neither
   * can the program); `none`: no namespaces (explicitly allowed).
   */
  mode: "root" | "user" | "none";
  /** argv prefix that enters the namespaces (empty for `none`). */
  namespacePrefix: string[];
  /** argv prefix that drops the program's privileges (empty for `none` unless root). */
  dropPrefix: string[];
  /** uid/gid that must own the run's scratch directory (`nobody` when the host is root). */
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

/** One entry of the program's root file system: a read-only bind of a host directory, or a symlink. */
export type RootEntry =
  | { kind: "bind"; path: string }
  | { kind: "link"; path: string; target: string };

/** The host's system directories offered to programs (those that exist; symlinks stay symlinks). */
export const SYSTEM_DIRS: readonly string[] = Object.freeze([
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
]);

/** Whether `path` is `dir` or lies under it. */
function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/**
 * The root file system programs see: `system` (default `SYSTEM_DIRS`) as read-only binds, or as
 * the same symlinks where the host has symlinks (merged /usr), then each of `extraDirs` (real
 * paths: the interpreter's prefix) that none of them already holds. Nothing else of the host:
 * no home directories, no /etc, no /tmp but the run's own scratch directory.
 */
export function rootLayout(
  extraDirs: readonly string[],
  system: readonly string[] = SYSTEM_DIRS,
): RootEntry[] {
  const layout: RootEntry[] = [];
  for (const path of system) {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch {
      continue;
    }
    if (stats.isSymbolicLink()) layout.push({ kind: "link", path, target: readlinkSync(path) });
    else if (stats.isDirectory()) layout.push({ kind: "bind", path });
  }
  const shortestFirst = [...new Set(extraDirs)].sort((a, b) => a.length - b.length);
  for (const path of shortestFirst) {
    if (!layout.some((entry) => entry.kind === "bind" && within(path, entry.path))) {
      layout.push({ kind: "bind", path });
    }
  }
  return layout;
}

/**
 * Run as the namespaces' root before the limits and the drop; `$1` /dev/shm bytes, `$2` scratch
 * bytes, `$3` `own` when the user namespace is the run's own, `$4` the number of root entries,
 * then that many triplets (`bind PATH -` or `link PATH TARGET`), then the command.
 *
 * The IPC namespace is fresh but its defaults allow 4096 System V segments of any size, 32000
 * message queues and 10^9 semaphores: a detached segment keeps its pages and RLIMIT_AS counts
 * only what is mapped, so a 1 GiB run held 3 GiB of the host's memory. Python's standard library
 * needs none of them, nor POSIX message queues; all are set to 0.
 *
 * No user namespace below the run's own (`user.max_user_namespaces` 0; the program has no
 * capability to raise it): in a nested one a program holds every capability again, and mounted
 * a 2 GiB tmpfs of the host's memory, or made a fresh IPC namespace with the defaults back.
 *
 * The scratch directory (the working directory) becomes a tmpfs of `$2` bytes and 4096 inodes,
 * owned as the directory was, with main.py copied in from the directory it covers: on disk a
 * run wrote 960 MiB there in 3 s, and 68k symlinks in 2 s.
 *
 * The program's root is a new tmpfs (over the run's parent directory, ours and unique) holding
 * the root entries read-only, the scratch directory at its own path, /dev with six device nodes
 * and a /dev/shm of `$1` bytes, and this namespace's /proc with /proc/sys read-only (the IPC and
 * user limits above are the namespace root's to write, and the program runs as that uid);
 * `pivot_root` makes it `/` and the host's tree is detached. Before, a program saw every file
 * its user could read, `$HOME` included, and as the root of its user namespace remounted the
 * host's read-only mounts writable. All of it goes with the namespace.
 */
const CONFINE_SCRIPT = [
  "set -e",
  "PATH=$PATH:/usr/sbin:/sbin",
  "shm=$1 scratch=$2 own=$3 n=$4",
  "shift 4",
  "echo 0 > /proc/sys/kernel/shmmni",
  "echo 0 > /proc/sys/kernel/msgmni",
  'echo "0 0 0 0" > /proc/sys/kernel/sem',
  "echo 0 > /proc/sys/fs/mqueue/queues_max",
  'if [ "$own" = own ]; then echo 0 > /proc/sys/user/max_user_namespaces; fi',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
  "run=$PWD new=${PWD%/*}",
  'mount -t tmpfs -o size="$scratch",nr_inodes=4096,mode=0700,uid="$(stat -c %u .)",gid="$(stat -c %g .)" spade-scratch "$run"',
  "# main.py resolves in the covered directory, still the shell's working directory.",
  'cp -p main.py "$run/main.py"',
  'cd "$run"',
  'mount -t tmpfs -o size=1m,nr_inodes=1024,mode=0755 spade-root "$new"',
  'while [ "$n" -gt 0 ]; do',
  '  if [ "$1" = link ]; then ln -s "$3" "$new$2"; else mkdir -p "$new$2" && mount --bind -o ro "$2" "$new$2"; fi',
  "  shift 3",
  "  n=$((n - 1))",
  "done",
  'mkdir -p "$new$run" "$new/dev/shm" "$new/proc"',
  "# The scratch tmpfs, by the working directory: its path now leads into the new root.",
  'mount --no-canonicalize --bind . "$new$run"',
  "for d in null zero full random urandom tty; do",
  '  : > "$new/dev/$d"',
  '  mount --bind "/dev/$d" "$new/dev/$d"',
  "done",
  'ln -s /proc/self/fd "$new/dev/fd"',
  'ln -s /proc/self/fd/0 "$new/dev/stdin"',
  'ln -s /proc/self/fd/1 "$new/dev/stdout"',
  'ln -s /proc/self/fd/2 "$new/dev/stderr"',
  'mount -t tmpfs -o size="$shm",nr_inodes=256,mode=1777,nosuid,nodev spade-shm "$new/dev/shm"',
  'mount --rbind /proc "$new/proc"',
  'mount --bind -o ro "$new/proc/sys" "$new/proc/sys"',
  'cd "$new"',
  "mkdir .host",
  "pivot_root . .host",
  "cd /",
  "umount -l /.host",
  "rmdir /.host",
  "mount -o remount,bind,ro /",
  'cd "$run"',
  "unset OLDPWD",
  'exec "$@"',
].join("\n");

/**
 * argv prefix run inside the namespaces, before the limits and the drop, that closes what the
 * namespaces leave open (see CONFINE_SCRIPT): a root of `layout` only, with a /dev/shm of
 * `shmBytes` and a scratch directory of `scratchBytes`; `ownUserNamespace` when the namespaces
 * sit in a user namespace of the run's own (mode `user`). Not for mode `none`.
 */
export function confinePrefix(
  ownUserNamespace: boolean,
  shmBytes: number,
  scratchBytes: number,
  layout: readonly RootEntry[],
): string[] {
  const entries = layout.flatMap((entry) =>
    entry.kind === "link" ? ["link", entry.path, entry.target] : ["bind", entry.path, "-"],
  );
  return [
    "/bin/sh",
    "-c",
    CONFINE_SCRIPT,
    "spade-confine",
    String(shmBytes),
    String(scratchBytes),
    ownUserNamespace ? "own" : "host",
    String(layout.length),
    ...entries,
  ];
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
  const toNobody = [
    commands.setpriv,
    `--reuid=${SANDBOX_UID}`,
    `--regid=${SANDBOX_UID}`,
    "--clear-groups",
  ];
  // No capability, none gained by exec (the bounding set is empty, setuid files do nothing).
  const powerless = ["--no-new-privs", "--bounding-set=-all", "--inh-caps=-all", "--"];
  const nobody = { uid: SANDBOX_UID, gid: SANDBOX_UID };
  const ownUser = [commands.unshare, "--user", "--map-root-user", ...NAMESPACES, "--"];
  const candidates: IsolationPlan[] = isRoot
    ? [
        {
          mode: "user",
          namespacePrefix: [...toNobody, "--", ...ownUser],
          dropPrefix: [commands.setpriv, ...powerless],
          runAs: nobody,
        },
        {
          mode: "root",
          namespacePrefix: [commands.unshare, ...NAMESPACES, "--"],
          dropPrefix: [...toNobody, ...powerless],
          runAs: nobody,
        },
      ]
    : [
        {
          mode: "user",
          namespacePrefix: ownUser,
          dropPrefix: [commands.setpriv, ...powerless],
          runAs: null,
        },
      ];
  for (const candidate of candidates) {
    const probe = [...candidate.namespacePrefix, ...candidate.dropPrefix, "true"];
    if ((await runQuiet(probe)).code === 0) return candidate;
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
  const canDrop = isRoot && (await runQuiet([...toNobody, "--", "true"])).code === 0;
  return {
    mode: "none",
    namespacePrefix: [],
    dropPrefix: canDrop ? [...toNobody, "--"] : [],
    runAs: canDrop ? nobody : null,
  };
}
