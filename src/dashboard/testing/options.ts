/**
 * @module dashboard/testing/options
 * TEST DOUBLE settings of a dashboard for tests and benchmarks: on a free loopback port, no
 * token, and no program to open (Play refuses) unless `extra` says otherwise.
 */
import type { DashboardOptions } from "../index.js";

/** Dashboard settings over `roots` for a test; `extra` overrides any of them. */
export function testDashboardOptions(
  roots: string[],
  extra: Partial<DashboardOptions> = {},
): DashboardOptions {
  return {
    roots,
    host: "127.0.0.1",
    port: 0,
    token: null,
    pollMs: 50,
    openProgram: () => Promise.reject(new Error("no program is opened here")),
    library: { names: () => [], source: () => "" },
    ...extra,
  };
}
