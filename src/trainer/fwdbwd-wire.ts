/**
 * @module trainer/fwdbwd-wire
 * How `forward_backward` goes on the wire, as the official SDK 0.38.0 sends it: protobuf bodies
 * (zstd-compressed when the handshake says so), split into requests within the server's announced
 * limits, and the outputs of those requests joined back into one. A server that refuses protobuf
 * gets JSON for the rest of the session: HTTP 415 / 422, or, from a server whose handshake does
 * not name the protobuf flags, a failure (SkyRL tx 0.3.0's FastAPI answers protobuf bytes with a
 * 500: it cannot print the bytes into its 422) that the same request as JSON does not repeat.
 */
import { randomUUID } from "node:crypto";
import {
  encodeForwardBackward,
  JSON_BODY,
  PROTOBUF_CONTENT_TYPE,
  zstdCompress,
  type BodyEncoding,
  type ForwardBackwardBody,
  type HttpAnswer,
  type TinkerClientConfig,
  type TinkerHttp,
} from "../policy/index.js";
import type { Datum } from "./datums.js";
import type { ForwardBackwardOutput } from "./tinker.js";

/** `auto`: protobuf, JSON after the server refused it; or one forced. */
export type ForwardBackwardEncoding = "auto" | "protobuf" | "json";

/** Every accepted `ForwardBackwardEncoding`. */
export const FORWARD_BACKWARD_ENCODINGS: readonly ForwardBackwardEncoding[] = [
  "auto",
  "protobuf",
  "json",
];

/** Statuses by which a server says it does not take protobuf bodies. */
const REFUSED_PROTOBUF = [415, 422];

/** The protobuf body encoding, zstd-compressed or not. */
export function protobufBody(zstd: boolean): BodyEncoding {
  return {
    contentType: PROTOBUF_CONTENT_TYPE,
    ...(zstd ? { contentEncoding: "zstd" } : {}),
    encode: (body) => {
      const bytes = encodeForwardBackward(body as ForwardBackwardBody);
      return zstd ? zstdCompress(bytes) : bytes;
    },
  };
}

/** The encoding choice of one session: made on the first `forward_backward`, then kept. */
export class ForwardBackwardWire {
  #chosen: "protobuf" | "json" | null;

  constructor(readonly mode: ForwardBackwardEncoding) {
    this.#chosen = mode === "auto" ? null : mode;
  }

  /** The encoding in use, or null before the first answer in `auto`. */
  get chosen(): "protobuf" | "json" | null {
    return this.#chosen;
  }

  /**
   * POSTs one `forward_backward` body and returns the JSON answer (the future). The first body of
   * `auto` is a probe; its JSON resend keeps the seq id and idempotency key (the server took
   * neither attempt, or runs the request once).
   */
  async post(
    http: TinkerHttp,
    path: string,
    body: Record<string, unknown>,
    config: Pick<TinkerClientConfig, "compressForwardBackward" | "protobufAware">,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const protobuf = protobufBody(config.compressForwardBackward);
    if (this.#chosen === "json") return http.post(path, body, { signal, encoding: JSON_BODY });
    if (this.#chosen === "protobuf") return http.post(path, body, { signal, encoding: protobuf });
    const idempotencyKey = `spade-${randomUUID()}`;
    const asJson = async () => {
      const answer = await http.post(path, body, { signal, encoding: JSON_BODY, idempotencyKey });
      this.#chosen = "json";
      return answer;
    };
    let answer: HttpAnswer;
    try {
      // A server that reads protobuf is retried as usual; for one that may not, the first failure decides.
      answer = await http.request(path, body, {
        signal,
        encoding: protobuf,
        passStatuses: REFUSED_PROTOBUF,
        idempotencyKey,
        ...(config.protobufAware ? {} : { maxRetries: 0 }),
      });
    } catch (err) {
      if (config.protobufAware || (err as { code?: string }).code === "E_CANCELLED") throw err;
      try {
        return await asJson();
      } catch {
        // JSON fails too: the protobuf failure was the server's own; keep protobuf and report it.
        throw err;
      }
    }
    if (REFUSED_PROTOBUF.includes(answer.status)) return asJson();
    this.#chosen = "protobuf";
    return answer.body;
  }
}

/** The SDK's estimate of a datum's protobuf size: 4 bytes per token, each tensor's packed bytes. */
export function estimatedBytes(datum: Datum): number {
  const tokens = datum.model_input.chunks.reduce((n, c) => n + c.tokens.length, 0) * 4;
  return Object.values(datum.loss_fn_inputs).reduce(
    (n, t) => n + t.data.length * (t.dtype === "int64" ? 8 : 4),
    tokens,
  );
}

/**
 * The datums split into requests as the SDK splits them: a new request when the current one holds
 * `maxChunkDatums` datums or the next datum would take its estimated size past `maxChunkBytes`
 * (a single datum larger than that still goes, alone).
 */
export function chunkDatums(
  datums: readonly Datum[],
  limits: Pick<TinkerClientConfig, "maxChunkDatums" | "maxChunkBytes">,
): Datum[][] {
  const chunks: Datum[][] = [];
  let current: Datum[] = [];
  let bytes = 0;
  for (const datum of datums) {
    const size = estimatedBytes(datum);
    if (
      current.length > 0 &&
      (current.length === limits.maxChunkDatums || bytes + size > limits.maxChunkBytes)
    ) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(datum);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * The outputs of one split `forward_backward` as one: outputs in datum order; metrics reduced by
 * the suffix of their name as the SDK reduces them (`:sum`, `:min`, `:max`, `:mean` weighted by
 * datums); a metric missing from some part or with another suffix is left out.
 */
export function combineOutputs(parts: readonly ForwardBackwardOutput[]): ForwardBackwardOutput {
  const metrics: Record<string, number> = {};
  const weights = parts.map((p) => p.lossFnOutputs.length);
  const total = weights.reduce((a, b) => a + b, 0);
  for (const key of Object.keys(parts[0]?.metrics ?? {})) {
    const values = parts.map((p) => p.metrics[key]);
    if (values.some((v) => v === undefined)) continue;
    const xs = values as number[];
    const reduction = key.split(":")[1];
    if (reduction === "sum") metrics[key] = xs.reduce((a, b) => a + b, 0);
    else if (reduction === "min") metrics[key] = Math.min(...xs);
    else if (reduction === "max") metrics[key] = Math.max(...xs);
    else if (reduction === "mean")
      metrics[key] =
        total > 0
          ? xs.reduce((a, x, i) => a + x * (weights[i] as number), 0) / total
          : xs.reduce((a, b) => a + b, 0) / xs.length;
  }
  return { lossFnOutputs: parts.flatMap((p) => p.lossFnOutputs), metrics };
}
