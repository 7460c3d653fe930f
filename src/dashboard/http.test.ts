import { createServer, type IncomingMessage } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { rejected } from "../../test/assert.js";
import { HttpError, readJsonBody, statusOf } from "./http.js";

/** TEST DOUBLE: a request whose body is `chunks`, sent with `contentType`. */
function request(
  chunks: Array<string | Buffer>,
  contentType = "application/json",
): IncomingMessage {
  return Object.assign(Readable.from(chunks), {
    headers: { "content-type": contentType },
  }) as unknown as IncomingMessage;
}

/** The status and message `readJsonBody` fails with. */
async function refusal(req: IncomingMessage): Promise<[number, string]> {
  const err = await rejected(readJsonBody(req));
  if (!(err instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(err)}`);
  return [err.status, err.message];
}

describe("statusOf", () => {
  it("answers by whose fault: a bad request 400 or 404, a store that cannot be read 500, one that may pass 503", () => {
    // [code, as the request's fault, as the store's]
    const table: Array<[string, number, number]> = [
      ["E_NOT_FOUND", 404, 404], // no such run, environment or page; a store gone
      ["E_CONFIG", 400, 500], // a bad parameter; a store of another schema version
      ["E_RUN_LOCKED", 503, 503],
      ["E_CAPACITY", 503, 503],
      ["E_STORE_CORRUPT", 500, 500],
      ["E_IO", 500, 500],
      ["E_DISK_FULL", 500, 500],
      ["E_SANDBOX_THROW", 500, 500], // a Play environment that failed
      ["unexpected", 500, 500],
    ];
    expect(
      table.map(([code]) => [code, statusOf(code, "request"), statusOf(code, "store")]),
    ).toEqual(table);
  });
});

describe("readJsonBody", () => {
  it("reads a JSON object sent in chunks, with a charset on its type", async () => {
    const req = request(
      ['{"seed": 3, ', '"source": "lib:maze"}'],
      "application/json; charset=utf-8",
    );
    expect(await readJsonBody(req)).toEqual({ seed: 3, source: "lib:maze" });
  });

  it("refuses other types with 415, bodies past 64 KiB with 413, and anything but an object with 400", async () => {
    expect(await refusal(request(["{}"], "text/plain"))).toEqual([
      415,
      "send JSON (Content-Type: application/json)",
    ]);
    expect(await refusal(request(["{}"], ""))).toEqual([
      415,
      "send JSON (Content-Type: application/json)",
    ]);
    expect(await refusal(request(["x".repeat(65_536), "y"]))).toEqual([413, "request too large"]);
    for (const text of ["[1]", "null", "3", "{bad", ""])
      expect(await refusal(request([text]))).toEqual([400, "the body must be a JSON object"]);
  });

  it("decodes a UTF-8 character split between two chunks", async () => {
    const body = Buffer.from('{"text": "caf\u00e9 \u2713"}');
    const cut = body.indexOf(0xc3) + 1; // inside the two bytes of "\u00e9"
    const req = request([body.subarray(0, cut), body.subarray(cut)]);
    expect(await readJsonBody(req)).toEqual({ text: "caf\u00e9 \u2713" });
  });

  it("decodes a UTF-8 character split between two writes of a raw request", async () => {
    const body = Buffer.from('{"text": "\u00e9"}');
    const cut = body.indexOf(0xc3) + 1;
    let handled: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => (handled = resolve));
    // The handler runs once the head (and the first half, sent with it) is parsed; the second
    // half is written only then, so it cannot arrive in the same chunk as the first.
    const server = createServer((req, res) => {
      handled();
      readJsonBody(req).then(
        (value) => res.end(JSON.stringify(value)),
        (err: HttpError) => res.end(`${err.status}`),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    const head = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    socket.write(Buffer.concat([Buffer.from(head), body.subarray(0, cut)]));
    await inHandler;
    socket.write(body.subarray(cut));
    let answer = "";
    for await (const data of socket) answer += String(data);
    server.close();
    expect(answer.split("\r\n\r\n")[1]).toBe('{"text":"\u00e9"}');
  });
});
