// SPADE's OpenAI-compatible shim: the wire shapes the harness (litellm) reads, and coded refusals.
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SHIM_MAX_BODY_BYTES, startShim, type Shim } from "./index.js";

let shim: Shim | undefined;
afterEach(async () => {
  await shim?.close();
  shim = undefined;
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("startShim", () => {
  it("answers text and tool calls as chat.completion objects and records each request", async () => {
    shim = await startShim(
      {
        talker: () => ({ content: "hello" }),
        caller: (req) => ({
          toolCall: { name: "lookup", arguments: { id: req.headers["x-tau2-task-id"] ?? null } },
        }),
      },
      { record: true },
    );
    const a = (await (
      await post(shim.baseURL, {
        model: "talker",
        messages: [{ role: "user", content: "hi" }],
        top_k: 20,
      })
    ).json()) as any;
    expect(a.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" },
    ]);
    const b = (await (
      await post(shim.baseURL, { model: "caller", messages: [] }, { "X-Tau2-Task-Id": "12" })
    ).json()) as any;
    expect(b.choices[0].message.tool_calls).toEqual([
      { id: "call_2", type: "function", function: { name: "lookup", arguments: '{"id":"12"}' } },
    ]);
    expect(b.choices[0].finish_reason).toBe("tool_calls");
    expect(shim.requests.map((r) => [r.model, r.body.top_k ?? null])).toEqual([
      ["talker", 20],
      ["caller", null],
    ]);
  });

  it("refuses an unknown model with 404 and reports a handler's error as 500", async () => {
    shim = await startShim({
      broken: () => {
        throw new Error("scripted failure");
      },
    });
    const missing = await post(shim.baseURL, { model: "nope", messages: [] });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.message).toBe(
      'model "nope" is not served here (served: broken)',
    );
    const failed = await post(shim.baseURL, { model: "broken", messages: [] });
    expect(failed.status).toBe(500);
    expect(((await failed.json()) as any).error.message).toBe("scripted failure");
  });

  it("answers a body over its cap 413 with an OpenAI error object, without keeping it", async () => {
    shim = await startShim(
      { talker: () => ({ content: "hi" }) },
      { maxBodyBytes: 1024, record: true },
    );
    const at = { model: "talker", messages: [], pad: "" };
    at.pad = "p".repeat(1024 - JSON.stringify(at).length);
    const ok = await post(shim.baseURL, at);
    const over = await post(shim.baseURL, { ...at, pad: `${at.pad}p` });
    expect([ok.status, over.status, await over.json()]).toEqual([
      200,
      413,
      { error: { message: "request body over 1024 bytes", type: "invalid_request_error" } },
    ]);
    expect(shim.requests.map((r) => JSON.stringify(r.body).length)).toEqual([1024]);
  });

  it("keeps no request unless asked to (each carries the whole conversation)", async () => {
    shim = await startShim({ talker: () => ({ content: "hi" }) });
    const ok = await post(shim.baseURL, { model: "talker", messages: [] });
    expect(ok.status).toBe(200);
    expect(shim.requests).toEqual([]);
  });

  it("by default takes a body of 16 MiB and refuses one byte more", async () => {
    shim = await startShim({ talker: () => ({ content: "hi" }) });
    const at = { model: "talker", messages: [], pad: "" };
    at.pad = "p".repeat(DEFAULT_SHIM_MAX_BODY_BYTES - JSON.stringify(at).length);
    const ok = await post(shim.baseURL, at);
    const over = await post(shim.baseURL, { ...at, pad: `${at.pad}p` });
    expect([DEFAULT_SHIM_MAX_BODY_BYTES, ok.status, over.status]).toEqual([
      16 * 1024 * 1024,
      200,
      413,
    ]);
  });

  it("fails E_IO, saying what to do, when its port is taken", async () => {
    shim = await startShim({ talker: () => ({ content: "hi" }) });
    const port = Number(new URL(shim.baseURL).port);
    await expect(startShim({ talker: () => ({ content: "hi" }) }, { port })).rejects.toMatchObject({
      code: "E_IO",
      nextStep: "free the port or omit it",
      message: expect.stringMatching(/^the tau2 model shim cannot listen: listen EADDRINUSE/),
    });
  });
});
