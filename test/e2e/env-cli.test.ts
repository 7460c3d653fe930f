/**
 * `spade env` through the real, built command (`bin/spade.js` -> `dist/`): exit codes, JSON
 * shapes and exact values. `npm test` builds first.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHECK_CODES } from "../../src/env/index.js";
import { makeProgram } from "../../src/sandbox/testing/programs.js";
import { spade } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-e2e-");

function file(name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

describe("spade env check", () => {
  it("exits 0 and prints the report as JSON for a valid library environment", async () => {
    const r = await spade(["env", "check", "vault-cracker", "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(true);
    expect(report.failures).toEqual([]);
    expect(report.checks).toHaveLength(CHECK_CODES.length);
    expect(report.meta).toMatchObject({
      name: "vault-cracker",
      skill: "Logical Deduction",
      maxTurns: 10,
      tools: [],
    });
  });

  it("exits 1 with the failing codes for an invalid program", async () => {
    const path = file(
      "wins.js",
      makeProgram({
        step: 'return { observation: "won", reward: 1, terminated: true, truncated: false, info: {} };',
      }),
    );
    const r = await spade(["env", "check", path, "--json", "--sandbox", "quickjs"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).failures).toEqual(["E_TRIVIAL"]);
  });

  it("exits 1 for a program that does not compile, and prints a readable report", async () => {
    const r = await spade(["env", "check", file("broken.js", "class Environment {")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^INVALID: .*broken\.js\n {2}FAIL E_COMPILE/);
  });

  it("exits 2 for a missing file, an unknown backend and a missing argument", async () => {
    const missing = await spade(["env", "check", join(dir, "nope.js")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("E_NOT_FOUND");
    const backend = await spade(["env", "check", "vault-cracker", "--sandbox", "nodevm"]);
    expect(backend.code).toBe(2);
    expect(backend.stderr).toContain("E_CONFIG: --sandbox must be one of isolated-vm, quickjs");
    expect((await spade(["env", "check"])).code).toBe(2);
  });

  it("exits 2 for a misspelt flag and names the one meant", async () => {
    const r = await spade(["env", "check", "vault-cracker", "--sandbx", "quickjs"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "spade: E_CONFIG: unknown option --sandbx for spade env check: did you mean --sandbox? " +
        "(spade env check --help lists its options)\n",
    );
  });
});

describe("spade --help", () => {
  // citty colours its help unless CI, TEST or NO_COLOR is set; a pipe gets plain text anyway.
  const colourful = { CI: "", TEST: "", NO_COLOR: "", TERM: "xterm-256color" };

  it("prints plain text into a pipe, for a command and for a usage error", async () => {
    const help = await spade(["env", "check", "--help"], colourful);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--sandbox");
    expect(help.stdout).not.toContain("\x1b");
    const missing = await spade(["env", "check"], colourful);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("spade: Missing required positional argument: PROGRAM");
    expect(missing.stderr).not.toContain("\x1b");
  });
});

describe("spade env list", () => {
  it("lists the library with name, skill, tools, maxTurns and path", async () => {
    const r = await spade(["env", "list", "--json"]);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{
      name: string;
      skill: string;
      tools: number;
      maxTurns: number;
      path: string;
    }>;
    expect(rows.length).toBeGreaterThanOrEqual(24);
    expect(rows.find((row) => row.name === "vault-cracker")).toMatchObject({
      skill: "Logical Deduction",
      tools: 0,
      maxTurns: 10,
    });
    expect(rows.every((row) => row.path.endsWith(`${row.name}.js`))).toBe(true);
  });
});

describe("spade env run", () => {
  it("plays oracle episodes with consecutive seeds and prints transcripts as JSON", async () => {
    const r = await spade([
      "env",
      "run",
      "vault-cracker",
      "--episodes",
      "2",
      "--seed",
      "5",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.episodes.map((e: { seed: number }) => e.seed)).toEqual([5, 6]);
    for (const e of out.episodes) {
      expect(e).toMatchObject({ return: 1, success: true, failure: null, hinted: false });
      expect(e.turns).toBe(e.transcript.steps.length);
      expect(e.transcript.steps.at(-1)).toMatchObject({ reward: 1, terminated: true });
    }
    expect(out.summary).toEqual({
      episodes: 2,
      requested: 2,
      interrupted: false,
      successes: 2,
      meanReturn: 1,
      failed: 0,
      nothingPlayed: false,
    });
  });

  it("gives the same episode on both backends and shows the hint with --hint", async () => {
    const a = JSON.parse(
      (await spade(["env", "run", "vault-cracker", "--seed", "3", "--hint", "--json"])).stdout,
    );
    const b = JSON.parse(
      (
        await spade([
          "env",
          "run",
          "vault-cracker",
          "--seed",
          "3",
          "--hint",
          "--json",
          "--sandbox",
          "quickjs",
        ])
      ).stdout,
    );
    expect(a.episodes[0].transcript).toEqual(b.episodes[0].transcript);
    expect(a.episodes[0].transcript.firstObservation).toMatch(
      /\n\nHINT: The code starts with \d and ends with \d\.$/,
    );
  });

  it("records an environment failure as data; exit 3 when no episode could be played", async () => {
    const path = file("crash.js", makeProgram({ step: 'throw new Error("kaput");' }));
    const r = await spade(["env", "run", path, "--json"]);
    expect(r.code).toBe(3);
    const episode = JSON.parse(r.stdout).episodes[0];
    expect(episode).toMatchObject({ success: false, turns: 0 });
    expect(episode.failure).toMatch(/^step: E_SANDBOX_THROW: .*kaput/);
  });

  it("rejects an unknown policy with exit 2", async () => {
    const r = await spade(["env", "run", "vault-cracker", "--policy", "psychic"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--policy must be one of");
  });
});

// Issue 16 item 5: guest text reached the terminal raw (clipboard writes, title changes, a fake "ok").
describe("guest text on the terminal", () => {
  const EVIL = "\u001b]52;c;ZXZpbA==\u0007\u001b]0;pwned\u0007\u001b[1A\u001b[2K\r  ok   E_ORACLE";
  const SHOWN = "\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;pwned\\x07\\x1b[1A\\x1b[2K\\r  ok   E_ORACLE";
  const evil = JSON.stringify(EVIL);

  it("env run shows control characters escaped, and --json keeps the text exact", async () => {
    const path = file(
      "evil-run.js",
      makeProgram({
        reset: `return { observation: ${evil}, info: {} };`,
        step: `const win = action.answer === "win"; return { observation: ${evil}, reward: win ? 1 : 0, terminated: win, truncated: false, info: {} };`,
      }),
    );
    const r = await spade(["env", "run", path]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(r.stdout).toContain(`--- seed 0\n${SHOWN}\n`);
    expect(r.stdout).toContain(`< ${SHOWN}  (reward 1, terminated)`);
    const json = JSON.parse((await spade(["env", "run", path, "--json"])).stdout);
    expect(json.episodes[0].transcript.firstObservation).toBe(EVIL);
  });

  it("env check shows a guest's error message escaped, on one line", async () => {
    const path = file(
      "evil-check.js",
      makeProgram({ hint: `throw new Error(${JSON.stringify(`${EVIL}\n  ok   E_HINT`)});` }),
    );
    const r = await spade(["env", "check", path]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(r.stdout).toContain(
      `  FAIL E_HINT             hint() after reset(0): hint() threw: Error: ${SHOWN}\\n  ok   E_HINT`,
    );
    expect(r.stdout.split("\n").filter((line) => line.includes("E_HINT"))).toHaveLength(1);
  });
});

describe("spade env play", () => {
  it("plays from piped input: a wrong guess, the oracle's move, quit", async () => {
    const r = await spade(
      ["env", "play", "vault-cracker", "--seed", "0"],
      {},
      { input: "\\boxed{0123}\n/hint\n/quit\n" },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("=== vault-cracker (seed 0, up to 10 turns) ===");
    expect(r.stdout).toMatch(/0123: \d hits, \d near\. 9 guesses left\.\n\(reward 0, return 0\)/);
    expect(r.stdout).toMatch(/HINT: The code starts with \d and ends with \d\./);
  });

  it("calls tools with /call and reports bad JSON", async () => {
    const r = await spade(
      ["env", "play", "inventory-query"],
      {},
      { input: "/tools\n/call nope {oops\n/quit\n" },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("arguments are not JSON");
  });
});
