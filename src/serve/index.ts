/**
 * @module serve
 * Public face of serving: SPADE environments as OpenEnv environments (HTTP, the WebSocket session
 * protocol, MCP JSON-RPC), one sandboxed instance per session. docs/serving.md has the protocol.
 */
export {
  catalogSources,
  isRunDir,
  loadCatalog,
  runEnvironments,
  slug,
  uniqueNames,
} from "./catalog.js";
export type { CatalogEntry, CatalogSource, RunFilter } from "./catalog.js";
export { startServer, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_TIMEOUT_S } from "./server.js";
export type { ServeHandle, ServeOptions } from "./server.js";
export { WS_ERROR_CODES, parseAction, parseWsMessage, ProtocolError } from "./protocol.js";
export type { ObservationPayload, WsErrorCode } from "./protocol.js";
export { FINAL_ANSWER_TOOL, MCP_PROTOCOL_VERSION, RPC } from "./mcp.js";
export { CapacityError, SessionRegistry } from "./registry.js";
export { OPENENV_API_VERSION } from "./openapi.js";
export { jsonlRecord, jsonlText, openEnvPackage } from "./archive.js";
