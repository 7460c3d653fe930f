/**
 * @module eval/tau2
 * tau2-bench (retail, airline, telecom) through its own harness: the Python driver, the run with
 * its results folder, scripted baselines on an OpenAI-compatible shim, and pass^1 per domain.
 */
export {
  driverScript,
  runDriver,
  tau2Python,
  type Tau2DriverRequest,
  type Tau2Event,
  type Tau2Model,
} from "./driver.js";
export { driverRequest } from "./request.js";
export {
  runTau2,
  tau2ItemId,
  type RunTau2Options,
  type Tau2DomainReport,
  type Tau2Run,
} from "./run.js";
export * from "./settings.js";
export { passHatK, tau2PassAt1, tau2ScoresOf, type Tau2DomainScore } from "./scores.js";
export {
  deviceRequest,
  idleAgentTurn,
  oracleAgentTurn,
  parseDeviceRequests,
  scriptedUserTurn,
  DEVICE_REQUEST_MARKER,
  ORACLE_CLOSING,
  USER_STOP,
  type ChatMessage,
  type ScriptedTurn,
  type Tau2Action,
  type Tau2GroundTruth,
} from "./scripted.js";
export {
  completionOf,
  DEFAULT_SHIM_MAX_BODY_BYTES,
  startShim,
  type Shim,
  type ShimHandler,
  type ShimMessage,
  type ShimOptions,
  type ShimRequest,
} from "./shim.js";
export { tokenSamplerHandler, type TokenHandlerOptions } from "./token-handler.js";
