import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { listenLoopback } from "./loopback.js";

const answering = () => createServer((_req, res) => res.end("ok"));

describe("listenLoopback", () => {
  it("listens on 127.0.0.1 at a free port and answers there", async () => {
    const server = answering();
    const { port, close } = await listenLoopback(server);
    expect(server.address()).toEqual({ address: "127.0.0.1", family: "IPv4", port });
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("ok");
    await close();
    expect(server.listening).toBe(false);
  });

  it("closes with a request still unanswered: its connection is dropped, not waited for", async () => {
    let received: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      received = resolve;
    });
    const server = createServer(() => received()); // never answers
    const { port, close } = await listenLoopback(server);
    const pending = fetch(`http://127.0.0.1:${port}/`).then(
      () => "answered",
      () => "dropped",
    );
    await arrived;
    await close();
    expect(server.listening).toBe(false);
    expect(await pending).toBe("dropped");
  });

  it("rejects with the listen error when the port is taken", async () => {
    const first = await listenLoopback(answering());
    const second = answering();
    await expect(listenLoopback(second, first.port)).rejects.toMatchObject({ code: "EADDRINUSE" });
    expect(second.listening).toBe(false);
    await first.close();
  });
});
