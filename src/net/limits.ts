/**
 * @module net/limits
 * How long a client may take to send a request, how long an idle connection stays open and how many
 * connections one server holds: the policy of every node:http server SPADE runs (`spade serve`,
 * `spade dashboard`, the tau2 model shim), set with Node's own server options.
 *
 * Node's defaults leave a stalled client holding its connection for minutes (a request body that
 * stops arriving: 300 s; headers sent byte by byte: 60 s, checked every 30 s), and accept
 * connections until the process runs out of file descriptors, after which it cannot open a file
 * either. Both timeouts run only while a request is being received: a WebSocket session (once
 * upgraded), a server-sent events stream and a slow handler are not cut by them.
 *
 * The cap on connections alone lets one client take all of them: 2,048 idle connections that ask
 * for a page every 4 s are never cut, and every other client is dropped. So each address may hold
 * only a share of them (addresses.ts says how addresses are told apart, and why loopback is not).
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Socket } from "node:net";
import { addressKey } from "./addresses.js";

/** The bounds of one server's connections. */
export interface ConnectionLimits {
  /** Time from a connection's opening (or a request's first byte) to the end of its headers, ms. */
  headersTimeoutMs: number;
  /** Time from a request's first byte to the end of its body, ms; at least `headersTimeoutMs`. */
  requestTimeoutMs: number;
  /** How long a connection may wait idle between requests, ms. */
  keepAliveTimeoutMs: number;
  /** Most connections open at once; one beyond is dropped as soon as it is accepted. */
  maxConnections: number;
  /**
   * Most connections open at once from one address (an IPv6 /64: one host's usual share); one
   * beyond is dropped as soon as it is accepted. Loopback clients are not counted. Where not given:
   * `perAddressShare(maxConnections)`.
   */
  maxConnectionsPerAddress: number;
}

/**
 * The defaults: 10 s for headers (a few KiB), 30 s for a whole request (the largest body SPADE
 * takes, the shim's 16 MiB, is far quicker on any link it is sent over), Node's 5 s between
 * requests, and 2,048 connections: half of 4,096, the lowest hard limit on open files common on
 * Linux (Node raises its own limit to the hard one), so the process can still open its files; 256
 * of them from one address (`perAddressShare`).
 */
export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 2_048,
  maxConnectionsPerAddress: 256,
};

/**
 * The connections one address may hold out of `maxConnections`: an eighth (at least one). A client
 * needs far fewer: a browser opens 6 per server, SPADE's own clients one per request in flight
 * (`--concurrency`: 32 by default), so 256 leaves room for a few dozen people behind one NAT or a
 * trainer at 8 times the default concurrency. More from one address is a leak or an attack, and it
 * now takes 8 addresses, not one, to fill the server. Against many addresses it is no defence
 * (a proxy or firewall in front is).
 */
export function perAddressShare(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 8));
}

/** `limits` over DEFAULT_CONNECTION_LIMITS, the per-address bound derived from the total where not given. */
export function resolveLimits(limits: Partial<ConnectionLimits> = {}): ConnectionLimits {
  const maxConnections = limits.maxConnections ?? DEFAULT_CONNECTION_LIMITS.maxConnections;
  return {
    ...DEFAULT_CONNECTION_LIMITS,
    ...limits,
    maxConnectionsPerAddress: limits.maxConnectionsPerAddress ?? perAddressShare(maxConnections),
  };
}

/**
 * How often Node checks the receiving requests against the two timeouts, ms (its default: 30 s,
 * which would let a stalled client stay up to 30 s past its bound).
 */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/**
 * A node:http server answering with `listener` under `limits` (`resolveLimits`). A request whose
 * headers or body is not in by its timeout is answered by Node with a bare `408 Request Timeout`
 * (`Connection: close`) unless its answer has begun, and its connection closed. A connection past
 * either cap is closed at once, unanswered (see `boundPerAddress`).
 */
export function createLimitedServer(
  listener: RequestListener<typeof IncomingMessage, typeof ServerResponse>,
  limits: Partial<ConnectionLimits> = {},
): Server {
  const bounds = resolveLimits(limits);
  const server = createServer(
    {
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
    },
    listener,
  );
  server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  server.maxConnections = bounds.maxConnections;
  boundPerAddress(server, bounds.maxConnectionsPerAddress);
  return server;
}

/**
 * Closes a connection as soon as it is accepted when its address already holds `max`, as Node
 * does past `maxConnections`. Not answered `503`: that needs its request read first, which is the
 * very wait (up to the headers timeout) a client over its share must not get, and an answer written
 * before the request is read is lost to the reset of closing on unread bytes, unless the connection
 * is kept open a while longer to drain them. Upgraded WebSockets stay counted while open.
 */
function boundPerAddress(server: Server, max: number): void {
  const openByAddress = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const key = addressKey(socket.remoteAddress);
    if (key === null) return;
    const open = openByAddress.get(key) ?? 0;
    if (open >= max) {
      socket.destroy();
      return;
    }
    openByAddress.set(key, open + 1);
    socket.once("close", () => {
      const left = (openByAddress.get(key) ?? 1) - 1;
      if (left === 0) openByAddress.delete(key);
      else openByAddress.set(key, left);
    });
  });
}
