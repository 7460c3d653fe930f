/**
 * @module cli/connection-flags
 * The connection bounds (net/limits.ts) a deployer of `spade serve` or `spade dashboard` tunes:
 * how many connections in all and from one address, and how long a client may take to send a
 * request. Not the keep-alive timeout: an idle connection costs only a file descriptor, which the
 * two caps bound already, and closing idle ones sooner races the clients that reuse them.
 */
import { SpadeError } from "../errors.js";
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "../net/index.js";
import { intFlag } from "./common.js";

/** Largest `--max-connections`: Linux's default ceiling on one process's open files (nr_open). */
const MAX_CONNECTIONS = 1_048_576;
/** Largest timeout, s: an hour, far past what a request needs on a working link (a stalled client holds its connection that long). */
const MAX_TIMEOUT_S = 3_600;

/** The flags of `command` (`spade serve` counts its sessions' WebSockets on top of both caps). */
export function connectionArgs(command: "serve" | "dashboard") {
  const onTop = command === "serve" ? ", on top of --max-sessions" : "";
  return {
    "max-connections": {
      type: "string",
      description: `most connections open at once${onTop}; one beyond is closed as soon as it is accepted`,
      default: String(DEFAULT_CONNECTION_LIMITS.maxConnections),
    },
    "max-connections-per-address": {
      type: "string",
      description: `most connections open at once from one client address${onTop} (an IPv6 /64; loopback clients are not counted) (default: an eighth of --max-connections, 256)`,
    },
    "headers-timeout": {
      type: "string",
      description: "seconds a client has to send a request's headers; past it, 408 and closed",
      default: String(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs / 1000),
    },
    "receive-timeout": {
      type: "string",
      description:
        "seconds a client has to send a whole request, body included (at least --headers-timeout); past it, 408 and closed",
      default: String(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs / 1000),
    },
  } as const;
}

/** The values of `connectionArgs`' flags as citty parsed them. */
export interface ConnectionFlags {
  "max-connections"?: string | undefined;
  "max-connections-per-address"?: string | undefined;
  "headers-timeout"?: string | undefined;
  "receive-timeout"?: string | undefined;
}

/**
 * The bounds the flags of `command` set; E_CONFIG with a next step for a value out of range, a
 * per-address share over the total, or a request timeout shorter than the headers timeout. The
 * per-address share is left out where not given, so it follows --max-connections.
 */
export function connectionLimitsOf(
  command: "serve" | "dashboard",
  flags: ConnectionFlags,
): Partial<ConnectionLimits> {
  const docs = command === "serve" ? "docs/serving.md" : "docs/dashboard.md";
  const readAbout = `\`spade ${command} --help\` lists the bounds; ${docs} says what each is for`;
  const int = (name: keyof ConnectionFlags, fallback: number, max: number) =>
    intFlag(name, flags[name] ?? fallback, 1, max, readAbout);
  const maxConnections = int(
    "max-connections",
    DEFAULT_CONNECTION_LIMITS.maxConnections,
    MAX_CONNECTIONS,
  );
  const headersTimeoutS = int(
    "headers-timeout",
    DEFAULT_CONNECTION_LIMITS.headersTimeoutMs / 1000,
    MAX_TIMEOUT_S,
  );
  const receiveTimeoutS = int(
    "receive-timeout",
    DEFAULT_CONNECTION_LIMITS.requestTimeoutMs / 1000,
    MAX_TIMEOUT_S,
  );
  if (receiveTimeoutS < headersTimeoutS)
    throw new SpadeError(
      "E_CONFIG",
      `--receive-timeout (${receiveTimeoutS} s) must be at least --headers-timeout (${headersTimeoutS} s): a request's time includes its headers`,
      { nextStep: "raise --receive-timeout or lower --headers-timeout" },
    );
  const limits: Partial<ConnectionLimits> = {
    maxConnections,
    headersTimeoutMs: headersTimeoutS * 1000,
    requestTimeoutMs: receiveTimeoutS * 1000,
  };
  if (flags["max-connections-per-address"] === undefined) return limits;
  const perAddress = int("max-connections-per-address", 0, MAX_CONNECTIONS);
  if (perAddress > maxConnections)
    throw new SpadeError(
      "E_CONFIG",
      `--max-connections-per-address (${perAddress}) must be at most --max-connections (${maxConnections})`,
      {
        nextStep:
          "raise --max-connections too, or leave --max-connections-per-address out (an eighth of --max-connections)",
      },
    );
  return { ...limits, maxConnectionsPerAddress: perAddress };
}
