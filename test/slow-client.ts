/**
 * @module test/slow-client
 * TEST DOUBLE: raw HTTP clients that stall on purpose (slowloris), to check how long a server holds
 * them, what it answers them, and whether it still serves others meanwhile.
 */
import { connect, type Socket } from "node:net";
import { networkInterfaces } from "node:os";
import { CONNECTIONS_CHECK_INTERVAL_MS } from "../src/net/index.js";

/** Short connection bounds for a server under test, so a test waits about a second. */
export const SHORT_LIMITS = { headersTimeoutMs: 300, requestTimeoutMs: 600 };
/** The latest a stalled client may be cut under `SHORT_LIMITS`: its bound, Node's check interval, slack for a loaded machine. */
export const CUT_BY_MS = SHORT_LIMITS.requestTimeoutMs + CONNECTIONS_CHECK_INTERVAL_MS + 1_000;

/**
 * How a client stalls: `silent` connects and sends nothing; `headers` sends a request's headers one
 * byte a `dripMs`, never ending them; `body` sends headers announcing 100 bytes of body, then 5 of
 * them; `idle` sends a whole `GET` and then keeps the connection open, sending nothing more.
 */
export type Stall = "silent" | "headers" | "body" | "idle";

/** How a stalled client's connection ended: the server's first status line ("" if none), when. */
export interface Ending {
  statusLine: string;
  /** Milliseconds from connecting to the close. */
  ms: number;
}

/** One stalled client. */
export interface SlowClient {
  /** Resolves once connected. */
  connected: Promise<void>;
  /** Resolves once the connection is closed (by the server, or by a reset). */
  ended: Promise<Ending>;
  /** The first thing the server answered, whole (status line, headers, body). */
  answer(): string;
  socket: Socket;
}

/**
 * An IPv4 address of this machine that is not loopback, or null if it has none: a server listening
 * on it sees a client that connects to it come from it, so the per-address bound counts that
 * client (it does not count loopback ones).
 */
export function nonLoopbackAddress(): string | null {
  const all = Object.values(networkInterfaces()).flat();
  return all.find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address ?? null;
}

/** Why a test of the per-address bound is skipped where `nonLoopbackAddress()` is null. */
export const NO_NON_LOOPBACK_ADDRESS =
  "the per-address bound's tests: this machine has no non-loopback IPv4 address to connect from (loopback clients are not counted)";

/** A client of `port` on `host` that stalls as `stall` says, on `path`. */
export function slowClient(
  port: number,
  stall: Stall,
  path: string,
  dripMs = 100,
  host = "127.0.0.1",
): SlowClient {
  const socket = connect(port, host);
  let text = "";
  let drip: NodeJS.Timeout | undefined;
  let started = performance.now();
  const connected = new Promise<void>((resolve) =>
    socket.once("connect", () => {
      started = performance.now();
      resolve();
      if (stall === "headers") {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: `);
        drip = setInterval(() => socket.writable && socket.write("a"), dripMs);
      } else if (stall === "body")
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
        );
      else if (stall === "idle") socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    }),
  );
  socket.on("data", (chunk) => {
    text += chunk;
  });
  socket.on("error", () => {}); // a reset ends it like a close
  const ended = new Promise<Ending>((resolve) =>
    socket.once("close", () => {
      clearInterval(drip);
      resolve({ statusLine: text.split("\r\n")[0] ?? "", ms: performance.now() - started });
    }),
  );
  return { connected, ended, answer: () => text, socket };
}

/** How `client` ended, or "open" if it is still open after `ms`. */
export function endingWithin(client: SlowClient, ms: number): Promise<Ending | "open"> {
  return Promise.race([
    client.ended,
    new Promise<"open">((resolve) => setTimeout(() => resolve("open"), ms).unref()),
  ]);
}

/** Opens `count` clients of `host` stalled as `stall` and waits until all are connected. */
export async function slowClients(
  count: number,
  port: number,
  stall: Stall,
  path: string,
  host = "127.0.0.1",
): Promise<SlowClient[]> {
  const clients = Array.from({ length: count }, () => slowClient(port, stall, path, 100, host));
  await Promise.all(clients.map((c) => c.connected));
  return clients;
}

/**
 * A stalled body on `bodyPath` and dripped headers on `headersPath`, sent at once to `port`: each
 * one's first status line and when its connection ended ("open" and Infinity when it was still
 * open after `waitMs`).
 */
export async function stalledBodyAndHeaders(
  port: number,
  bodyPath: string,
  headersPath: string,
  waitMs = 5_000,
): Promise<Array<{ status: string; ms: number }>> {
  const endings = await Promise.all([
    endingWithin(slowClient(port, "body", bodyPath), waitMs),
    endingWithin(slowClient(port, "headers", headersPath), waitMs),
  ]);
  return endings.map((e) =>
    e === "open"
      ? { status: "open", ms: Number.POSITIVE_INFINITY }
      : { status: e.statusLine, ms: e.ms },
  );
}
