/**
 * @module policy/tinker-handshake
 * What a Tinker service tells its clients before the session starts, as the official SDK 0.38.0
 * reads it: the client configuration (`/api/v1/client/config`: JWT auth, zstd for
 * `forward_backward`, request-size limits), the dynamic configuration, and the JWT that replaces
 * the API key when the service enables it (`/api/v1/auth/token`, refreshed before it expires).
 */
import { SpadeError } from "../errors.js";

/** The SDK version whose protocol SPADE speaks (sent as `sdk_version`; servers resolve their flags by it). */
export const TINKER_SDK_VERSION = "0.38.0";

/** The service's client configuration (`ClientConfigResponse`), SDK defaults where it is silent. */
export interface TinkerClientConfig {
  /** Exchange the API key for a JWT and send that (`pjwt_auth_enabled`). */
  jwtAuth: boolean;
  /** zstd-compress protobuf `forward_backward` bodies (`proto_compress_fwdbwd`). */
  compressForwardBackward: boolean;
  /** Most datums in one `forward_backward` request (`fwdbwd_max_chunk_len`). */
  maxChunkDatums: number;
  /** Most estimated protobuf bytes in one `forward_backward` request, before zstd (`fwdbwd_max_chunk_bytes_count`). */
  maxChunkBytes: number;
  /** Send the chunks of one `forward_backward` at once, the first last (`parallel_fwdbwd_chunks`). */
  parallelChunks: boolean;
  /** Sampling requests the service lets one client have in flight (`sample_max_concurrent_requests`). */
  sampleMaxConcurrentRequests: number;
  /**
   * The service's configuration names the protobuf flags (`proto_compress_fwdbwd`): it reads
   * protobuf `forward_backward` bodies. Servers that only stub the handshake (SkyRL tx 0.3.0
   * answers `{pjwt_auth_enabled: false}`) do not say so.
   */
  protobufAware: boolean;
  /** False when the server has no `/client/config` (HTTP 404: a server older than the handshake). */
  served: boolean;
}

/** The SDK 0.38.0 defaults of every flag. */
export const DEFAULT_CLIENT_CONFIG: TinkerClientConfig = {
  jwtAuth: false,
  compressForwardBackward: false,
  maxChunkDatums: 1024,
  maxChunkBytes: 5_000_000,
  parallelChunks: true,
  sampleMaxConcurrentRequests: 2000,
  protobufAware: false,
  served: true,
};

/** The flags a `/client/config` answer sets; unknown or mistyped flags keep their defaults, as the SDK ignores extra fields. */
export function parseClientConfig(body: unknown): TinkerClientConfig {
  const raw = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const flag = (key: string, fallback: boolean) =>
    typeof raw[key] === "boolean" ? (raw[key] as boolean) : fallback;
  const count = (key: string, fallback: number) =>
    Number.isInteger(raw[key]) && (raw[key] as number) > 0 ? (raw[key] as number) : fallback;
  const d = DEFAULT_CLIENT_CONFIG;
  return {
    jwtAuth: flag("pjwt_auth_enabled", d.jwtAuth),
    compressForwardBackward: flag("proto_compress_fwdbwd", d.compressForwardBackward),
    maxChunkDatums: count("fwdbwd_max_chunk_len", d.maxChunkDatums),
    maxChunkBytes: count("fwdbwd_max_chunk_bytes_count", d.maxChunkBytes),
    parallelChunks: flag("parallel_fwdbwd_chunks", d.parallelChunks),
    sampleMaxConcurrentRequests: count(
      "sample_max_concurrent_requests",
      d.sampleMaxConcurrentRequests,
    ),
    protobufAware: typeof raw.proto_compress_fwdbwd === "boolean",
    served: true,
  };
}

/** The claims of a JWT (its payload), unverified: the token comes from the service over its own connection. */
export function jwtClaims(jwt: string): Record<string, unknown> {
  const payload = jwt.split(".")[1];
  try {
    if (payload === undefined) throw new Error("no payload part");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown;
    if (typeof claims !== "object" || claims === null) throw new Error("payload is not an object");
    return claims as Record<string, unknown>;
  } catch (cause) {
    throw new SpadeError(
      "E_POLICY_OUTPUT",
      `the service's auth token is not a JWT: ${(cause as Error).message}`,
      { nextStep: "check --engine points at a Tinker service", cause },
    );
  }
}

/** Seconds before expiry at which a cached JWT is replaced (the SDK's on-demand margin). */
export const JWT_REFRESH_MARGIN_S = 60;

/**
 * The JWT of a session: exchanged for the API key on first use, replaced when fewer than
 * `JWT_REFRESH_MARGIN_S` seconds are left or when the service rejects it as `invalid_token`.
 * Concurrent callers share one exchange.
 */
export class JwtAuth {
  #token = "";
  #exchange: Promise<string> | null = null;

  /** `exchange` posts `/api/v1/auth/token` with the API key and returns the answer's `jwt`. */
  constructor(
    private readonly exchange: () => Promise<unknown>,
    private readonly nowMs: () => number,
  ) {}

  /** A token with more than the margin left, exchanging for a new one when needed. */
  async token(): Promise<string> {
    if (this.#token && this.secondsLeft(this.#token) > JWT_REFRESH_MARGIN_S) return this.#token;
    return this.fetch();
  }

  /** A token other than `rejected` (one exchange however many requests saw it rejected). */
  async replace(rejected: string): Promise<string> {
    if (this.#token !== rejected && this.#token !== "") return this.#token;
    return this.fetch();
  }

  private secondsLeft(jwt: string): number {
    const exp = Number(jwtClaims(jwt).exp);
    return Number.isFinite(exp) ? exp - this.nowMs() / 1000 : 0;
  }

  private fetch(): Promise<string> {
    this.#exchange ??= (async () => {
      try {
        const body = (await this.exchange()) as { jwt?: unknown } | null;
        if (typeof body?.jwt !== "string" || body.jwt === "") {
          throw new SpadeError(
            "E_POLICY_OUTPUT",
            `/api/v1/auth/token answered without a jwt: ${JSON.stringify(body).slice(0, 200)}`,
            { nextStep: "check --engine points at a Tinker service" },
          );
        }
        jwtClaims(body.jwt);
        this.#token = body.jwt;
        return body.jwt;
      } finally {
        this.#exchange = null;
      }
    })();
    return this.#exchange;
  }
}
