/**
 * @module dashboard/http
 * The dashboard's HTTP plumbing: the headers every answer carries, plain-text HTTP errors, the
 * status a coded error is answered with, and the capped JSON body of a Play API call.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import * as pages from "./pages.js";
import { isReadFailure } from "./store-read.js";

/** An answer of `status` with `message` as plain text (405, 413, 415, 404 of a path). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whose fault a failed request is: the request's (a bad parameter, a name of nothing), or the
 * server's run store (`isReadFailure`: one it cannot read, whatever the code).
 */
export type Fault = "request" | "store";

/**
 * The HTTP status of a coded error, by whose fault it is: E_NOT_FOUND 404 (no such run,
 * environment or store); E_RUN_LOCKED and E_CAPACITY 503 (they pass: a lock, every Play game in
 * use); E_CONFIG 400 when the request's (a bad parameter), 500 when the store's (a schema this
 * SPADE does not read: nothing the request could change); anything else 500 (a damaged store,
 * a disk that cannot read it, an environment that failed, a bug).
 */
export function statusOf(code: string, fault: Fault): number {
  if (code === "E_NOT_FOUND") return 404;
  if (code === "E_RUN_LOCKED" || code === "E_CAPACITY") return 503;
  if (code === "E_CONFIG" && fault === "request") return 400;
  return 500;
}

/** `statusOf` a thrown `err`: the store's fault when reading a store threw it. */
export function statusOfError(err: unknown): number {
  return statusOf(pages.pageError(err).code, isReadFailure(err) ? "store" : "request");
}

/**
 * The `Retry-After` of a 503 for a run store still locked after the dashboard's wait, in seconds:
 * a lock is held for a transaction, seldom longer.
 */
export const LOCKED_RETRY_AFTER_S = 1;

/** Answers `text` as `type`, never cached, never sniffed, scripts and styles from this server only. */
export function send(
  res: ServerResponse,
  status: number,
  type: string,
  text: string | Buffer,
): void {
  res.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'self'; style-src 'self' 'unsafe-inline'",
  });
  res.end(text);
}

/** Answers a failed request: an HttpError as its text, a coded error as JSON under `/api/`, else as an error page. */
export function sendError(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  if (res.headersSent) res.end();
  else if (err instanceof HttpError)
    send(res, err.status, "text/plain; charset=utf-8", `${err.message}\n`);
  else {
    const e = pages.pageError(err);
    if (e.code === "E_RUN_LOCKED") res.setHeader("retry-after", String(LOCKED_RETRY_AFTER_S));
    if ((req.url ?? "").startsWith("/api/"))
      send(res, statusOfError(err), "application/json", JSON.stringify({ error: e }));
    else
      send(
        res,
        statusOfError(err),
        "text/html; charset=utf-8",
        pages.layout("Error", pages.errorBox(e)),
      );
  }
}

/** Largest Play API body, in bytes. */
const MAX_JSON_BODY_BYTES = 65_536;

/** The request's body as a JSON object: 415 unless sent as JSON, 413 past 64 KiB, 400 unless an object. */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!String(req.headers["content-type"] ?? "").startsWith("application/json"))
    throw new HttpError(415, "send JSON (Content-Type: application/json)");
  // The bytes are decoded once, whole: a chunk may end inside a UTF-8 character, which decoding
  // chunk by chunk would turn into two replacement characters.
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    bytes += buffer.length;
    if (bytes > MAX_JSON_BODY_BYTES) throw new HttpError(413, "request too large");
    chunks.push(buffer);
  }
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // falls through
  }
  throw new HttpError(400, "the body must be a JSON object");
}
