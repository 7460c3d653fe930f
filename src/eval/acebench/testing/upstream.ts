/**
 * @module eval/acebench/testing/upstream
 * Upstream ACEBench's own Python, for the optional cross-checks: SPADE_ACEBENCH_SRC names a
 * checkout or its git directory (no install step can bring it, so these checks are optional).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileTempDir } from "../../../../test/cleanup.js";

/** ACEBench/ACEBench at the data's commit. */
export const UPSTREAM_COMMIT = "e6db74b735ead22c24f27367606a9408573b848f";

/** The project venv's Python, which runs upstream's scripts. */
export const VENV_PYTHON = resolve(".venv/bin/python");

/**
 * Upstream's source tree holding `files` (paths in the repository): SPADE_ACEBENCH_SRC itself when
 * it is a checkout that has the first of them, else the pinned commit's `files` extracted from
 * the git directory it names into a temporary folder (removed after the test file: call it where
 * `afterAll` may be). Undefined when the variable is unset.
 */
export function upstreamTree(files: readonly string[]): string | undefined {
  const src = process.env.SPADE_ACEBENCH_SRC;
  if (!src) return undefined;
  if (existsSync(join(src, files[0]!))) return src;
  const out = fileTempDir("acebench-upstream-");
  execFileSync("bash", [
    "-c",
    `git --git-dir="$0" archive ${UPSTREAM_COMMIT} ${files.join(" ")} | tar -x -C "$1"`,
    src,
    out,
  ]);
  return out;
}

/** Why an upstream cross-check cannot run (for `skipOptional`), or null when it can. */
export function upstreamMissing(tree: string | undefined): string | null {
  if (tree === undefined) {
    return "SPADE_ACEBENCH_SRC names no ACEBench checkout (its git directory or a work tree)";
  }
  return existsSync(VENV_PYTHON)
    ? null
    : `no .venv Python at ${VENV_PYTHON} (bash scripts/setup-python.sh)`;
}
