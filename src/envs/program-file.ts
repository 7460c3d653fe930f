/**
 * @module envs/program-file
 * Reads an environment program from disk the careful way: the path's type and size are checked
 * before a byte is read (a FIFO would block, a 1.5 GB file would be read whole), and the bytes
 * must be UTF-8 (UTF-16 and invalid UTF-8 are named, not left to a syntax error).
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { SpadeError } from "../errors.js";
import { DEFAULT_LIMITS } from "../sandbox/index.js";

/** Largest program file read: the sandbox's default source limit. */
export const MAX_PROGRAM_FILE_BYTES = DEFAULT_LIMITS.sourceBytes;

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "not a regular file";
}

function ioError(path: string, problem: string, nextStep: string, cause?: unknown): SpadeError {
  return new SpadeError("E_IO", `${path}: ${problem}`, { nextStep, cause });
}

/** Throws E_IO unless `stats` is a regular file of at most `maxBytes`. */
function checkStats(path: string, stats: Stats, maxBytes: number): void {
  if (!stats.isFile())
    throw ioError(path, `is ${kindOf(stats)}, not a program file`, "give the path of a .js file");
  if (stats.size > maxBytes) {
    throw ioError(
      path,
      `is ${stats.size} bytes, over the ${maxBytes}-byte limit for a program`,
      "environment programs are small: check that this is the right file",
    );
  }
}

/** Reads at most `maxBytes + 1` bytes of an open file. */
function readBounded(fd: number, maxBytes: number): Buffer {
  const buffer = Buffer.alloc(maxBytes + 1);
  let length = 0;
  for (;;) {
    const n = readSync(fd, buffer, length, buffer.length - length, null);
    if (n === 0) break;
    length += n;
    if (length === buffer.length) break;
  }
  return buffer.subarray(0, length);
}

/** The text of UTF-8 `bytes` (a UTF-8 byte-order mark dropped); E_IO naming the encoding otherwise. */
export function decodeProgramText(path: string, bytes: Buffer): string {
  const next = "save the file as UTF-8";
  if (
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  ) {
    throw ioError(
      path,
      "is UTF-16 (it starts with a UTF-16 byte-order mark); programs must be UTF-8",
      next,
    );
  }
  const zeros = bytes.subarray(0, 4096).filter((b) => b === 0).length;
  if (zeros > 0 && zeros * 4 >= Math.min(bytes.length, 4096)) {
    throw ioError(
      path,
      "looks like UTF-16 (a quarter or more of its bytes are zero); programs must be UTF-8",
      next,
    );
  }
  const body =
    bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
      ? bytes.subarray(3)
      : bytes;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
  } catch (cause) {
    throw ioError(
      path,
      `is not valid UTF-8 (first bad byte at offset ${firstInvalidUtf8(body)})`,
      next,
      cause,
    );
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const need =
      b < 0x80
        ? 0
        : b >= 0xc2 && b <= 0xdf
          ? 1
          : b >= 0xe0 && b <= 0xef
            ? 2
            : b >= 0xf0 && b <= 0xf4
              ? 3
              : -1;
    if (need < 0) return i;
    const sequence = bytes.subarray(i, i + need + 1);
    if (sequence.length < need + 1) return i;
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(sequence);
    } catch {
      return i;
    }
    i += need + 1;
  }
  return bytes.length;
}

/**
 * The UTF-8 text of the program file at `path`. E_IO, with what is wrong, when the path is not a
 * regular file (a directory, a FIFO: checked before opening, and opened non-blocking), is larger
 * than `maxBytes`, cannot be read (the system's reason), or is not UTF-8 (UTF-16 is named).
 * A missing path throws the system's ENOENT error unchanged, so callers can fall back.
 */
export function readProgramFile(path: string, maxBytes: number = MAX_PROGRAM_FILE_BYTES): string {
  checkStats(path, statSync(path), maxBytes);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why =
      code === "EACCES" || code === "EPERM"
        ? "permission denied"
        : `cannot be opened (${code ?? String(cause)})`;
    throw ioError(path, why, "check the file's permissions", cause);
  }
  try {
    // The path may have changed since it was checked: check what was actually opened.
    checkStats(path, fstatSync(fd), maxBytes);
    const bytes = readBounded(fd, maxBytes);
    if (bytes.length > maxBytes)
      throw ioError(
        path,
        `grew past the ${maxBytes}-byte limit for a program while being read`,
        "read a file that is not being written",
      );
    return decodeProgramText(path, bytes);
  } catch (cause) {
    if (cause instanceof SpadeError) throw cause;
    throw ioError(
      path,
      `could not be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`,
      "check the file and the disk",
      cause,
    );
  } finally {
    closeSync(fd);
  }
}
