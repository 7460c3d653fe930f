/**
 * @module net
 * Local HTTP servers SPADE starts for itself (the tau2 model shim, benchmark doubles, test fakes):
 * listening on the loopback interface, and closing without waiting on open connections.
 */
export { listenLoopback, type LoopbackServer } from "./loopback.js";
