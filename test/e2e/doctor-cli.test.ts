/**
 * `spade doctor` through the real, built command: the local checks on this machine, and the
 * failures it reports for a server flag without its model and an engine that cannot be reached.
 */
import { describe, expect, it } from "vitest";
import { spade } from "./cli.js";

describe("spade doctor", () => {
  it("checks Node, Python, the sandboxes, the GGUF runtime and the local engine, one line each", async () => {
    const run = await spade(["doctor", "--json"]);
    const checks = JSON.parse(run.stdout) as Array<{
      name: string;
      status: string;
      detail: string;
    }>;
    expect(checks.map((c) => c.name)).toEqual([
      "node",
      "python",
      "sandbox",
      "code sandbox",
      "gguf runtime",
      "local engine",
    ]);
    expect(checks[0]).toEqual({ name: "node", status: "ok", detail: `v${process.versions.node}` });
    expect(checks[2]).toEqual({
      name: "sandbox",
      status: "ok",
      detail: "isolated-vm runs environment programs",
    });
    // This machine (CI's too) is root on a host with the v1 memory hierarchy.
    expect(checks[3]?.status).toBe("ok");
    expect(checks[3]?.detail).toMatch(
      /^\/\S+python3[.\d]*, namespaces as (user|root), cgroups per run \(v[12]: memory, cpu, pids; \/sys\/fs\/cgroup\/\S+\)$/,
    );
    expect(checks[4]).toEqual({
      name: "gguf runtime",
      status: "ok",
      detail: "node-llama-cpp 3.21.1 with a CPU llama.cpp (--policy gguf, --preset local)",
    });
    expect(run.code).toBe(checks.some((c) => c.status === "fail") ? 1 : 0);
  }, 120_000);

  it("exits 1 with a fix for --base-url without --model and for an engine that cannot be reached", async () => {
    const run = await spade([
      "doctor",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--engine",
      "http://127.0.0.1:9",
    ]);
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(8);
    expect(lines[6]).toBe(
      "FAIL server               --base-url given without --model -> fix: add --model NAME (the name the server serves)",
    );
    expect(lines[7]).toMatch(
      /^FAIL engine {15}http:\/\/127\.0\.0\.1:9 cannot be reached \(.+\) -> fix: start the engine, or use --engine local to have SPADE start one$/,
    );
  }, 120_000);
});
