import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { skipWithout } from "./test/missing.js";

// Five projects, chosen by path so a new test file lands in one without editing this file:
//   unit   everything else under src/ and test/*.test.ts (the default `npm run test:unit`)
//   sandbox real sandboxes over many programs: src/sandbox/** (the attack suites, the backend
//          contract, the Python sandbox), the library's contract suites (src/envs/library.test.ts,
//          src/envs/library-python.test.ts) and the validator over broken programs
//   data   benchmark evaluation: src/eval/** (but the Python runtime, src/eval/python/) and the
//          eval commands' tests, src/cli/eval*.test.ts; they read ../shared/benchmarks (without
//          it the project is skipped with the reason printed, and fails under CI)
//   engine a real model engine: test/engine/** (SkyRL's Tinker server) and *gguf*.test.ts
//          (llama.cpp through node-llama-cpp)
//   e2e    the real CLI and servers, and the loop run end to end many times: test/e2e/**
// `npm test` runs all five. A test whose data or tool is missing follows test/missing.ts.
const DATA = ["src/eval/**/*.test.ts", "src/cli/eval*.test.ts"];
/** The benchmark data every test reads (SPADE_DATA_DIR below); without it the data project skips. */
const BENCHMARKS = new URL("../shared/benchmarks", import.meta.url).pathname;
const DATA_SKIPPED = skipWithout(
  existsSync(BENCHMARKS)
    ? null
    : `the data project's tests: no benchmark data at ${BENCHMARKS} (see its README there)`,
  process.env,
  // Said once a process: vitest evaluates this file again for each project.
  (line) => {
    const said = globalThis as { spadeDataSkipSaid?: boolean };
    if (!said.spadeDataSkipSaid) console.warn(line);
    said.spadeDataSkipSaid = true;
  },
);
const ENGINE = ["test/engine/**/*.test.ts", "src/**/*gguf*.test.ts"];
const E2E = ["test/e2e/**/*.test.ts"];
const SANDBOX = [
  "src/sandbox/**/*.test.ts",
  "src/envs/library.test.ts",
  "src/envs/library-python.test.ts",
  "test/validator-programs.test.ts",
];

// isolated-vm needs `--no-node-snapshot` on Node 20; test workers are forked with it. The unit
// project runs in worker threads instead: none of its tests loads isolated-vm in-process (the
// backend runs it in sandbox processes it starts with the flag itself, sandbox/ivm-pool.ts), and
// a thread per file costs far less than a process (the unit project on these 2 shared cores,
// minutes apart: 91 s and 79 s of CPU time with forks, 42 s and 61 s with threads).
export default defineConfig({
  test: {
    pool: "forks",
    poolOptions: { forks: { execArgv: ["--no-node-snapshot"] } },
    env: { SPADE_DATA_DIR: BENCHMARKS },
    // What a test sets with vi.stubEnv is undone before the next one, in every file.
    unstubEnvs: true,
    // `npm run test:data` with its data missing skips (the reason is printed above), not fails.
    passWithNoTests: DATA_SKIPPED,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          pool: "threads",
          include: ["src/**/*.test.ts", "test/*.test.ts"],
          exclude: [
            "src/eval/!(python)/**",
            "src/eval/*.test.ts",
            "src/cli/eval*.test.ts",
            ...ENGINE,
            ...SANDBOX,
          ],
        },
      },
      { extends: true, test: { name: "sandbox", include: SANDBOX, exclude: ENGINE } },
      {
        extends: true,
        test: {
          name: "data",
          include: DATA_SKIPPED ? [] : DATA,
          exclude: ["src/eval/python/**", ...ENGINE],
        },
      },
      { extends: true, test: { name: "engine", include: ENGINE } },
      { extends: true, test: { name: "e2e", include: E2E } },
    ],
  },
});
