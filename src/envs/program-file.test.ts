import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CodeAndMessage, codeAndMessageOf } from "../../test/assert.js";
import { fileTempDir } from "../../test/cleanup.js";
import { makeProgram } from "../sandbox/testing/programs.js";
import { resolveProgram } from "./index.js";
import { MAX_PROGRAM_FILE_BYTES, readProgramFile } from "./program-file.js";

const dir = fileTempDir("spade-program-file-");
const SOURCE = makeProgram();

function at(name: string, content?: Buffer | string): string {
  const path = join(dir, name);
  if (content !== undefined) writeFileSync(path, content);
  return path;
}

/** The code and message `resolveProgram(path)` fails with. */
function failure(path: string): CodeAndMessage {
  return codeAndMessageOf(() => resolveProgram(path));
}

// Issue 16 item 14: a 1.5 GB file was read whole and called a permission problem; a directory or a
// FIFO was "no file named"; UTF-16 and invalid UTF-8 gave a bare syntax error.
describe("reading program files", () => {
  it("reads a UTF-8 program, dropping a UTF-8 byte-order mark", () => {
    expect(resolveProgram(at("ok.js", SOURCE))).toEqual({
      name: null,
      path: join(dir, "ok.js"),
      source: SOURCE,
    });
    expect(
      readProgramFile(
        at("bom.js", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(SOURCE)])),
      ),
    ).toBe(SOURCE);
  });

  it("refuses a directory and a FIFO by their type, without opening them", () => {
    const folder = join(dir, "folder.js");
    mkdirSync(folder);
    expect(failure(folder)).toEqual({
      code: "E_IO",
      message: `${folder}: is a directory, not a program file (give the path of a .js file)`,
    });
    const fifo = join(dir, "pipe.js");
    execFileSync("mkfifo", [fifo]);
    expect(failure(fifo)).toEqual({
      code: "E_IO",
      message: `${fifo}: is a FIFO (named pipe), not a program file (give the path of a .js file)`,
    });
  });

  it("refuses a 1.5 GB file by its size, before reading it", () => {
    const big = at("big.js", "");
    truncateSync(big, 1.5e9); // sparse: no disk used
    const before = process.memoryUsage().rss;
    expect(failure(big)).toEqual({
      code: "E_IO",
      message: `${big}: is 1500000000 bytes, over the ${MAX_PROGRAM_FILE_BYTES}-byte limit for a program (environment programs are small: check that this is the right file)`,
    });
    expect(process.memoryUsage().rss - before).toBeLessThan(16 * 1024 * 1024);
    expect(failure(at("just-over.js", "x".repeat(MAX_PROGRAM_FILE_BYTES + 1))).message).toContain(
      `is ${MAX_PROGRAM_FILE_BYTES + 1} bytes, over`,
    );
    expect(readProgramFile(at("at-limit.js", "x".repeat(MAX_PROGRAM_FILE_BYTES)))).toHaveLength(
      MAX_PROGRAM_FILE_BYTES,
    );
  });

  it("names UTF-16 (with or without a byte-order mark) and invalid UTF-8", () => {
    const utf16 = Buffer.from(`\ufeff${SOURCE}`, "utf16le");
    expect(failure(at("bom16.js", utf16)).message).toBe(
      `${join(dir, "bom16.js")}: is UTF-16 (it starts with a UTF-16 byte-order mark); programs must be UTF-8 (save the file as UTF-8)`,
    );
    expect(failure(at("plain16.js", Buffer.from(SOURCE, "utf16le"))).message).toContain(
      "looks like UTF-16",
    );
    const latin1 = Buffer.concat([
      Buffer.from("// caf"),
      Buffer.from([0xe9]),
      Buffer.from(`\n${SOURCE}`),
    ]);
    expect(failure(at("latin1.js", latin1))).toEqual({
      code: "E_IO",
      message: `${join(dir, "latin1.js")}: is not valid UTF-8 (first bad byte at offset 6) (save the file as UTF-8)`,
    });
  });

  it("falls back to library names for missing paths", () => {
    expect(resolveProgram("vault-cracker").name).toBe("vault-cracker");
    expect(failure(join(dir, "missing.js")).code).toBe("E_NOT_FOUND");
  });

  // Skipped as root: root reads any file, so there is no permission to be denied.
  it.skipIf(process.getuid?.() === 0)(
    "says permission denied for an unreadable file (skipped as root)",
    () => {
      const locked = at("locked.js", SOURCE);
      chmodSync(locked, 0o000);
      expect(failure(locked)).toEqual({
        code: "E_IO",
        message: `${locked}: permission denied (check the file's permissions)`,
      });
    },
  );
});
