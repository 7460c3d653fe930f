/**
 * @module cli/doctor-probe
 * What `spade doctor` asks a model server or a training engine: does it answer, does it take
 * tool calls, does it return token ids and logprobs (what training on its samples needs), and
 * does it accept the sampling parameters SPADE sends. Each probe is one small request; `fetch`
 * is injected.
 */
import { describeError } from "../errors.js";

/** One line of the doctor's report. */
export interface Check {
  /** What was checked, e.g. "tool calls". */
  name: string;
  /** ok: works; warn: works in part or is optional and absent; fail: does not work. */
  status: "ok" | "warn" | "fail";
  /** What was found. */
  detail: string;
  /** What to do about it (warn and fail). */
  fix?: string;
}

/** The check called `name`: its three outcomes (warn and fail say what to do). */
function check(name: string) {
  return {
    ok: (detail: string): Check => ({ name, status: "ok", detail }),
    warn: (detail: string, fix: string): Check => ({ name, status: "warn", detail, fix }),
    fail: (detail: string, fix: string): Check => ({ name, status: "fail", detail, fix }),
  };
}

const server = check("server");
const sampling = check("sampling parameters");
const toolCalls = check("tool calls");
const logprobs = check("logprobs");
const tokenIdsCheck = check("token ids");
const engine = check("engine");
const engineModels = check("engine models");

/** A server to probe and how. */
export interface ProbeOptions {
  fetch?: typeof fetch;
  /** Per request. Default 60,000 ms (a CPU server loading a prompt is slow). */
  timeoutMs?: number;
  /** Sent as a bearer token. */
  apiKey?: string;
}

interface Answer {
  status: number;
  body: Record<string, unknown> | null;
  text: string;
}

async function call(
  url: string,
  init: { method: string; body?: unknown; headers?: Record<string, string> },
  options: ProbeOptions,
): Promise<Answer> {
  const res = await (options.fetch ?? fetch)(url, {
    method: init.method,
    headers: {
      "content-type": "application/json",
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  });
  const text = await res.text();
  let body: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    body = null;
  }
  return { status: res.status, body, text };
}

/**
 * For a request that timed out, what to say of it: the server took the connection but did not
 * answer (hung, or still loading a model), which "cannot be reached" would misname. Else null.
 */
function unanswered(err: unknown, options: ProbeOptions): string | null {
  if (!(err instanceof Error) || err.name !== "TimeoutError") return null;
  return `took the connection but gave no answer within ${(options.timeoutMs ?? 60_000) / 1000} s`;
}

const HUNG_FIX =
  "the server is stuck or still loading its model: read its log, restart it if it is stuck (a run or an eval stopped by E_POLICY_UNAVAILABLE resumes once it answers)";

/** The sampling parameters SPADE sends to an OpenAI-compatible server (config temperature/topP/topK/maxTokens, a seed per request). */
export const SPADE_SAMPLING = {
  temperature: 0.6,
  top_p: 0.95,
  top_k: 20,
  max_tokens: 8,
  seed: 1,
} as const;

const WEATHER_TOOL = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Get the weather of a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

const firstChoice = (body: Record<string, unknown> | null) =>
  ((body?.choices as Array<Record<string, unknown>> | undefined) ?? [])[0];

/**
 * Probes an OpenAI-compatible server at `baseURL` (`.../v1`) for `model`: reachable and serving the
 * model, SPADE's sampling parameters accepted (each one alone when the set is refused), tool calls,
 * logprobs and token ids.
 */
export async function probeOpenAI(
  baseURL: string,
  model: string,
  options: ProbeOptions = {},
): Promise<Check[]> {
  const root = baseURL.replace(/\/+$/, "");
  const checks: Check[] = [];
  let models: Answer;
  try {
    models = await call(`${root}/models`, { method: "GET" }, options);
  } catch (err) {
    return [
      unanswered(err, options)
        ? server.fail(`GET ${root}/models ${unanswered(err, options)}`, HUNG_FIX)
        : server.fail(
            `${root}/models cannot be reached (${describeError(err)})`,
            "start the server, or check --base-url (it ends in /v1)",
          ),
    ];
  }
  const ids = ((models.body?.data as Array<{ id?: unknown }> | undefined) ?? []).map((m) =>
    String(m.id),
  );
  if (models.status !== 200)
    checks.push(
      server.fail(
        `GET ${root}/models answered HTTP ${models.status}`,
        "check --base-url and the API key variable (--api-key-env)",
      ),
    );
  else if (!ids.includes(model))
    checks.push(
      server.warn(
        `answers, but lists ${ids.length > 0 ? ids.join(", ") : "no models"}, not ${model}`,
        `pass one of the listed names to --model`,
      ),
    );
  else checks.push(server.ok(`answers and serves ${model}`));

  const chat = (extra: Record<string, unknown>) =>
    call(
      `${root}/chat/completions`,
      {
        method: "POST",
        body: { model, messages: [{ role: "user", content: "Say hi." }], ...extra },
      },
      options,
    ).catch((err: unknown) => ({ status: 0, body: null, text: describeError(err) }) as Answer);

  const sampled = await chat({ ...SPADE_SAMPLING });
  if (sampled.status === 200 && firstChoice(sampled.body)) {
    checks.push(sampling.ok(`accepts ${Object.keys(SPADE_SAMPLING).join(", ")}`));
  } else {
    const refused: string[] = [];
    for (const [key, value] of Object.entries(SPADE_SAMPLING)) {
      const alone = await chat({
        [key]: value,
        ...(key === "max_tokens" ? {} : { max_tokens: 8 }),
      });
      if (alone.status !== 200) refused.push(key);
    }
    checks.push(
      sampling.fail(
        `refused SPADE's sampling (HTTP ${sampled.status}${refused.length > 0 ? `; refuses ${refused.join(", ")}` : ""}): ${sampled.text.slice(0, 200)}`,
        refused.includes("top_k")
          ? "pass --top-k 0 (hosted APIs refuse top_k)"
          : "see the server's message; `spade run --help` lists the sampling flags",
      ),
    );
  }

  // The call is forced (a named tool_choice): what is probed is the server's support, not the model's judgement.
  const tools = await chat({
    tools: [WEATHER_TOOL],
    tool_choice: { type: "function", function: { name: "get_weather" } },
    messages: [{ role: "user", content: "What is the weather in Paris?" }],
    max_tokens: 64,
    temperature: 0,
  });
  const calls =
    (
      firstChoice(tools.body)?.message as
        | { tool_calls?: Array<{ function?: { name?: string } }> }
        | undefined
    )?.tool_calls ?? [];
  if (tools.status !== 200)
    checks.push(
      toolCalls.fail(
        `a request with tools was refused (HTTP ${tools.status}): ${tools.text.slice(0, 200)}`,
        "enable tool calling on the server (vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama.cpp: --jinja or a function-calling chat format)",
      ),
    );
  else if (calls.length > 0)
    checks.push(
      toolCalls.ok(
        `accepted tools and returned a call of ${calls.map((c) => c.function?.name).join(", ")}`,
      ),
    );
  else
    checks.push(
      toolCalls.warn(
        "accepted tools, but the answer had no tool_calls (the model answered in text, or the server does not parse calls)",
        "tool-use environments need parsed calls: enable the server's tool-call parser for this model",
      ),
    );

  const lp = await chat({ max_tokens: 4, logprobs: true, top_logprobs: 1, return_token_ids: true });
  const choice = firstChoice(lp.body);
  const content = (choice?.logprobs as { content?: unknown[] } | null | undefined)?.content;
  if (lp.status !== 200)
    checks.push(
      logprobs.fail(
        `a request for logprobs was refused (HTTP ${lp.status}): ${lp.text.slice(0, 200)}`,
        "inference-only runs do not need them; training on this server's samples does",
      ),
    );
  else if (Array.isArray(content) && content.length > 0)
    checks.push(logprobs.ok(`returned ${content.length} per-token logprobs`));
  else
    checks.push(
      logprobs.warn(
        "the answer carried no per-token logprobs",
        "inference-only runs do not need them",
      ),
    );
  const tokenIds = choice?.token_ids ?? lp.body?.prompt_token_ids;
  if (lp.status === 200 && Array.isArray(tokenIds))
    checks.push(tokenIdsCheck.ok("returns token ids (return_token_ids)"));
  else
    checks.push(
      tokenIdsCheck.warn(
        "returns no token ids",
        "inference-only runs do not need them; to train, use a Tinker-compatible engine (--engine)",
      ),
    );
  return checks;
}

/** Probes a Tinker-compatible engine at `url` (its root): health, its models, and the SDK handshake. */
export async function probeEngine(url: string, options: ProbeOptions = {}): Promise<Check[]> {
  const root = url.replace(/\/+$/, "");
  const checks: Check[] = [];
  try {
    const health = await call(`${root}/api/v1/healthz`, { method: "GET" }, options);
    checks.push(
      health.status === 200
        ? engine.ok(`${root} answers`)
        : engine.fail(
            `GET /api/v1/healthz answered HTTP ${health.status}`,
            "check --engine (the server's root, without /api/v1)",
          ),
    );
  } catch (err) {
    return [
      unanswered(err, options)
        ? engine.fail(`GET ${root}/api/v1/healthz ${unanswered(err, options)}`, HUNG_FIX)
        : engine.fail(
            `${root} cannot be reached (${describeError(err)})`,
            "start the engine, or use --engine local to have SPADE start one",
          ),
    ];
  }
  const caps = await call(
    `${root}/api/v1/get_server_capabilities`,
    { method: "GET" },
    options,
  ).catch(() => null);
  const names = (
    (caps?.body?.supported_models as Array<{ model_name?: unknown }> | undefined) ?? []
  ).map((m) => String(m.model_name));
  if (caps?.status === 200)
    checks.push(
      engineModels.ok(
        names.length > 0 ? `serves ${names.join(", ")}` : "answers get_server_capabilities",
      ),
    );
  else
    checks.push(
      engineModels.warn(
        `get_server_capabilities answered ${caps ? `HTTP ${caps.status}` : "nothing"}`,
        "pass the model exactly as the engine names it to --base-model",
      ),
    );
  return checks;
}
