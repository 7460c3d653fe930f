/**
 * @module dashboard/static-files
 * The files under `/static/`, all from the package (uPlot, highlight.js' style, the page script
 * and style), no CDN; any other name is a 404.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HttpError } from "./http.js";

const require = createRequire(import.meta.url);
const STATIC_DIR = fileURLToPath(new URL("../../src/dashboard/static/", import.meta.url));
const STATIC: Record<string, { path: () => string; type: string }> = {
  "uPlot.iife.min.js": {
    path: () => require.resolve("uplot/dist/uPlot.iife.min.js"),
    type: "text/javascript",
  },
  "uPlot.min.css": { path: () => require.resolve("uplot/dist/uPlot.min.css"), type: "text/css" },
  "highlight.css": {
    path: () => require.resolve("highlight.js/styles/github.css"),
    type: "text/css",
  },
  "app.js": { path: () => join(STATIC_DIR, "app.js"), type: "text/javascript" },
  "app.css": { path: () => join(STATIC_DIR, "app.css"), type: "text/css" },
};

/** The static file `name` and its content type; an unknown name is HttpError 404. */
export function staticFile(name: string): { type: string; bytes: Buffer } {
  const file = STATIC[name];
  if (!file) throw new HttpError(404, "no such file");
  return { type: file.type, bytes: readFileSync(file.path()) };
}
