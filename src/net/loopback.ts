/**
 * @module net/loopback
 * Listening on 127.0.0.1, and closing with every connection dropped: `server.close()` alone
 * waits for the requests still in flight (a long poll, a stalled client) to finish.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A server listening on the loopback interface. */
export interface LoopbackServer {
  /** The port it listens on. */
  port: number;
  /** Drops every connection (answered or not), then resolves once the server has closed. */
  close(): Promise<void>;
}

/** Starts `server` listening on 127.0.0.1 at `port` (0: a free one); rejects with the listen error. */
export function listenLoopback(server: Server, port = 0): Promise<LoopbackServer> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((closed) => {
            server.closeAllConnections();
            server.close(() => closed());
          }),
      });
    });
  });
}
