/**
 * @module store
 * Public face of run persistence: one SQLite file per run.
 */
export { BUSY_TIMEOUT_MS, RunStore, STORE_FILE } from "./run-store.js";
export { requireRunStore } from "./schema.js";
export type { EnvironmentFilter, StepRange } from "./query.js";
export {
  designOutcomeFromRow,
  environmentSummaryFromRow,
  episodeScoreFromRow,
  DESIGN_OUTCOME_COLUMNS,
  ENVIRONMENT_SUMMARY_COLUMNS,
  EPISODE_SCORE_COLUMNS,
} from "./rows.js";
export { killInTransaction } from "./fault-injection.js";
export { RunLock, readHolder, LOCK_FILE, HOLDER_FILE } from "./lock.js";
export type { LockHolder } from "./lock.js";
export { storeIoError, storeLocked, guardIo, requireStoreFile } from "./io-errors.js";
export { unreadableOnReadOnlyDisk } from "./journal.js";
export { SCHEMA_VERSION } from "./schema.js";
export { EMPTY_STATS } from "./types.js";
export type {
  DesignOutcome,
  DesignRow,
  EnvironmentSummary,
  EnvironmentRow,
  EnvStats,
  EpisodeScore,
  EpisodeResult,
  EpisodeRow,
  SampleRow,
  StepRow,
} from "./types.js";
