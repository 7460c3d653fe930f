import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeAndMessageOfAsync } from "../../../test/assert.js";
import { tempDirsAfterEach } from "../../../test/cleanup.js";
import { mountTmpfs, skipWithoutTmpfs } from "../../../test/tmpfs.js";
import { readItemResults, writeItemResult, writeJsonAtomic } from "./results.js";
import type { ItemResult } from "./types.js";

const tmp = tempDirsAfterEach("spade-eval-results-");
const item = (id: string, note: string): ItemResult =>
  ({ id, group: "g", accuracy: 1, samples: [{ sample: 0, note }] }) as unknown as ItemResult;

describe.skipIf(skipWithoutTmpfs())("item files on a full disk (tmpfs of 16 KiB)", () => {
  it("E_DISK_FULL saying to free space and --resume; no half file, finished items read back", async () => {
    const out = tmp();
    const unmount = mountTmpfs(out, "16k");
    try {
      mkdirSync(join(out, "items"));
      await writeItemResult(out, item("a", "done"));
      writeFileSync(join(out, "filler"), Buffer.alloc(4096));
      const err = await codeAndMessageOfAsync(writeItemResult(out, item("b", "x".repeat(20_000))));
      expect(err.code).toBe("E_DISK_FULL");
      expect(err.message).toMatch(
        /^the disk holding \S+\/items\/b\.json is full \(ENOSPC: .*\) \(finished items are kept: free space and rerun the command with --resume\)$/,
      );
      expect(readdirSync(join(out, "items"))).toEqual(["a.json"]); // the temporary file is gone
      expect([...(await readItemResults(out)).keys()]).toEqual(["a"]);
      await expect(writeJsonAtomic(join(out, "run.json"), { ok: true })).resolves.toBeUndefined();
    } finally {
      unmount();
    }
  });
});
