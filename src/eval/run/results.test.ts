import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeAndMessageOfAsync } from "../../../test/assert.js";
import { tempDirsAfterEach } from "../../../test/cleanup.js";
import { mountTmpfs, skipWithoutTmpfs } from "../../../test/tmpfs.js";
import { prepareOutDir, readItemResults, writeItemResult, writeJsonAtomic } from "./results.js";
import type { SpadeError } from "../../errors.js";
import type { ItemResult } from "./types.js";

const tmp = tempDirsAfterEach("spade-eval-results-");
const item = (id: string, note: string): ItemResult =>
  ({ id, group: "g", accuracy: 1, samples: [{ sample: 0, note }] }) as unknown as ItemResult;

describe("the output folder", () => {
  it("one that cannot be made is E_IO saying to check --out", async () => {
    const file = join(tmp(), "a-file");
    writeFileSync(file, "");
    const info = { benchmark: "b", model: "m", samples: 1 } as Parameters<typeof prepareOutDir>[1];
    const err = (await prepareOutDir(join(file, "out"), info, false).catch((e) => e)) as SpadeError;
    expect([err.code, err.message]).toEqual([
      "E_IO",
      `cannot create ${file}/out/items: ENOTDIR: not a directory, mkdir '${file}/out/items' (check --out points at a writable folder)`,
    ]);
  });
});

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
