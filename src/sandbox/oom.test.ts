import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { skipWithout } from "../../test/missing.js";
import { RunCgroup } from "../eval/suites/code/cgroup.js";
import { resolveCgroups } from "../eval/suites/code/cgroup-find.js";
import { OOM_FIRST_SH } from "./oom.js";

const parent = await resolveCgroups("auto");

/** Python: holds 100 MiB, says so, then sleeps (the host's stand-in). */
const HOLD = "b = b'x' * (100 << 20); print('held', flush=True); import time; time.sleep(30)";
/** Python: grows by 10 MiB a step up to 150 MiB (model-written code's stand-in). */
const GROW =
  "import time\nb = []\nfor i in range(15):\n    b.append(b'x' * (10 << 20)); time.sleep(0.02)";

/** How `child` ended: its signal's name, or its exit code ("running" while it runs). */
function ending(child: ChildProcess): string {
  return child.signalCode ?? (child.exitCode === null ? "running" : `exit ${child.exitCode}`);
}

describe.skipIf(
  skipWithout(parent ? null : "no memory cgroup this user may make children in (v1, or v2)"),
)("the highest out-of-memory score (in a memory cgroup of 160 MiB, as the machine would)", () => {
  /** How a holder of 100 MiB and a grower up to 150 end at the cap (the holder: while running). */
  async function victim(growerFirst: boolean): Promise<string> {
    if (!parent) throw new Error("no cgroup");
    const group = await RunCgroup.create(parent, { memoryBytes: 160 << 20, processes: 8 });
    const [join = "", ...joinArgs] = group.joinPrefix();
    const python = (code: string, first: boolean) =>
      spawn(
        join,
        [
          ...joinArgs,
          "/bin/sh",
          "-c",
          `${first ? `${OOM_FIRST_SH}; ` : ""}exec /usr/bin/python3 -c "$0"`,
          code,
        ],
        { stdio: ["ignore", "pipe", "ignore"] },
      );
    const host = python(HOLD, false);
    const hostExit = once(host, "exit");
    try {
      await once(host.stdout ?? host, "data");
      const grower = python(GROW, growerFirst);
      await once(grower, "exit");
      // A grower that got all it asked for had the host killed: wait to see that exit.
      const waitMs = grower.exitCode === 0 ? 5000 : 100;
      await Promise.race([hostExit, new Promise((resolve) => setTimeout(resolve, waitMs))]);
      return `host ${ending(host)}, grower ${ending(grower)}`;
    } finally {
      if (ending(host) === "running") host.kill("SIGKILL");
      await hostExit;
      await group.remove();
    }
  }

  it("makes the kernel kill the sandboxed process first, though it is the smaller", async () => {
    // Without it the kernel takes the largest: the host's stand-in.
    expect(await victim(false)).toBe("host SIGKILL, grower exit 0");
    expect(await victim(true)).toBe("host running, grower SIGKILL");
  });
});
