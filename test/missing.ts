/**
 * @module test/missing
 * The one rule for a test whose data or tool is missing: under CI it fails (CI has what
 * `npm test` installs and the benchmark data), elsewhere it is skipped with the reason printed.
 */

/** True when `env` says this is CI (`CI` set to anything but "", "0" or "false"). */
export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false";
}

/**
 * Whether to skip a suite that needs something: `missing` is null when it is there, else why it
 * is not (say what to run or where to put it). Under CI a missing need throws, failing the file;
 * elsewhere the reason is printed and the answer is true (skip). Use as
 * `describe.skipIf(skipWithout(present ? null : "…"))(…)`.
 */
export function skipWithout(
  missing: string | null,
  env: NodeJS.ProcessEnv = process.env,
  print: (line: string) => void = (line) => console.warn(line),
): boolean {
  if (missing === null) return false;
  if (isCI(env)) throw new Error(`missing under CI, where it must be present: ${missing}`);
  print(`skipped: ${missing}`);
  return true;
}

/**
 * Whether to skip an optional cross-check: one against a source that no install step can bring
 * (an upstream checkout the user names in an environment variable). Skipped with the reason
 * printed wherever it is missing, under CI too; use `skipWithout` for anything `npm test`
 * installs or the benchmark data holds.
 */
export function skipOptional(
  missing: string | null,
  print: (line: string) => void = (line) => console.warn(line),
): boolean {
  if (missing === null) return false;
  print(`skipped (optional): ${missing}`);
  return true;
}
