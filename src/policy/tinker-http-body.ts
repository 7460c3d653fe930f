/**
 * @module policy/tinker-http-body
 * Bodies on the Tinker wire: how a request body is encoded (JSON by default; protobuf and zstd
 * for `forward_backward`, see tinker-wire.ts), and how an answer is read back (capped, JSON or
 * protobuf bytes, a non-2xx status thrown unless the caller takes it).
 */
import { answerNotJson, readBodyCapped } from "./http-body.js";
import { StatusError } from "./tinker-http-errors.js";
import { PROTOBUF_CONTENT_TYPE } from "./tinker-wire.js";

/** How a request body is put on the wire. */
export interface BodyEncoding {
  contentType: string;
  /** `Content-Encoding` of the encoded bytes (e.g. `zstd`), if any. */
  contentEncoding?: string;
  encode(body: unknown): string | Uint8Array;
}

/** JSON bodies (every endpoint of SkyRL tx; Tinker's JSON endpoints). */
export const JSON_BODY: BodyEncoding = {
  contentType: "application/json",
  encode: (body) => JSON.stringify(body),
};

/** An HTTP answer with a status the caller handles itself (e.g. a long-poll 408). */
export interface HttpAnswer {
  status: number;
  /** The JSON answer, or null (empty, or protobuf: see `bytes`). */
  body: unknown;
  /** The raw answer when the server answered protobuf. */
  bytes?: Uint8Array;
}

/**
 * Reads `response` (from `url`) whole and capped at `maxBytes`: a 2xx protobuf answer as bytes,
 * else as JSON (empty: null). A non-2xx status not in `passStatuses` throws StatusError; a body
 * that is not JSON, E_POLICY_OUTPUT.
 */
export async function readAnswer(
  response: Response,
  url: string,
  maxBytes: number,
  passStatuses: readonly number[] | undefined,
): Promise<HttpAnswer> {
  const bytes = await readBodyCapped(response, url, maxBytes);
  if ((response.headers.get("content-type") ?? "").includes(PROTOBUF_CONTENT_TYPE) && response.ok) {
    return { status: response.status, body: null, bytes };
  }
  const text = new TextDecoder().decode(bytes);
  if (!response.ok && !passStatuses?.includes(response.status))
    throw new StatusError(response.status, text, response.headers);
  let parsed: unknown = null;
  if (text.trim() !== "") {
    try {
      parsed = JSON.parse(text);
    } catch (cause) {
      throw answerNotJson(url, response.status, text, cause);
    }
  }
  return { status: response.status, body: parsed };
}
