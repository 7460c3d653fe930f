/**
 * @module dashboard
 * Public face of `spade dashboard`: a local, read-only web app over run folders, and the
 * TensorBoard export of a run's metrics.
 */
export { startDashboard, discoverRuns, isLoopback } from "./server.js";
export type { Dashboard, DashboardOptions } from "./server.js";
export { DEFAULT_PLAY_LIMITS } from "./play-sessions.js";
export type { PlayLimits } from "./play-sessions.js";
export { escapeHtml, html, raw, jsonScript } from "./html.js";
export * from "./tensorboard.js";
export { exportTensorboard, transcriptText } from "./export-run.js";
export type { ExportResult } from "./export-run.js";
