/**
 * @module test/fakes/openai-server
 * TEST DOUBLE. A real HTTP server on 127.0.0.1 (ephemeral port) that speaks just enough of
 * POST /v1/chat/completions to play scripted replies: text, `tool_calls`, error statuses with
 * headers, slow answers, answers that never come; logprobs and vLLM token ids when asked.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { listenLoopback } from "../../src/net/index.js";

/** One scripted reply. */
export type FakeReply =
  /** A normal assistant text answer; `finishReason` default `stop` (`length` for an answer cut at max_tokens). */
  | { kind: "text"; content: string; finishReason?: string; completionTokens?: number }
  /** Tool calls in `tool_calls`; `arguments` is sent verbatim (so it may be malformed JSON). */
  | {
      kind: "tool_calls";
      calls: Array<{ id?: string; name: string; arguments: string }>;
      content?: string | null;
    }
  /** An HTTP error with optional headers (e.g. `retry-after`). */
  | { kind: "status"; status: number; headers?: Record<string, string>; message?: string }
  /** `reply`, after `delayMs`. */
  | { kind: "slow"; delayMs: number; reply: FakeReply }
  /** Never answers (until the client gives up or the server closes). */
  | { kind: "hang" }
  /** A 200 answer without choices. */
  | { kind: "no-choices" }
  /** A text answer whose connection is closed after the headers and `bytes` bytes of the body (default half). */
  | { kind: "cut"; content: string; bytes?: number }
  /** Any body as it is (e.g. malformed JSON), with a status (default 200) and content type (default JSON). */
  | { kind: "raw"; body: string; status?: number; contentType?: string }
  /** A text answer of `chars` characters; `chunked` sends it without a content-length. */
  | { kind: "large"; chars: number; chunked?: boolean };

/** A request as the server received it. */
export interface RecordedRequest {
  /** 0-based arrival index. */
  index: number;
  /** The parsed JSON body. */
  body: any;
  headers: IncomingHttpHeaders;
}

/** Replies in order (past the end: HTTP 500 "script exhausted"), or a function of the request. */
export type FakeScript = readonly FakeReply[] | ((request: RecordedRequest) => FakeReply);

/** A running fake server. */
export interface FakeOpenAIServer {
  /** Base URL including `/v1`. */
  baseURL: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** Stops the server, dropping hanging requests. */
  close(): Promise<void>;
}

/** The fake tokenizer: one token per character, id = its code point. */
export function fakeTokenIds(text: string): number[] {
  return Array.from(text, (ch) => ch.codePointAt(0) ?? 0);
}

/** The fake logprob of the i-th generated token. */
export function fakeLogprob(i: number): number {
  return -(i + 1) / 8;
}

function completionBody(
  body: any,
  message: Record<string, unknown>,
  finishReason: string,
  completionTokens?: number,
): Record<string, unknown> {
  const content = typeof message.content === "string" ? message.content : "";
  const ids = fakeTokenIds(content);
  const promptText = (body.messages ?? [])
    .map((m: any) => (typeof m.content === "string" ? m.content : ""))
    .join("\n");
  const promptIds = fakeTokenIds(promptText);
  const choice: Record<string, unknown> = {
    index: 0,
    message: { role: "assistant", ...message },
    finish_reason: finishReason,
  };
  if (body.logprobs) {
    choice.logprobs = {
      content: ids.map((id, i) => ({
        token: body.return_tokens_as_token_ids ? `token_id:${id}` : String.fromCodePoint(id),
        logprob: fakeLogprob(i),
        top_logprobs: [],
      })),
    };
  }
  if (body.return_token_ids) choice.token_ids = ids;
  const out: Record<string, unknown> = {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 0,
    model: body.model,
    choices: [choice],
    usage: {
      prompt_tokens: promptIds.length,
      completion_tokens: completionTokens ?? ids.length,
      total_tokens: promptIds.length + (completionTokens ?? ids.length),
    },
  };
  if (body.return_token_ids) out.prompt_token_ids = promptIds;
  if (body.prompt_logprobs !== undefined) {
    out.prompt_logprobs = [
      null,
      ...promptIds
        .slice(1)
        .map((id) => ({ [id]: { logprob: -1, rank: 1, decoded_token: String.fromCodePoint(id) } })),
    ];
  }
  return out;
}

function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

function play(reply: FakeReply, body: any, res: ServerResponse): void {
  switch (reply.kind) {
    case "text":
      return sendJson(
        res,
        200,
        completionBody(
          body,
          { content: reply.content },
          reply.finishReason ?? "stop",
          reply.completionTokens,
        ),
      );
    case "tool_calls": {
      const toolCalls = reply.calls.map((c, i) => ({
        id: c.id ?? `call_fake_${i}`,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      }));
      return sendJson(
        res,
        200,
        completionBody(
          body,
          { content: reply.content ?? null, tool_calls: toolCalls },
          "tool_calls",
        ),
      );
    }
    case "status":
      return sendJson(
        res,
        reply.status,
        { error: { message: reply.message ?? `fake error ${reply.status}`, type: "fake_error" } },
        reply.headers,
      );
    case "slow": {
      const timer = setTimeout(() => play(reply.reply, body, res), reply.delayMs);
      res.on("close", () => clearTimeout(timer));
      return;
    }
    case "hang":
      return;
    case "no-choices":
      return sendJson(res, 200, {
        id: "chatcmpl-fake",
        object: "chat.completion",
        created: 0,
        model: body.model,
        choices: [],
      });
    case "cut": {
      const text = JSON.stringify(completionBody(body, { content: reply.content }, "stop"));
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(text)),
      });
      res.write(text.slice(0, reply.bytes ?? Math.floor(text.length / 2)), () => res.destroy());
      return;
    }
    case "raw":
      res.writeHead(reply.status ?? 200, {
        "content-type": reply.contentType ?? "application/json",
      });
      res.end(reply.body);
      return;
    case "large": {
      const text = JSON.stringify(
        completionBody(body, { content: "x".repeat(reply.chars) }, "stop"),
      );
      res.writeHead(
        200,
        reply.chunked
          ? { "content-type": "application/json" }
          : {
              "content-type": "application/json",
              "content-length": String(Buffer.byteLength(text)),
            },
      );
      // Written in pieces, so a client that stops reading early is seen stopping.
      for (let i = 0; i < text.length; i += 65_536) res.write(text.slice(i, i + 65_536));
      res.end();
      return;
    }
  }
}

/** Starts the fake server on 127.0.0.1 with an ephemeral port. */
export async function startFakeOpenAIServer(script: FakeScript): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        return sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const request: RecordedRequest = { index: requests.length, body, headers: req.headers };
      requests.push(request);
      const reply = typeof script === "function" ? script(request) : script[request.index];
      play(reply ?? { kind: "status", status: 500, message: "script exhausted" }, body, res);
    });
  });
  const { port, close } = await listenLoopback(server);
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close,
  };
}
