import { describe, expect, it } from "vitest";
import { codeOf, codeOfAsync } from "../../test/assert.js";
import type { RetryClock } from "./retry.js";
import {
  DEFAULT_CLIENT_CONFIG,
  JwtAuth,
  jwtClaims,
  parseClientConfig,
} from "./tinker-handshake.js";
import { TinkerHttp } from "./tinker-http.js";

/** TEST DOUBLE: a clock at `nowMs` whose waits return at once. */
function fixedClock(nowMs = 1_000_000_000): RetryClock & { nowMs: number } {
  const clock = { nowMs, now: () => clock.nowMs, random: () => 0, sleep: async () => {} };
  return clock;
}

const jwtWith = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;

interface Call {
  path: string;
  key: string;
  body: any;
  accept: string;
}

/** TEST DOUBLE: a `fetch` answering from a script of (path -> answers in order); records every call. */
function scriptedFetch(
  script: Record<
    string,
    Array<{ status: number; body?: unknown; headers?: Record<string, string>; bytes?: Uint8Array }>
  >,
) {
  const calls: Call[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    const path = new URL(url).pathname;
    const headers = init.headers as Record<string, string>;
    calls.push({
      path,
      key: headers["x-api-key"] as string,
      body: JSON.parse(String(init.body)),
      accept: headers.accept as string,
    });
    const next = script[path]?.shift();
    if (!next)
      return new Response(JSON.stringify({ detail: "Not Found" }), {
        status: 404,
        headers: { "content-type": "application/json" },
      });
    if (next.bytes)
      return new Response(next.bytes, {
        status: next.status,
        headers: { "content-type": "application/x-protobuf" },
      });
    return new Response(JSON.stringify(next.body ?? {}), {
      status: next.status,
      headers: { "content-type": "application/json", ...next.headers },
    });
  }) as unknown as typeof fetch;
  return { calls, fetchImpl };
}

function http(fetchImpl: typeof fetch, clock = fixedClock()) {
  return new TinkerHttp({
    baseURL: "http://engine.test",
    apiKeyEnv: "K",
    environment: { K: "tml-key" },
    fetch: fetchImpl,
    clock,
    heartbeatMs: 0,
    retry: { maxRetries: 1 },
  });
}

describe("parseClientConfig", () => {
  it("reads the flags SPADE follows and keeps the SDK's defaults for missing, mistyped or non-positive ones", () => {
    expect(parseClientConfig({})).toEqual(DEFAULT_CLIENT_CONFIG);
    expect(parseClientConfig(null)).toEqual(DEFAULT_CLIENT_CONFIG);
    expect(
      parseClientConfig({
        pjwt_auth_enabled: true,
        proto_compress_fwdbwd: true,
        fwdbwd_max_chunk_len: 16,
        fwdbwd_max_chunk_bytes_count: 4096,
        parallel_fwdbwd_chunks: false,
        sample_max_concurrent_requests: 8,
        unknown_flag: 1,
      }),
    ).toEqual({
      jwtAuth: true,
      compressForwardBackward: true,
      maxChunkDatums: 16,
      maxChunkBytes: 4096,
      parallelChunks: false,
      sampleMaxConcurrentRequests: 8,
      protobufAware: true,
      served: true,
    });
    expect(
      parseClientConfig({
        pjwt_auth_enabled: "yes",
        fwdbwd_max_chunk_len: 0,
        fwdbwd_max_chunk_bytes_count: 1.5,
      }),
    ).toEqual(DEFAULT_CLIENT_CONFIG);
  });
});

describe("JwtAuth", () => {
  it("exchanges once, keeps the token while more than 60 s are left, then exchanges again; concurrent callers share one exchange", async () => {
    const clock = fixedClock(1_000_000_000);
    const tokens = [
      jwtWith({ exp: 1_000_000 + 120, n: 0 }),
      jwtWith({ exp: 1_000_000 + 3600, n: 1 }),
    ];
    let exchanges = 0;
    const auth = new JwtAuth(async () => ({ jwt: tokens[exchanges++] }), clock.now);
    const [a, b] = await Promise.all([auth.token(), auth.token()]);
    expect([a, b, exchanges]).toEqual([tokens[0], tokens[0], 1]);
    clock.nowMs += 59_000; // 61 s left
    expect([await auth.token(), exchanges]).toEqual([tokens[0], 1]);
    clock.nowMs += 1_000; // 60 s left: replaced
    expect([await auth.token(), exchanges]).toEqual([tokens[1], 2]);
  });

  it("replaces a rejected token once however many requests saw it rejected", async () => {
    const tokens = [jwtWith({ exp: 2e9 }), jwtWith({ exp: 2e9, n: 1 })];
    let exchanges = 0;
    const auth = new JwtAuth(
      async () => ({ jwt: tokens[exchanges++] }),
      () => 0,
    );
    const first = await auth.token();
    expect(await Promise.all([auth.replace(first), auth.replace(first)])).toEqual([
      tokens[1],
      tokens[1],
    ]);
    expect(exchanges).toBe(2);
  });

  it("fails with E_POLICY_OUTPUT when the exchange answers no JWT", async () => {
    expect(
      await codeOfAsync(
        new JwtAuth(
          async () => ({}),
          () => 0,
        ).token(),
      ),
    ).toBe("E_POLICY_OUTPUT");
    expect(
      await codeOfAsync(
        new JwtAuth(
          async () => ({ jwt: "not-a-jwt" }),
          () => 0,
        ).token(),
      ),
    ).toBe("E_POLICY_OUTPUT");
    expect(codeOf(() => jwtClaims("a.bm90IGpzb24.c"))).toBe("E_POLICY_OUTPUT");
  });
});

describe("TinkerHttp handshake and auth", () => {
  it("treats a 404 on /client/config as an older server: SDK defaults, no dynamic configuration, the API key throughout", async () => {
    const { calls, fetchImpl } = scriptedFetch({
      "/api/v1/create_session": [{ status: 200, body: { session_id: "s" } }],
    });
    const client = http(fetchImpl);
    expect(await client.session()).toBe("s");
    expect(await client.handshake()).toEqual({ ...DEFAULT_CLIENT_CONFIG, served: false });
    expect(calls.map((c) => [c.path, c.key])).toEqual([
      ["/api/v1/client/config", "tml-key"],
      ["/api/v1/create_session", "tml-key"],
    ]);
    expect(calls[0]!.body).toEqual({ sdk_version: "0.38.0" });
  });

  it("with JWT auth: exchanges the key, sends the JWT, and on a 401 invalid_token exchanges again and replays the request once", async () => {
    const [first, second] = [jwtWith({ exp: 2e9, n: 0 }), jwtWith({ exp: 2e9, n: 1 })];
    const { calls, fetchImpl } = scriptedFetch({
      "/api/v1/client/config": [{ status: 200, body: { pjwt_auth_enabled: true } }],
      "/api/v1/auth/token": [
        { status: 200, body: { jwt: first } },
        { status: 200, body: { jwt: second } },
        { status: 200, body: { jwt: jwtWith({ exp: 2e9, n: 2 }) } },
      ],
      "/api/v1/client/dynamic_config": [{ status: 404 }],
      "/api/v1/create_session": [
        {
          status: 401,
          body: { detail: "revoked" },
          headers: { "www-authenticate": 'Bearer error="invalid_token"' },
        },
        { status: 200, body: { session_id: "s" } },
      ],
      "/api/v1/optim_step": [
        {
          status: 401,
          body: { detail: "revoked" },
          headers: { "www-authenticate": 'Bearer error="invalid_token"' },
        },
        {
          status: 401,
          body: { detail: "still revoked" },
          headers: { "www-authenticate": 'Bearer error="invalid_token"' },
        },
      ],
    });
    const client = http(fetchImpl);
    expect(await client.session()).toBe("s");
    expect(calls.map((c) => [c.path, c.key])).toEqual([
      ["/api/v1/client/config", "tml-key"],
      ["/api/v1/auth/token", "tml-key"],
      ["/api/v1/client/dynamic_config", first],
      ["/api/v1/create_session", first],
      ["/api/v1/auth/token", "tml-key"],
      ["/api/v1/create_session", second],
    ]);
    // A second rejection of the replayed request is the server's answer: E_POLICY_HTTP, not a loop.
    await expect(client.post("/api/v1/optim_step", {})).rejects.toMatchObject({
      code: "E_POLICY_HTTP",
      message: expect.stringContaining("HTTP 401"),
    });
  });
});

describe("TinkerHttp retries", () => {
  it("obeys x-should-retry over the status, as the SDK does", async () => {
    const { calls, fetchImpl } = scriptedFetch({
      "/api/v1/optim_step": [
        { status: 400, headers: { "x-should-retry": "true" } },
        { status: 200, body: { request_id: "1" } },
      ],
      "/api/v1/save_weights": [
        { status: 503, headers: { "x-should-retry": "false" }, body: { detail: "draining" } },
      ],
    });
    const client = http(fetchImpl);
    expect(await client.post("/api/v1/optim_step", {})).toEqual({ request_id: "1" });
    await expect(client.post("/api/v1/save_weights", {})).rejects.toMatchObject({
      code: "E_POLICY_HTTP",
      message: expect.stringContaining("HTTP 503"),
    });
    expect(calls.map((c) => c.path)).toEqual([
      "/api/v1/optim_step",
      "/api/v1/optim_step",
      "/api/v1/save_weights",
    ]);
  });
});

describe("TinkerHttp.awaitFuture", () => {
  it("asks for the payload after a metadata-only answer, and survives three bare 400s but not a fourth", async () => {
    const { calls, fetchImpl } = scriptedFetch({
      "/api/v1/retrieve_future": [
        { status: 200, body: { status: "complete_metadata", response_payload_size: 10 } },
        { status: 400 },
        { status: 400 },
        { status: 400 },
        { status: 200, body: { metrics: { "a:sum": 1 } } },
        { status: 400, body: { detail: "Checkpoint not found" } },
        { status: 400 },
        { status: 400 },
        { status: 400 },
      ],
    });
    const client = http(fetchImpl);
    expect(await client.awaitFuture("7")).toEqual({ metrics: { "a:sum": 1 } });
    expect(calls.map((c) => c.body.allow_metadata_only)).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
    const failed = client.awaitFuture("8");
    await expect(failed).rejects.toMatchObject({
      code: "E_POLICY_HTTP",
      message: expect.stringContaining("HTTP 400 4 times"),
    });
  });

  it("asks for protobuf with a decoder and decodes it; a protobuf answer nobody asked for is E_POLICY_OUTPUT", async () => {
    const { calls, fetchImpl } = scriptedFetch({
      "/api/v1/retrieve_future": [
        { status: 200, bytes: new Uint8Array([1, 2]) },
        { status: 200, bytes: new Uint8Array([3]) },
      ],
    });
    const client = http(fetchImpl);
    expect(await client.awaitFuture("1", undefined, (bytes) => ({ length: bytes.length }))).toEqual(
      { length: 2 },
    );
    expect(calls[0]!.accept).toBe("application/x-protobuf");
    expect(await codeOfAsync(client.awaitFuture("2"))).toBe("E_POLICY_OUTPUT");
    expect(calls[1]!.accept).toBe("application/json");
  });
});
