/**
 * @module eval/suites/code/isolation
 * Finding how this machine can isolate a Python child: fresh user, network, PID, IPC, UTS and
 * mount namespaces via `unshare` (as the invoking user, or as `nobody` when that is root), a root
 * file system of the system's directories alone, no capabilities and no nested user namespaces;
 * resource limits via `prlimit`. Refuses, with a coded error, when the network cannot be cut,
 * unless the caller explicitly allows running without isolation.
 */
import { spawn } from "node:child_process";
import { SpadeError } from "../../../errors.js";
import { hostDirEntries, type RootEntry } from "../../../sandbox/host-dirs.js";

export type { RootEntry };

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
  /** The namespace prefix dies with the host and runs `HOST_ALIVE_SH`: spawn it with `HOST_PID_ENV`. */
  diesWithHost: boolean;
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

/**
 * The variable in which the spawner names its own PID for `HOST_ALIVE_SH`; the check removes it,
 * so the program never sees it.
 */
export const HOST_PID_ENV = "SPADE_HOST_PID";

/**
 * The `sh -c` line that goes on only while its parent is the host that spawned it. A parent-death
 * signal set after the host has died never fires: a host killed between the spawn and setpriv's
 * prctl would leave the run sleeping on, as an orphan. Run right after that prctl, this closes the
 * window: a parent that dies later delivers the signal, one already dead is seen here.
 */
export const HOST_ALIVE_SH = `[ "$PPID" = "\${${HOST_PID_ENV}:-}" ] || exit 125; unset ${HOST_PID_ENV}; exec "$@"`;

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
    const env = { ...process.env, [HOST_PID_ENV]: String(process.pid) };
    const child = spawn(argv[0] ?? "", argv.slice(1), { env, stdio: ["ignore", "pipe", "pipe"] });
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
  const layout = hostDirEntries(system);
  const shortestFirst = [...new Set(extraDirs)].sort((a, b) => a.length - b.length);
  for (const path of shortestFirst) {
    if (!layout.some((entry) => entry.kind === "bind" && within(path, entry.path))) {
      layout.push({ kind: "bind", path });
    }
  }
  return layout;
}

/**
 * Python run as the namespaces' root before the limits and the drop (the interpreter the
 * sandbox found, `-I -S -B`): `argv[1]` /dev/shm bytes, `argv[2]` scratch bytes, `argv[3]`
 * `own` when the user namespace is the run's own, `argv[4]` the number of root entries, then
 * that many triplets (`bind PATH -` or `link PATH TARGET`), then the command it execs. One
 * process making its mounts by system call: the shell it replaces ran some 30 commands
 * (`mount`, `ln`, `mkdir`...), 36 of a run's 52 ms.
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
 * The scratch directory (the working directory) becomes a tmpfs of `argv[2]` bytes and 4096
 * inodes, owned as the directory was, with main.py copied in from the directory it covers: on
 * disk a run wrote 960 MiB there in 3 s, and 68k symlinks in 2 s.
 *
 * The program's root is a new tmpfs (over the run's parent directory, ours and unique) holding
 * the root entries read-only, the scratch directory at its own path, /dev with six device nodes
 * and a /dev/shm of `argv[1]` bytes, and this namespace's /proc with /proc/sys read-only (the IPC
 * and user limits above are the namespace root's to write, and the program runs as that uid);
 * `pivot_root` makes it `/` and the host's tree is detached. Before, a program saw every file
 * its user could read, `$HOME` included, and as the root of its user namespace remounted the
 * host's read-only mounts writable. All of it goes with the namespace.
 *
 * A read-only bind keeps the flags the kernel locks on a mount from a more privileged namespace
 * (nosuid, nodev, noexec, atime), as `mount -o bind,ro` does: a remount without them is refused.
 */
const CONFINE_PY = [
  "import ctypes, os, sys",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "RDONLY, NOSUID, NODEV, NOEXEC, REMOUNT, BIND, REC = 1, 2, 4, 8, 32, 4096, 16384",
  "KEPT = ((os.ST_NOSUID, NOSUID), (os.ST_NODEV, NODEV), (os.ST_NOEXEC, NOEXEC),",
  "        (os.ST_NOATIME, 1024), (os.ST_NODIRATIME, 2048), (os.ST_RELATIME, 1 << 21))",
  "# pivot_root's number where it is known for sure; elsewhere util-linux's command does it.",
  "PIVOT_ROOT = {'x86_64': 155, 'aarch64': 41, 'riscv64': 41, 'loongarch64': 41}",
  "def check(result, what):",
  "    if result != 0:",
  "        err = ctypes.get_errno()",
  "        raise OSError(err, '%s: %s' % (what, os.strerror(err)))",
  "def mount(source, target, fstype, flags, data=None):",
  "    args = [None if a is None else os.fsencode(a) for a in (source, target, fstype, data)]",
  "    check(libc.mount(args[0], args[1], args[2], ctypes.c_ulong(flags), args[3]), 'mount ' + target)",
  "def bind_ro(source, target):",
  "    mount(source, target, None, BIND)",
  "    locked = os.statvfs(target).f_flag",
  "    kept = sum(flag for st, flag in KEPT if locked & st)",
  "    mount(None, target, None, REMOUNT | BIND | RDONLY | kept)",
  "def write(path, text):",
  "    with open(path, 'w') as f:",
  "        f.write(text)",
  "shm, scratch, own, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])",
  "entries = sys.argv[5:5 + 3 * n]",
  "command = sys.argv[5 + 3 * n:]",
  "write('/proc/sys/kernel/shmmni', '0')",
  "write('/proc/sys/kernel/msgmni', '0')",
  "write('/proc/sys/kernel/sem', '0 0 0 0')",
  "write('/proc/sys/fs/mqueue/queues_max', '0')",
  "if own == 'own':",
  "    write('/proc/sys/user/max_user_namespaces', '0')",
  "run = os.getcwd()",
  "new = os.path.dirname(run)",
  "owner = os.stat('.')",
  "size = 'size=%s,nr_inodes=4096,mode=0700,uid=%d,gid=%d' % (scratch, owner.st_uid, owner.st_gid)",
  "mount('spade-scratch', run, 'tmpfs', 0, size)",
  "# main.py resolves in the covered directory, still the working directory.",
  "source = os.stat('main.py')",
  "with open('main.py', 'rb') as f:",
  "    program = f.read()",
  "fd = os.open(run + '/main.py', os.O_WRONLY | os.O_CREAT | os.O_EXCL, source.st_mode & 0o7777)",
  "os.write(fd, program)",
  "os.fchown(fd, source.st_uid, source.st_gid)",
  "os.close(fd)",
  "os.chdir(run)",
  "mount('spade-root', new, 'tmpfs', 0, 'size=1m,nr_inodes=1024,mode=0755')",
  "for i in range(0, len(entries), 3):",
  "    kind, path, target = entries[i:i + 3]",
  "    if kind == 'link':",
  "        os.symlink(target, new + path)",
  "    else:",
  "        os.makedirs(new + path, exist_ok=True)",
  "        bind_ro(path, new + path)",
  "for d in (run, '/dev/shm', '/proc'):",
  "    os.makedirs(new + d, exist_ok=True)",
  "# The scratch tmpfs, by the working directory: its path now leads into the new root.",
  "mount('.', new + run, None, BIND)",
  "for d in ('null', 'zero', 'full', 'random', 'urandom', 'tty'):",
  "    os.close(os.open(new + '/dev/' + d, os.O_WRONLY | os.O_CREAT, 0o644))",
  "    mount('/dev/' + d, new + '/dev/' + d, None, BIND)",
  "os.symlink('/proc/self/fd', new + '/dev/fd')",
  "for i, name in enumerate(('stdin', 'stdout', 'stderr')):",
  "    os.symlink('/proc/self/fd/%d' % i, new + '/dev/' + name)",
  "mount('spade-shm', new + '/dev/shm', 'tmpfs', NOSUID | NODEV, 'size=%s,nr_inodes=256,mode=1777' % shm)",
  "mount('/proc', new + '/proc', None, BIND | REC)",
  "bind_ro(new + '/proc/sys', new + '/proc/sys')",
  "os.chdir(new)",
  "os.mkdir('.host')",
  "number = PIVOT_ROOT.get(os.uname().machine)",
  "if number is not None:",
  "    check(libc.syscall(number, b'.', b'.host'), 'pivot_root')",
  "else:",
  "    tool = next(p for p in ('/usr/sbin/pivot_root', '/sbin/pivot_root') if os.path.exists(p))",
  "    if os.spawnv(os.P_WAIT, tool, [tool, '.', '.host']) != 0:",
  "        raise OSError('pivot_root . .host failed')",
  "os.chdir('/')",
  "check(libc.umount2(b'/.host', 2), 'umount /.host')",
  "os.rmdir('/.host')",
  "mount(None, '/', None, REMOUNT | BIND | RDONLY)",
  "os.chdir(run)",
  "os.execvp(command[0], command)",
].join("\n");

/**
 * argv prefix run inside the namespaces, before the limits and the drop, that closes what the
 * namespaces leave open (see CONFINE_PY), with `python` (the sandbox's interpreter): a root of
 * `layout` only, with a /dev/shm of `shmBytes` and a scratch directory of `scratchBytes`;
 * `ownUserNamespace` when the namespaces sit in a user namespace of the run's own (mode
 * `user`). Not for mode `none`.
 */
export function confinePrefix(
  python: string,
  ownUserNamespace: boolean,
  shmBytes: number,
  scratchBytes: number,
  layout: readonly RootEntry[],
): string[] {
  const entries = layout.flatMap((entry) =>
    entry.kind === "link" ? ["link", entry.path, entry.target] : ["bind", entry.path, "-"],
  );
  return [
    python,
    "-I",
    "-S",
    "-B",
    "-c",
    CONFINE_PY,
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
  // `unshare` dies with the host (its parent) where setpriv can say so, and takes the namespace
  // with it (`--kill-child`): a host killed with SIGKILL left its runs sleeping on, as orphans.
  // The spawner sets HOST_PID_ENV (runQuiet too, for the probes below).
  const withHost =
    (await runQuiet([commands.setpriv, "--pdeathsig=KILL", "--", "true"])).code === 0;
  const hostAlive = ["/bin/sh", "-c", HOST_ALIVE_SH, "spade-host-alive"];
  const dies = withHost ? ["--pdeathsig=KILL", "--", ...hostAlive] : ["--"];
  const dieWithHost = withHost ? [commands.setpriv, ...dies] : [];
  const candidates: IsolationPlan[] = isRoot
    ? [
        {
          mode: "user",
          namespacePrefix: [...toNobody, ...dies, ...ownUser],
          dropPrefix: [commands.setpriv, ...powerless],
          runAs: nobody,
          diesWithHost: withHost,
        },
        {
          mode: "root",
          namespacePrefix: [...dieWithHost, commands.unshare, ...NAMESPACES, "--"],
          dropPrefix: [...toNobody, ...powerless],
          runAs: nobody,
          diesWithHost: withHost,
        },
      ]
    : [
        {
          mode: "user",
          namespacePrefix: [...dieWithHost, ...ownUser],
          dropPrefix: [commands.setpriv, ...powerless],
          runAs: null,
          diesWithHost: withHost,
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
    diesWithHost: false,
  };
}
