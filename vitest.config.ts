import { defineConfig } from "vitest/config";

// isolated-vm needs `--no-node-snapshot` on Node 20; test workers are forked with it.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    pool: "forks",
    poolOptions: { forks: { execArgv: ["--no-node-snapshot"] } },
    env: { SPADE_DATA_DIR: new URL("../shared/benchmarks", import.meta.url).pathname },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
