/**
 * @module sandbox/oom
 * Model-written code dies first when the machine runs out of memory. Each sandbox's limits cap
 * one process or one run, but where no cgroup holds them all (a host without one, a run of many
 * processes, several sandboxes at once) their sum can still exhaust the host, and the kernel's
 * out-of-memory killer then picks the process it scores highest: by default the largest, which
 * may be SPADE itself or a training engine. Every process that runs model-written code (the
 * isolated-vm sandbox processes, the Python environment jail, the code suites' runs) starts at
 * the highest score, `oom_score_adj` 1000, and its children inherit it: the kernel kills them
 * before any process of the host. Raising one's own score needs no privilege.
 */

/** The highest out-of-memory score adjustment: such a process is killed first. */
export const OOM_SCORE_ADJ_FIRST = 1000;

/**
 * The `sh` command that sets the shell's own score to `OOM_SCORE_ADJ_FIRST` (silent, and a no-op,
 * where /proc is missing), for the start of a shell line that then execs the sandboxed process.
 */
export const OOM_FIRST_SH = `{ echo ${OOM_SCORE_ADJ_FIRST} > /proc/self/oom_score_adj; } 2>/dev/null`;
