/**
 * @module cli/main
 * The `spade` command. The only module that calls `process.exit`. Exit codes: 0 success,
 * 1 a negative result (an invalid environment, a failed check), 2 usage, configuration or I/O error,
 * 3 nothing could be played (`env run`, `eval`: every episode failed), 130 interrupted.
 */
import { stripVTControlCharacters } from "node:util";
import { renderUsage, runCommand, type ArgsDef, type CommandDef } from "citty";
import { isSpadeError, SpadeError } from "../errors.js";
import { storeIoError } from "../store/index.js";
import { main } from "./commands.js";
import { visibleText } from "./guest-text.js";
import { rejectUnknownOptions } from "./unknown-options.js";

const USAGE_CODES = new Set([
  "E_CONFIG",
  "E_IO",
  "E_NOT_FOUND",
  "E_RUN_LOCKED",
  "E_STORE_CORRUPT",
  "E_DISK_FULL",
]);

/**
 * A Node system error (ENOSPC, EROFS...) thrown by code that did not code it, as a coded error.
 * Its file is not known to be a run folder's, so a full disk says to run the command again.
 */
function codedSystemError(err: unknown): SpadeError | null {
  const e = err as { syscall?: unknown; path?: unknown } | null;
  if (typeof e?.syscall !== "string") return null;
  return storeIoError(
    err,
    typeof e.path === "string" ? e.path : "a file",
    "free space and run the command again (with --resume, spade run and spade eval continue where they stopped)",
  );
}

/** Finds the sub-command that `--help` asks about. */
async function commandFor(
  rawArgs: string[],
): Promise<{ cmd: CommandDef<ArgsDef>; parent?: CommandDef<ArgsDef> }> {
  let cmd: CommandDef<ArgsDef> = main;
  let parent: CommandDef<ArgsDef> | undefined;
  for (const word of rawArgs) {
    if (word.startsWith("-")) break;
    const subs =
      typeof cmd.subCommands === "function" ? await cmd.subCommands() : await cmd.subCommands;
    const next = subs?.[word];
    if (!next) break;
    parent = cmd;
    cmd = typeof next === "function" ? await next() : await next;
  }
  return { cmd, parent };
}

/** `text` as `stream` shows it: citty's colours only on a terminal, not in a pipe or a file. */
function forStream(text: string, stream: NodeJS.WriteStream): string {
  return stream.isTTY ? text : stripVTControlCharacters(text);
}

async function run(rawArgs: string[]): Promise<number> {
  if (rawArgs.length === 0 || rawArgs.includes("--help") || rawArgs.includes("-h")) {
    const { cmd, parent } = await commandFor(rawArgs);
    process.stdout.write(`${forStream(await renderUsage(cmd, parent), process.stdout)}\n`);
    return rawArgs.length === 0 ? 2 : 0;
  }
  if (rawArgs.length === 1 && (rawArgs[0] === "--version" || rawArgs[0] === "-v")) {
    process.stdout.write("0.1.0\n");
    return 0;
  }
  process.exitCode = 0;
  try {
    await rejectUnknownOptions(main, rawArgs);
    await runCommand(main, { rawArgs });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (thrown) {
    const err = codedSystemError(thrown) ?? thrown;
    if (isSpadeError(err)) {
      process.stderr.write(`spade: ${err.code}: ${visibleText(err.message)}\n`);
      return USAGE_CODES.has(err.code) ? 2 : 1;
    }
    if (err instanceof Error && err.name === "CLIError") {
      const { cmd, parent } = await commandFor(rawArgs);
      const text = `${await renderUsage(cmd, parent)}\n\nspade: ${err.message}`;
      process.stderr.write(`${forStream(text, process.stderr)}\n`);
      return 2;
    }
    process.stderr.write(
      `spade: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return 1;
  }
}

/** Exits once stdout and stderr are flushed (a plain exit can cut a large JSON written to a pipe). */
function exitAfterFlush(code: number): void {
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

run(process.argv.slice(2)).then(exitAfterFlush, (err: unknown) => {
  process.stderr.write(`spade: ${err instanceof SpadeError ? err.message : String(err)}\n`);
  exitAfterFlush(1);
});
