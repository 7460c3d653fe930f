/** Naming the processes that hold a store's locks, from /proc/locks (Linux; skipped elsewhere). */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import { holdStore, release } from "../../test/hold-store.js";
import { skipOptional } from "../../test/missing.js";
import { lockingPids, processesLocking, procLocksId } from "./lock-holders.js";

const tmp = tempDirsAfterEach("spade-lock-holders-");

describe("procLocksId", () => {
  it("writes stat's device number as /proc/locks does: major:minor in hex, then the inode", () => {
    // glibc's encoding: minor's low 8 bits, major's 12 << 8, minor's high bits << 12, major's high bits << 32.
    expect(
      [
        [0xfe00n, 9994383n], // 254:0, a device-mapper disk
        [45n, 12n], // 0:45, a tmpfs
        [(259n << 8n) | 3n, 7n], // 259:3, an NVMe partition
        [(8n << 8n) | 0x2cn | (0x100n << 12n), 1n], // 8:300, a minor past 255
      ].map(([dev, ino]) => procLocksId(dev as bigint, ino as bigint)),
    ).toEqual(["fe:00:9994383", "00:2d:12", "103:03:7", "08:12c:1"]);
  });
});

describe("lockingPids", () => {
  const LOCKS = [
    "1: POSIX  ADVISORY  READ 18154 fe:00:9994383 1073741826 1073742335",
    "1: -> POSIX  ADVISORY  WRITE 18200 fe:00:9994383 1073741826 1073742335", // waits: holds nothing
    "2: POSIX  ADVISORY  WRITE 17000 fe:00:9994383 1073741824 1073741824",
    "3: OFDLCK ADVISORY  READ  -1 fe:00:9994383 0 EOF", // no PID to name
    "4: FLOCK  ADVISORY  WRITE 16160 fe:00:10037502 0 EOF", // another file
    "5: POSIX  ADVISORY  READ 18154 00:2d:12 128 128", // the same process on the -shm
    "",
  ].join("\n");

  it("lists each holder of a lock on the files once, ascending; not waiters, not PID -1", () => {
    expect([
      lockingPids(LOCKS, new Set(["fe:00:9994383"])),
      lockingPids(LOCKS, new Set(["fe:00:9994383", "00:2d:12", "fe:00:10037502"])),
      lockingPids(LOCKS, new Set(["fe:00:1"])),
      lockingPids("", new Set(["fe:00:9994383"])),
    ]).toEqual([[17000, 18154], [16160, 17000, 18154], [], []]);
  });
});

describe.skipIf(skipOptional(existsSync("/proc/locks") ? null : "no /proc/locks (not Linux)"))(
  "processesLocking",
  () => {
    it("names another process with a read transaction open on a store, and leaves this one out", async () => {
      const path = join(tmp(), "run.sqlite");
      const db = new Database(path);
      db.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
      db.exec("BEGIN; SELECT * FROM t"); // this process holds a lock too
      const holder = await holdStore(path, ["BEGIN", "SELECT * FROM t"]);
      try {
        // This process is left out; seen from the holder, it is named (vitest retitles it).
        expect([
          processesLocking([path, `${path}-shm`]),
          processesLocking([path], holder.pid).map((p) => p.pid),
        ]).toEqual([[{ pid: holder.pid, command: "node" }], [process.pid]]);
      } finally {
        await release(holder);
        db.close();
      }
      expect(processesLocking([path])).toEqual([]);
    });
  },
);
