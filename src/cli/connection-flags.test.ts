// The connection flags of `spade serve` and `spade dashboard`: what each value sets, and the coded
// refusal of each bad one.
import { describe, expect, it } from "vitest";
import { resolveLimits } from "../net/index.js";
import { connectionArgs, connectionLimitsOf } from "./connection-flags.js";

/** The flags as citty hands them over when none is given: the declared defaults. */
const DEFAULTS = Object.fromEntries(
  Object.entries(connectionArgs("serve")).flatMap(([name, arg]) =>
    "default" in arg ? [[name, arg.default]] : [],
  ),
);

describe("connectionLimitsOf", () => {
  it("sets the shared defaults, the per-address share following --max-connections", () => {
    expect(DEFAULTS).toEqual({
      "max-connections": "2048",
      "headers-timeout": "10",
      "receive-timeout": "30",
    });
    expect(resolveLimits(connectionLimitsOf("serve", DEFAULTS))).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 2_048,
      maxConnectionsPerAddress: 256,
    });
    const fewer = connectionLimitsOf("serve", { ...DEFAULTS, "max-connections": "100" });
    expect(resolveLimits(fewer).maxConnectionsPerAddress).toBe(12);
    const given = { ...DEFAULTS, "max-connections-per-address": "2048", "headers-timeout": "30" };
    expect(connectionLimitsOf("dashboard", given)).toEqual({
      maxConnections: 2_048,
      maxConnectionsPerAddress: 2_048,
      headersTimeoutMs: 30_000,
      requestTimeoutMs: 30_000,
    });
  });

  const serveHelp = "`spade serve --help` lists the bounds; docs/serving.md says what each is for";
  it.each([
    [{ "max-connections": "0" }, '--max-connections must be an integer >= 1 (got "0")', serveHelp],
    [
      { "max-connections": "1048577" },
      '--max-connections must be at most 1048576 (got "1048577")',
      serveHelp,
    ],
    [
      { "max-connections-per-address": "many" },
      '--max-connections-per-address must be an integer >= 1 (got "many")',
      serveHelp,
    ],
    [
      { "headers-timeout": "1.5" },
      '--headers-timeout must be an integer >= 1 (got "1.5")',
      serveHelp,
    ],
    [
      { "receive-timeout": "3601" },
      '--receive-timeout must be at most 3600 (got "3601")',
      serveHelp,
    ],
    [
      { "receive-timeout": "5" },
      "--receive-timeout (5 s) must be at least --headers-timeout (10 s): a request's time includes its headers",
      "raise --receive-timeout or lower --headers-timeout",
    ],
    [
      { "max-connections": "100", "max-connections-per-address": "101" },
      "--max-connections-per-address (101) must be at most --max-connections (100)",
      "raise --max-connections too, or leave --max-connections-per-address out (an eighth of --max-connections)",
    ],
  ])("refuses %j with E_CONFIG", (flags, message, nextStep) => {
    let thrown: unknown;
    try {
      connectionLimitsOf("serve", { ...DEFAULTS, ...flags });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({
      code: "E_CONFIG",
      message: `${message} (${nextStep})`,
      nextStep,
    });
  });

  it("names the dashboard's own help and page", () => {
    expect(() => connectionLimitsOf("dashboard", { "max-connections": "-1" })).toThrow(
      '--max-connections must be an integer >= 1 (got "-1") (`spade dashboard --help` lists the bounds; docs/dashboard.md says what each is for)',
    );
  });
});
