import { describe, expect, it } from "vitest";
import { probeEngine, probeOpenAI } from "./doctor-probe.js";
import { SpadeError } from "../errors.js";
import { checkCodeSandbox, checkNode, formatCheck } from "./doctor.js";

/** A FAKE server as a fetch function: answers by path and request body. */
function fakeFetch(
  handler: (path: string, body: Record<string, unknown> | null) => [number, unknown],
): typeof fetch {
  return (async (url: string | URL, init?: RequestInit) => {
    const body =
      typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : null;
    const [status, answer] = handler(new URL(String(url)).pathname, body);
    return new Response(typeof answer === "string" ? answer : JSON.stringify(answer), { status });
  }) as typeof fetch;
}

const vllmLike = fakeFetch((path, body) => {
  if (path === "/v1/models") return [200, { data: [{ id: "m" }] }];
  if (body?.tools)
    return [
      200,
      {
        choices: [
          {
            message: {
              content: null,
              tool_calls: [{ function: { name: "get_weather", arguments: "{}" } }],
            },
          },
        ],
      },
    ];
  if (body?.logprobs)
    return [
      200,
      {
        prompt_token_ids: [1, 2],
        choices: [
          {
            message: { content: "hi" },
            token_ids: [3],
            logprobs: { content: [{ token: "hi", logprob: -0.1 }] },
          },
        ],
      },
    ];
  return [200, { choices: [{ message: { content: "hi" } }] }];
});

/** probeOpenAI's checks, in the order it reports them. */
const OPENAI_CHECKS = ["server", "sampling parameters", "tool calls", "logprobs", "token ids"];

/** Each check's [name, status]: probeOpenAI's checks in order, with `statuses` in that order. */
const withStatuses = (statuses: string[]) => OPENAI_CHECKS.map((name, i) => [name, statuses[i]]);

describe("probeOpenAI", () => {
  it("reports a server that does everything", async () => {
    const checks = await probeOpenAI("http://x/v1/", "m", { fetch: vllmLike });
    expect(checks.map((c) => [c.name, c.status])).toEqual(
      withStatuses(["ok", "ok", "ok", "ok", "ok"]),
    );
    expect(checks[2]!.detail).toBe("accepted tools and returned a call of get_weather");
  });

  it("names a refused sampling parameter, a model it does not serve, missing calls, logprobs and token ids", async () => {
    const picky = fakeFetch((path, body) => {
      if (path === "/v1/models") return [200, { data: [{ id: "other" }] }];
      if (body && "top_k" in body)
        return [400, { error: { message: "Unrecognized request argument: top_k" } }];
      return [200, { choices: [{ message: { content: "hi" } }] }];
    });
    const checks = await probeOpenAI("http://x/v1", "m", { fetch: picky });
    expect(checks.map((c) => [c.name, c.status])).toEqual(
      withStatuses(["warn", "fail", "warn", "warn", "warn"]),
    );
    expect(checks[0]!.detail).toBe("answers, but lists other, not m");
    expect(checks[1]!.detail).toMatch(/^refused SPADE's sampling \(HTTP 400; refuses top_k\)/);
    expect(checks[1]!.fix).toBe("pass --top-k 0 (hosted APIs refuse top_k)");
  });

  it("an unreachable server is one failed check", async () => {
    const down = (async () => {
      throw new TypeError("fetch failed");
    }) as typeof fetch;
    const checks = await probeOpenAI("http://127.0.0.1:9/v1", "m", { fetch: down });
    expect(checks).toEqual([
      {
        name: "server",
        status: "fail",
        detail: "http://127.0.0.1:9/v1/models cannot be reached (fetch failed)",
        fix: "start the server, or check --base-url (it ends in /v1)",
      },
    ]);
  });
});

describe("a server that takes the connection and never answers", () => {
  /** A FAKE server that never answers: its fetch ends only when the request's signal aborts. */
  const hung = ((_url: string | URL, init?: RequestInit) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
    })) as typeof fetch;
  const fix =
    "the server is stuck or still loading its model: read its log, restart it if it is stuck (a run or an eval stopped by E_POLICY_UNAVAILABLE resumes once it answers)";

  it("is one failed check saying it gave no answer, not that it cannot be reached", async () => {
    const checks = await probeOpenAI("http://127.0.0.1:9/v1", "m", { fetch: hung, timeoutMs: 50 });
    expect(checks).toEqual([
      {
        name: "server",
        status: "fail",
        detail:
          "GET http://127.0.0.1:9/v1/models took the connection but gave no answer within 0.05 s",
        fix,
      },
    ]);
  });

  it("is the same for an engine", async () => {
    const checks = await probeEngine("http://127.0.0.1:9", { fetch: hung, timeoutMs: 50 });
    expect(checks).toEqual([
      {
        name: "engine",
        status: "fail",
        detail:
          "GET http://127.0.0.1:9/api/v1/healthz took the connection but gave no answer within 0.05 s",
        fix,
      },
    ]);
  });
});

describe("probeEngine and the report lines", () => {
  it("reports health and the engine's models", async () => {
    const engine = fakeFetch((path) =>
      path === "/api/v1/healthz"
        ? [200, { status: "ok" }]
        : [200, { supported_models: [{ model_name: "Qwen/Qwen3-0.6B" }] }],
    );
    expect(await probeEngine("http://e:1/", { fetch: engine })).toEqual([
      { name: "engine", status: "ok", detail: "http://e:1 answers" },
      { name: "engine models", status: "ok", detail: "serves Qwen/Qwen3-0.6B" },
    ]);
  });

  it("formats one line per check with its fix; Node older than 20 fails", () => {
    expect(checkNode("18.19.0")).toEqual({
      name: "node",
      status: "fail",
      detail: "v18.19.0 is older than 20",
      fix: "install Node 20 or newer (nodejs.org, or nvm install 20)",
    });
    expect(formatCheck(checkNode("20.20.2"))).toBe("ok   node                 v20.20.2");
    expect(formatCheck({ name: "tool calls", status: "warn", detail: "d", fix: "f" })).toBe(
      "warn tool calls           d -> fix: f",
    );
  });

  it("reports the code sandbox's isolation and memory cgroup (FAKE sandboxes)", async () => {
    const isolation = { mode: "user" } as const;
    const made = { isolation, python: "/usr/bin/python3" };
    expect(
      await checkCodeSandbox("auto", async () => ({
        ...made,
        cgroup: { version: 1, dirs: { memory: "/cg/m/a", cpu: null, pids: "/cg/p" } },
      })),
    ).toEqual({
      name: "code sandbox",
      status: "ok",
      detail: "/usr/bin/python3, namespaces as user, cgroups per run (v1: memory, pids; /cg/m/a)",
    });
    expect(await checkCodeSandbox("auto", async () => ({ ...made, cgroup: null }))).toEqual({
      name: "code sandbox",
      status: "warn",
      detail:
        "/usr/bin/python3, namespaces as user; no memory cgroup: each process's memory is capped, not a run's",
      fix: "run as root, or as a user inside `systemd-run --user --scope -p Delegate=yes` with --cgroups self",
    });
    expect(await checkCodeSandbox("off", async () => ({ ...made, cgroup: null }))).toEqual({
      name: "code sandbox",
      status: "warn",
      detail:
        "/usr/bin/python3, namespaces as user; --cgroups off: each process's memory is capped, not a run's",
    });
    const refused = await checkCodeSandbox("auto", async () => {
      throw new SpadeError("E_SANDBOX_UNAVAILABLE", "no network namespace");
    });
    expect([refused.status, refused.detail]).toEqual([
      "warn",
      "model-written code cannot run isolated (E_SANDBOX_UNAVAILABLE: no network namespace)",
    ]);
    const named = await checkCodeSandbox("self", async () => {
      throw new SpadeError("E_SANDBOX_UNAVAILABLE", "cannot make memory cgroups in /cg (own)");
    });
    expect(named).toEqual({
      name: "code sandbox",
      status: "warn",
      detail: "--cgroups self: E_SANDBOX_UNAVAILABLE: cannot make memory cgroups in /cg (own)",
    });
  });
});
