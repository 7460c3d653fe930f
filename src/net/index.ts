/**
 * @module net
 * Local HTTP servers SPADE starts for itself (the tau2 model shim, benchmark doubles, test fakes):
 * listening on the loopback interface, and closing without waiting on open connections; and the
 * JSON plumbing of their routes (a body read under a cap, a JSON answer), `spade serve`'s included.
 */
export { readBody, sendJson } from "./http-json.js";
export { listenLoopback, type LoopbackServer } from "./loopback.js";
