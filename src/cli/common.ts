/**
 * @module cli/common
 * What every command shares: parsing numeric flags, printing JSON, opening programs in the
 * sandbox named by `--sandbox`.
 */
import { SpadeError } from "../errors.js";
// The light module, not eval/index: every command loads this file.
import { DATA_DIR_ENV } from "../eval/data.js";
import { isOpenEnvRef, openRemoteEnv, resolveProgram, type ProgramSource } from "../envs/index.js";
import {
  loadProgram,
  programLanguageOfPath,
  SANDBOX_BACKENDS,
  type SandboxBackendName,
} from "../sandbox/index.js";
import type { Env } from "../env/index.js";
import type { PythonSandboxOptions } from "../eval/suites/code/python-sandbox.js";

/**
 * Exit code of `spade env run` and `spade eval ...` when no episode could be played: every one
 * failed (a model server that never answered, an environment that always crashed).
 */
export const EXIT_NOTHING_PLAYED = 3;

/** The summary line for runs where every episode failed, naming the first failure. */
export function nothingPlayedLine(
  what: string,
  count: number,
  firstFailure: string | null,
): string {
  return `no ${what} could be played: all ${count} failed${firstFailure ? ` (first failure: ${firstFailure.slice(0, 300)})` : ""}`;
}

/** The `--sandbox` flag, shared by commands that run programs. */
export const sandboxArg = {
  type: "string",
  description: `sandbox backend: ${SANDBOX_BACKENDS.join(" | ")}`,
  default: "isolated-vm",
} as const;

/** The `--cgroups` flag of the commands that run model-written Python. */
export const cgroupsArg = {
  type: "string",
  description:
    "code suites: cgroups per run (memory for all its processes together; cpu, an equal share per run; pids): auto (where this machine allows), off, self (this process's own v2 cgroup, delegated to it), or a cgroup directory",
  default: "auto",
} as const;

/** The code suites' `--python`, `--allow-no-isolation` and `--cgroups` flags (`spade eval suites`, `spade eval run`). */
export const codeSuiteArgs = {
  python: {
    type: "string",
    description: "code suites: Python 3 interpreter (default python3, else /usr/bin/python3)",
  },
  "allow-no-isolation": {
    type: "boolean",
    description: "code suites: run code WITHOUT a network namespace when none can be made (unsafe)",
    default: false,
  },
  cgroups: cgroupsArg,
} as const;

/** The Python sandbox's options from the code suites' flags (`python` only where it names one). */
export function codeSandboxOptions(args: {
  python?: string | undefined;
  "allow-no-isolation"?: boolean | undefined;
  cgroups?: string | undefined;
}): PythonSandboxOptions {
  const options: PythonSandboxOptions = {
    allowNoIsolation: args["allow-no-isolation"] === true,
    cgroups: args.cgroups ?? "auto",
  };
  if (args.python !== undefined) options.python = String(args.python);
  return options;
}

/** The `--json` flag. */
export const jsonArg = {
  type: "boolean",
  description: "print machine-readable JSON",
  default: false,
} as const;

/** The positional argument naming a run's folder (`spade runs show DIR`, `spade archive export DIR`). */
export const runDirArg = {
  type: "positional",
  description: "the run's folder",
  required: true,
} as const;

/**
 * The `--data` flag of the commands that read benchmark data; `what` says which folders it
 * accepts. The default is the one `dataRoot` resolves.
 */
export function dataArg(what = "data folder") {
  return {
    type: "string",
    description: `${what} (default $${DATA_DIR_ENV}, else $XDG_CACHE_HOME/spade/data or ~/.cache/spade/data; see \`spade data path\`)`,
  } as const;
}

/** Parses an integer flag in [min, max], or throws E_CONFIG naming the flag (and `nextStep`, if given). */
export function intFlag(
  name: string,
  value: unknown,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
  nextStep?: string,
): number {
  const n = typeof value === "number" ? value : Number(value);
  const next = nextStep === undefined ? {} : { nextStep };
  if (!Number.isInteger(n) || n < min) {
    throw new SpadeError(
      "E_CONFIG",
      `--${name} must be an integer >= ${min} (got ${JSON.stringify(value)})`,
      next,
    );
  }
  if (n > max)
    throw new SpadeError(
      "E_CONFIG",
      `--${name} must be at most ${max} (got ${JSON.stringify(value)})`,
      next,
    );
  return n;
}

/** Checks `--sandbox`. */
export function sandboxFlag(value: unknown): SandboxBackendName {
  if (!(SANDBOX_BACKENDS as readonly string[]).includes(String(value))) {
    throw new SpadeError(
      "E_CONFIG",
      `--sandbox must be one of ${SANDBOX_BACKENDS.join(", ")} (got ${JSON.stringify(value)})`,
    );
  }
  return value as SandboxBackendName;
}

/** Prints a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A program resolved from FILE|NAME, with an opener for fresh sandboxed instances. */
export interface OpenableProgram extends ProgramSource {
  open: () => Promise<Env>;
}

/** Resolves FILE|NAME (or `openenv+ws://...`) and returns an opener of fresh instances (compiled in the chosen sandbox; a `.py` file in the Python sandbox). */
export function openableProgram(ref: string, sandbox: unknown): OpenableProgram {
  const backend = sandboxFlag(sandbox);
  // A remote OpenEnv environment (openenv+ws://HOST:PORT/NAME): played over the network, no local source.
  if (isOpenEnvRef(ref))
    return { name: null, path: ref, source: "", open: () => openRemoteEnv(ref) };
  const program = resolveProgram(ref);
  return {
    ...program,
    open: () =>
      loadProgram(program.source, { backend, language: programLanguageOfPath(program.path) }),
  };
}
