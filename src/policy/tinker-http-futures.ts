/**
 * @module policy/tinker-http-futures
 * Tinker's futures: a call answers a request id at once (`asample`, `forward_backward`...) and
 * its result is polled with `retrieve_future` (`try_again`, long-poll 408s, metadata-only first
 * answers, protobuf results, failed and dropped futures).
 */
import { SpadeError } from "../errors.js";
import type { RetryClock } from "./retry.js";
import type { TinkerHttp } from "./tinker-http.js";
import { FutureExpiredError } from "./tinker-http-errors.js";
import { PROTOBUF_CONTENT_TYPE } from "./tinker-wire.js";

/** Attempts of `retrieve_future` answered a bare HTTP 400 before the SDK gives up (it may come from a proxy). */
const MAX_BAD_REQUEST_POLLS = 3;

/**
 * The id a Tinker call answered under `field`: a string (or, with `numeric`, a number, as
 * asample's request_id may be). Anything else is E_POLICY_OUTPUT naming the call.
 */
export function answeredId(answer: unknown, call: string, field: string, numeric = false): string {
  const id = (answer as Record<string, unknown> | null)?.[field];
  if (typeof id === "string" || (numeric && typeof id === "number")) return String(id);
  throw new SpadeError(
    "E_POLICY_OUTPUT",
    `${call} answered without a ${field}: ${JSON.stringify(answer).slice(0, 200)}`,
    { nextStep: "check that the server speaks the Tinker API" },
  );
}

/**
 * Submits one `asample` body and returns its future's request id; an answer without one fails
 * with E_POLICY_OUTPUT. Shared by the sampler (tinker.ts) and the base-model logprobs
 * (trainer/base-logprobs.ts).
 */
export async function submitSample(
  http: Pick<TinkerHttp, "post">,
  body: object,
  signal?: AbortSignal,
): Promise<string> {
  const answer = await http.post("/api/v1/asample", body, { signal });
  return answeredId(answer, "asample", "request_id", true);
}

/** What polling a future uses of its client. */
export interface FuturePolling {
  /** `TinkerHttp.request`, to POST each poll. */
  request: TinkerHttp["request"];
  clock: RetryClock;
  /** Wait after a `try_again` answer. Default 100 ms. */
  pollIntervalMs?: number;
  /** A future not done after this fails with E_POLICY_TIMEOUT. Default 1,800,000 ms. */
  futureTimeoutMs?: number;
}

/** Polls `retrieve_future` for `requestId` until its result; see `TinkerHttp.awaitFuture`. */
export async function pollFuture(
  via: FuturePolling,
  requestId: string,
  signal?: AbortSignal,
  decodeProtobuf?: (bytes: Uint8Array) => Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const deadline = via.clock.now() + (via.futureTimeoutMs ?? 1_800_000);
  // The first poll may be answered with the result's size only (large results); later ones ask for the result.
  let allowMetadataOnly = true;
  let badRequests = 0;
  const accept = decodeProtobuf ? PROTOBUF_CONTENT_TYPE : "application/json";
  for (;;) {
    if (via.clock.now() > deadline) {
      throw new SpadeError(
        "E_POLICY_TIMEOUT",
        `request ${requestId} was not done within ${via.futureTimeoutMs ?? 1_800_000} ms`,
        { nextStep: "raise futureTimeoutMs, or check the server's queue" },
      );
    }
    const poll = { request_id: requestId, allow_metadata_only: allowMetadataOnly };
    const answer = await via.request("/api/v1/retrieve_future", poll, {
      signal,
      accept,
      passStatuses: [400, 408, 410],
    });
    if (answer.status === 408) continue;
    if (answer.status === 410) throw new FutureExpiredError(requestId);
    if (answer.status === 400) {
      const detail = JSON.stringify(answer.body).slice(0, 500);
      if (++badRequests > MAX_BAD_REQUEST_POLLS) {
        throw new SpadeError(
          "E_POLICY_HTTP",
          `request ${requestId} failed: retrieve_future answered HTTP 400 ${MAX_BAD_REQUEST_POLLS + 1} times: ${detail}`,
          { nextStep: "the server rejected the request: read its message" },
        );
      }
      continue;
    }
    if (answer.bytes) {
      if (!decodeProtobuf)
        throw new SpadeError(
          "E_POLICY_OUTPUT",
          `request ${requestId}'s result came as protobuf, which SPADE does not decode for this call`,
          { nextStep: "report this server: it answered protobuf without being asked" },
        );
      return decodeProtobuf(answer.bytes);
    }
    const body = (answer.body ?? {}) as Record<string, unknown>;
    if (body.status === "complete_metadata" && allowMetadataOnly) {
      allowMetadataOnly = false;
      continue;
    }
    if (body.type === "try_again") {
      await via.clock.sleep(via.pollIntervalMs ?? 100, signal);
      continue;
    }
    if (body.error !== undefined) {
      const category = typeof body.category === "string" ? body.category : "unknown";
      throw new SpadeError(
        "E_POLICY_HTTP",
        `request ${requestId} failed on the server (${category}): ${String(body.error).slice(0, 500)}`,
        {
          nextStep:
            category === "user"
              ? "the server rejected the request: read its message"
              : "check the server's log",
        },
      );
    }
    return body;
  }
}
