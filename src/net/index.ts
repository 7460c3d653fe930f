/**
 * @module net
 * Local HTTP servers SPADE starts for itself (the tau2 model shim, benchmark doubles, test fakes):
 * listening on the loopback interface, and closing without waiting on open connections; the JSON
 * plumbing of their routes (a body read under a cap, a JSON answer), `spade serve`'s included; and
 * the bounds on slow clients and connections (in all, and from one address) every SPADE server
 * (the dashboard's too) runs under.
 */
export { readBody, sendJson } from "./http-json.js";
export { addressKey } from "./addresses.js";
export {
  CONNECTIONS_CHECK_INTERVAL_MS,
  type ConnectionLimits,
  createLimitedServer,
  DEFAULT_CONNECTION_LIMITS,
  perAddressShare,
  resolveLimits,
} from "./limits.js";
export { listenLoopback, type LoopbackServer } from "./loopback.js";
