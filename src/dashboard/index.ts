/**
 * @module dashboard
 * Public face of `spade dashboard`: a local, read-only web app over run folders, and the
 * TensorBoard export of a run's metrics.
 */
export { startDashboard, discoverRuns, isLoopback } from "./server.js";
export type { Dashboard, DashboardOptions } from "./server.js";
export { escapeHtml, html, raw, jsonScript } from "./html.js";
