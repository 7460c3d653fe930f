#!/usr/bin/env node
// The `spade` launcher. isolated-vm needs Node's `--no-node-snapshot` on Node 20, which a
// shebang cannot portably pass, so the launcher re-runs Node with it when it is missing.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

if (process.execArgv.includes("--no-node-snapshot")) {
  await import("../dist/cli/main.js");
} else {
  const main = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
  // Ctrl-C reaches the whole process group: the child stops cleanly (e.g. `spade eval` keeps its
  // finished items and exits 130); this launcher must outlive it to pass its exit code on.
  process.on("SIGINT", () => {});
  const child = spawnSync(process.execPath, ["--no-node-snapshot", ...process.execArgv, main, ...process.argv.slice(2)], { stdio: "inherit" });
  if (child.error) {
    process.stderr.write(`spade: cannot start Node: ${child.error.message}\n`);
    process.exit(2);
  }
  process.exit(child.status ?? (child.signal ? 128 : 1));
}
