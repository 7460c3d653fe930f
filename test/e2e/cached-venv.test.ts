/**
 * scripts/lib/cached-venv.sh, the install-or-reuse step of the setup-*.sh scripts, run for real
 * (bash, python3 -m venv, pip) by a throwaway caller over an empty requirements list in a temp dir.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../cleanup.js";

const REPO = new URL("../..", import.meta.url).pathname;
const HELPER = join(REPO, "scripts/lib/cached-venv.sh");
const work = fileTempDir("spade-cached-venv-");
const venv = join(work, "venv");
const script = join(work, "setup-demo.sh");
const req = join(work, "requirements-demo.txt");

writeFileSync(
  script,
  `#!/usr/bin/env bash
set -euo pipefail
source ${JSON.stringify(HELPER)}
cd "$(dirname "$0")"
demo_check() { echo "checked $1" >&2; [ ! -e fail-check ]; }
cached_venv --name demo --dir-var DEMO_DIR --requirements requirements-demo.txt \\
  --python-var DEMO_PYTHON --min-python 3.10 --note "tiny; cached afterwards" \\
  --check demo_check --check-failure "the demo does not import" --pip-env "DEMO_LEVEL=7"
`,
);
writeFileSync(req, "# nothing to install\n");

/** Runs the demo caller as the setup scripts are run; DEMO_DIR points into the temp dir. */
function setup(env: Record<string, string> = {}) {
  const r = spawnSync("bash", [script], {
    encoding: "utf8",
    env: { ...process.env, DEMO_DIR: venv, ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The stamp the helper must write: sha256 over the list, the caller and the helper, in order. */
function expectedStamp(): string {
  const hash = createHash("sha256");
  for (const file of [req, script, HELPER]) hash.update(readFileSync(file));
  return `${hash.digest("hex")}\n`;
}

const INSTALLING = `demo: installing requirements-demo.txt into ${venv} (tiny; cached afterwards)\n`;
const INSTALLED = /^demo: installed in \d+ s, \d+ MB\n$/;

describe("cached_venv (scripts/lib/cached-venv.sh)", () => {
  it("installs once, stamps the list, the caller and the helper, then reuses the venv", () => {
    const first = setup();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`${venv}/bin/python\n`);
    expect(first.stderr.startsWith(INSTALLING)).toBe(true);
    expect(first.stderr.slice(INSTALLING.length)).toMatch(INSTALLED);
    expect(readFileSync(join(venv, ".requirements.sha256"), "utf8")).toBe(expectedStamp());
    expect(readFileSync(`${venv}.check.log`, "utf8")).toBe(`checked ${venv}\n`);

    const second = setup();
    expect(second).toEqual({
      code: 0,
      stdout: `${venv}/bin/python\n`,
      stderr: `demo: cached at ${venv}\n`,
    });
  }, 120_000);

  it("reinstalls when the calling script changes", () => {
    appendFileSync(script, "# changed\n");
    const again = setup();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.startsWith(INSTALLING)).toBe(true);
    expect(readFileSync(join(venv, ".requirements.sha256"), "utf8")).toBe(expectedStamp());
  }, 120_000);

  it("a failing check exits 1 naming its log and leaves no stamp", () => {
    writeFileSync(join(work, "fail-check"), "");
    appendFileSync(req, "# changed\n");
    const failed = setup();
    rmSync(join(work, "fail-check"));
    expect(failed).toEqual({
      code: 1,
      stdout: "",
      stderr: `${INSTALLING}demo: the demo does not import; see ${venv}.check.log\n`,
    });
    expect(readFileSync(`${venv}.check.log`, "utf8")).toBe(`checked ${venv}\n`);
    expect(existsSync(join(venv, ".requirements.sha256"))).toBe(false);
  }, 120_000);

  it("pip sees --pip-env and its failure is the script's exit status", () => {
    writeFileSync(req, "./missing-${DEMO_LEVEL}\n");
    const failed = setup();
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe("");
    expect(failed.stderr.startsWith(INSTALLING)).toBe(true);
    expect(failed.stderr).toContain("ERROR: Invalid requirement: './missing-7'");
  }, 120_000);

  it("refuses an interpreter older than --min-python, naming --python-var", () => {
    const refused = setup({ DEMO_PYTHON: "/bin/false" });
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: "demo: /bin/false is older than Python 3.10; set DEMO_PYTHON to a newer one\n",
    });
  });

  it("stops at an unknown option with exit 2", () => {
    const r = spawnSync(
      "bash",
      ["-c", `source ${JSON.stringify(HELPER)}; cached_venv --name x --bogus 1`],
      {
        encoding: "utf8",
      },
    );
    expect({ code: r.status, stderr: r.stderr }).toEqual({
      code: 2,
      stderr: "cached_venv: unknown option --bogus\n",
    });
  });
});
