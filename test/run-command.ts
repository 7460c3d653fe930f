/**
 * @module test/run-command
 * Runs a citty command in this process, as `spade ...` would, and returns what it wrote to
 * stdout and stderr and the exit code it set (for unit tests of commands; e2e tests start the CLI).
 */
import { type ArgsDef, type CommandDef, runCommand } from "citty";
import { vi } from "vitest";

/** What a command wrote, and the exit code it set (undefined: none). */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
}

/**
 * Runs `command` with `args`, capturing stdout, stderr and the `process.exitCode` it sets (reset
 * first, and put back as it was afterwards, so a test's command does not end the test run).
 */
export async function runCaptured<T extends ArgsDef>(
  command: CommandDef<T>,
  args: string[],
): Promise<CommandOutput> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const exitCodeBefore = process.exitCode;
  try {
    process.exitCode = undefined;
    await runCommand(command, { rawArgs: args });
    return { stdout, stderr, exitCode: process.exitCode as number | undefined };
  } finally {
    process.exitCode = exitCodeBefore;
    out.mockRestore();
    err.mockRestore();
  }
}
