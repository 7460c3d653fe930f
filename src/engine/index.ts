/**
 * @module engine
 * Public face of the training engines SPADE starts itself: SkyRL's Tinker-compatible server as a
 * child process (`spade run --engine local`, the engine tests).
 */
export { checkPortFree, ENGINE_LAUNCHER, logTail, startLocalEngine } from "./local-engine.js";
export type { EngineBackend, ExitStatus, LocalEngine, LocalEngineOptions } from "./local-engine.js";
