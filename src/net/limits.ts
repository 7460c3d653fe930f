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
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";

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
}

/**
 * The defaults: 10 s for headers (a few KiB), 30 s for a whole request (the largest body SPADE
 * takes, the shim's 16 MiB, is far quicker on any link it is sent over), Node's 5 s between
 * requests, and 2,048 connections: half of 4,096, the lowest hard limit on open files common on
 * Linux (Node raises its own limit to the hard one), so the process can still open its files.
 */
export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 2_048,
};

/**
 * How often Node checks the receiving requests against the two timeouts, ms (its default: 30 s,
 * which would let a stalled client stay up to 30 s past its bound).
 */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/**
 * A node:http server answering with `listener` under `limits` (DEFAULT_CONNECTION_LIMITS where not
 * given). A request whose headers or body is not in by its timeout is answered by Node with a bare
 * `408 Request Timeout` (`Connection: close`) unless its answer has begun, and its connection closed.
 */
export function createLimitedServer(
  listener: RequestListener<typeof IncomingMessage, typeof ServerResponse>,
  limits: Partial<ConnectionLimits> = {},
): Server {
  const bounds = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
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
  return server;
}
