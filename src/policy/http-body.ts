/**
 * @module policy/http-body
 * Reading a model server's answer in full, inside the attempt that asked for it: a connection
 * closed mid-answer then fails the attempt (and is retried like a reset before the headers),
 * and an answer larger than the cap is refused while it streams, before it can fill memory.
 */
import { SpadeError } from "../errors.js";

/**
 * Default cap on one chat answer's body: 4 MiB. An answer of 16k tokens is well under 1 MiB
 * without logprobs; every episode in flight may hold one, so the cap bounds host memory too.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The error of an answer over the cap. Not retried: the same request would get the same answer. */
export function answerTooLarge(url: string, bytes: number | string, maxBytes: number): SpadeError {
  return new SpadeError(
    "E_POLICY_OUTPUT",
    `${url} sent an answer of ${bytes} bytes, over the cap of ${maxBytes} bytes`,
    {
      nextStep:
        "lower max tokens or logprob options, or raise maxAnswerBytes (--max-answer-bytes) if such answers are expected",
    },
  );
}

/** The error of an answer whose body should be JSON and is not (`text`, the body; `cause`, the parse error). */
export function answerNotJson(
  url: string,
  status: number,
  text: string,
  cause: unknown,
): SpadeError {
  return new SpadeError(
    "E_POLICY_OUTPUT",
    `${url} answered HTTP ${status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`,
    {
      nextStep: "check the server's log; a proxy or a crashed worker may be cutting answers",
      cause,
    },
  );
}

/** A body read to its end that broke off (connection closed, reset) before it was complete. */
export class BodyInterruptedError extends Error {
  constructor(
    readonly url: string,
    readonly bytesRead: number,
    cause: unknown,
  ) {
    const detail =
      cause instanceof Error
        ? ((cause.cause as Error | undefined)?.message ?? cause.message)
        : String(cause);
    super(`the connection to ${url} broke off after ${bytesRead} bytes of the answer: ${detail}`, {
      cause,
    });
    this.name = "BodyInterruptedError";
  }
}

/**
 * Reads `response`'s body in full, at most `maxBytes` bytes. Throws `answerTooLarge` (E_POLICY_OUTPUT)
 * when the declared or actual length passes the cap, `BodyInterruptedError` when the stream breaks.
 */
export async function readBodyCapped(
  response: Response,
  url: string,
  maxBytes: number,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw answerTooLarge(url, declared, maxBytes);
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch (cause) {
      if (isAbort(cause)) throw cause; // a timeout or a cancellation: the caller's signal says which
      throw new BodyInterruptedError(url, total, cause);
    }
    if (next.done) break;
    total += next.value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw answerTooLarge(url, `more than ${maxBytes}`, maxBytes);
    }
    chunks.push(next.value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}

/** True when a content type is JSON (`application/json`, `...+json`). */
export function isJsonType(contentType: string | null): boolean {
  const media = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return media.includes("application/json") || media.endsWith("+json");
}
