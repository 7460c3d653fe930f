/**
 * @module net/http-json
 * node:http plumbing of the servers SPADE runs (`spade serve`'s routes, the tau2 model shim):
 * answering in JSON, and reading a request body under a size cap without buffering what is over it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Answers `status` with `body` as JSON (content-length set), plus `headers`. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * Reads a request body up to `limit` bytes; null when it is larger. The rest of a larger body is
 * read and dropped (not buffered) rather than the socket destroyed, so the client gets the answer
 * (413) instead of a reset. A client that stops sending is not waited on here: the server's
 * request timeout (limits.ts) answers it 408 and closes its connection, which rejects this read.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      if (size > limit) return; // over: dropped
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        chunks.length = 0;
        resolve(null);
      }
    });
    req.on("end", () => resolve(size > limit ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
