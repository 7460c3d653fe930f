/**
 * `spade runs export DIR --to tensorboard OUT` on a full disk (a small tmpfs; skipped with the
 * reason printed where none can be mounted): E_DISK_FULL saying what to do, and no cut event
 * file left behind to read as a second, shorter run. The run is a store written directly (a test
 * double of a finished run).
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RunStore } from "../../src/store/index.js";
import { fileTempDir } from "../cleanup.js";
import { mountTmpfs, skipWithoutTmpfs } from "../tmpfs.js";
import { spade } from "./cli.js";

const dir = fileTempDir("spade-runs-export-");
const run = join(dir, "run");
const STEPS = 40;

beforeAll(() => {
  const store = RunStore.open(run, "create");
  try {
    for (let step = 0; step < STEPS; step++) {
      store.beginStep(step);
      const metrics = { step, agentSuccess: step / STEPS, hintedSuccess: 0.5, meanRegret: 0.25 };
      store.completeStep(step, { ...metrics, train: { loss: 1 / (step + 1), kl: 0.01 } });
    }
  } finally {
    store.close();
  }
});

describe.skipIf(skipWithoutTmpfs())("spade runs export --to tensorboard, full disk", () => {
  it("E_DISK_FULL saying to run it again, no event file left, full at once or part-way; with space it exports", async () => {
    const disk = mkdtempSync(join(dir, "full-"));
    const unmount = mountTmpfs(disk, "16k");
    try {
      const out = join(disk, "tb");
      // 12 KiB taken: the export (about 5 KiB) stops part-way; 16 KiB: at its first record.
      for (const filler of [12 * 1024, 16 * 1024]) {
        writeFileSync(join(disk, "filler"), Buffer.alloc(filler));
        const r = await spade(["runs", "export", run, "--to", "tensorboard", out]);
        expect([r.code, r.stdout]).toEqual([2, ""]);
        expect(r.stderr).toMatch(
          new RegExp(
            `^spade: E_DISK_FULL: the disk holding ${out}/events\\.out\\.tfevents\\.\\S+ is full \\(ENOSPC: no space left on device, write\\) \\(free space on the disk holding ${out} and run the command again\\)\\n$`,
          ),
        );
        expect(readdirSync(out)).toEqual([]);
      }
      rmSync(join(disk, "filler"));
      const again = await spade(["runs", "export", run, "--to", "tensorboard", out]);
      expect([again.code, again.stderr]).toEqual([0, ""]);
      expect(again.stdout).toMatch(
        new RegExp(`^exported ${STEPS} steps \\(${STEPS * 5} scalars, 0 transcripts\\) to ${out}/`),
      );
      const written = readdirSync(out);
      expect(written).toHaveLength(1);
      expect(statSync(join(out, written[0]!)).size).toBeGreaterThan(4096); // so the first try was cut part-way
    } finally {
      unmount();
    }
  });
});
