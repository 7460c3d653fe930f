/**
 * @module sandbox/python/seccomp
 * The seccomp filter the Python jail runs under, built as a classic BPF program (the form
 * bubblewrap's `--seccomp FD` reads): no sockets, no new processes or threads, no tracing, no
 * mounts or namespaces, no kernel keyrings, BPF, io_uring or user-fault handling, no System V
 * IPC or POSIX message queues.
 */
import { SpadeError } from "../../errors.js";

/** Architectures the filter is written for, with their audit arch and denied syscall numbers. */
const ARCHES = {
  x64: {
    audit: 0xc000003e,
    syscalls: {
      socket: 41,
      connect: 42,
      accept: 43,
      bind: 49,
      listen: 50,
      socketpair: 53,
      accept4: 288,
      clone: 56,
      fork: 57,
      vfork: 58,
      clone3: 435,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      chroot: 161,
      unshare: 272,
      setns: 308,
      personality: 135,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      kexec_load: 246,
      add_key: 248,
      request_key: 249,
      keyctl: 250,
      bpf: 321,
      userfaultfd: 323,
      perf_event_open: 298,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      execveat: 322,
      // ENOSYS: Python then reads /dev/urandom, which the jail binds to a fixed file (jail.ts).
      getrandom: 318,
      // System V IPC and POSIX message queues: their memory outlives any mapping, so RLIMIT_AS
      // never counts it (24 detached 32 MiB segments held 768 MB for a 32 MiB guest).
      shmget: 29,
      shmat: 30,
      shmctl: 31,
      shmdt: 67,
      semget: 64,
      semop: 65,
      semctl: 66,
      semtimedop: 220,
      msgget: 68,
      msgsnd: 69,
      msgrcv: 70,
      msgctl: 71,
      mq_open: 240,
      mq_unlink: 241,
      mq_timedsend: 242,
      mq_timedreceive: 243,
      mq_notify: 244,
      mq_getsetattr: 245,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    syscalls: {
      socket: 198,
      connect: 203,
      accept: 202,
      bind: 200,
      listen: 201,
      socketpair: 199,
      accept4: 242,
      clone: 220,
      clone3: 435,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      chroot: 51,
      unshare: 97,
      setns: 268,
      personality: 92,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      kexec_load: 104,
      add_key: 217,
      request_key: 218,
      keyctl: 219,
      bpf: 280,
      userfaultfd: 282,
      perf_event_open: 241,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      execveat: 281,
      getrandom: 278,
      shmget: 194,
      shmat: 196,
      shmctl: 195,
      shmdt: 197,
      semget: 190,
      semop: 193,
      semctl: 191,
      semtimedop: 192,
      msgget: 186,
      msgsnd: 189,
      msgrcv: 188,
      msgctl: 187,
      mq_open: 180,
      mq_unlink: 181,
      mq_timedsend: 182,
      mq_timedreceive: 183,
      mq_notify: 184,
      mq_getsetattr: 185,
    },
  },
} as const;

/**
 * Names of the syscalls the filter refuses (EPERM; `clone3` and `getrandom` get ENOSYS, so libc
 * falls back to `clone` and Python to reading `/dev/urandom`).
 */
export const DENIED_SYSCALLS: readonly string[] = Object.freeze(Object.keys(ARCHES.x64.syscalls));

/** The classic-BPF instructions the filter uses (`linux/filter.h`). */
const BPF = { LD_W_ABS: 0x20, JEQ_K: 0x15, JGE_K: 0x35, RET_K: 0x06 } as const;
/** seccomp's return actions (`linux/seccomp.h`); ERRNO is or-ed with the errno. */
const RET = { ALLOW: 0x7fff0000, KILL_PROCESS: 0x80000000, ERRNO: 0x00050000 } as const;
/** The errnos refused calls get. */
const ERRNO = { EPERM: 1, ENOSYS: 38 } as const;
/** Refused as if absent, so that callers fall back. */
const ABSENT: ReadonlySet<string> = new Set(["clone3", "getrandom"]);
/** x32 system calls on x86-64 carry this bit; they are refused wholesale. */
const X32_SYSCALL_BIT = 0x40000000;

/**
 * The filter for `arch` (Node's `process.arch`) as bytes of `struct sock_filter[]`.
 * E_SANDBOX_UNAVAILABLE for an architecture it is not written for.
 */
export function buildSeccompFilter(arch: string = process.arch): Buffer {
  const table = arch === "x64" ? ARCHES.x64 : arch === "arm64" ? ARCHES.arm64 : undefined;
  if (!table) {
    throw new SpadeError(
      "E_SANDBOX_UNAVAILABLE",
      `the Python sandbox's seccomp filter is written for x64 and arm64, not ${arch}`,
      {
        nextStep:
          "run Python environments on an x64 or arm64 Linux host, or use JavaScript programs",
      },
    );
  }
  const insns: Array<[number, number, number, number]> = [];
  insns.push([BPF.LD_W_ABS, 0, 0, 4]); // seccomp_data.arch
  insns.push([BPF.JEQ_K, 1, 0, table.audit]);
  insns.push([BPF.RET_K, 0, 0, RET.KILL_PROCESS]);
  insns.push([BPF.LD_W_ABS, 0, 0, 0]); // seccomp_data.nr
  if (arch === "x64") {
    insns.push([BPF.JGE_K, 0, 1, X32_SYSCALL_BIT]);
    insns.push([BPF.RET_K, 0, 0, RET.ERRNO | ERRNO.EPERM]);
  }
  for (const [name, nr] of Object.entries(table.syscalls)) {
    insns.push([BPF.JEQ_K, 0, 1, nr]);
    insns.push([BPF.RET_K, 0, 0, RET.ERRNO | (ABSENT.has(name) ? ERRNO.ENOSYS : ERRNO.EPERM)]);
  }
  insns.push([BPF.RET_K, 0, 0, RET.ALLOW]);
  const bytes = Buffer.alloc(insns.length * 8);
  insns.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}
