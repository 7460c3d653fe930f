// Opening the server's sessions with injected openers: the slot is reserved before the sandbox
// opens and freed when it fails; the MCP context creates, closes and looks sessions up.
import { describe, expect, it } from "vitest";
import type { Env } from "../env/index.js";
import { SpadeError } from "../errors.js";
import { thrown } from "../../test/assert.js";
import type { CatalogEntry } from "./catalog.js";
import { CapacityError, SessionRegistry } from "./registry.js";
import type { SessionDeps } from "./session.js";
import { ServerSessions } from "./sessions.js";

/** TEST DOUBLE: an entry with no tools (the sessions read only its meta's tools). */
const entry = { name: "t", meta: { tools: [] } } as unknown as CatalogEntry;

/** TEST DOUBLE: an environment that records its resets and closes. */
function fakeEnv(log: string[]): Env {
  return {
    meta: { tools: [] },
    reset: async (seed: number) => {
      log.push(`reset ${seed}`);
      return { observation: "o", info: {} };
    },
    close: async () => void log.push("close"),
  } as unknown as Env;
}

function sessionsWith(open: SessionDeps["open"], maxSessions = 2): ServerSessions {
  let n = 0;
  const deps: SessionDeps = { open, randomSeed: () => 7, newId: () => `s${++n}` };
  return new ServerSessions(new SessionRegistry(maxSessions, null, () => 0), deps, null);
}

describe("ServerSessions.open", () => {
  it("holds the slot while the sandbox opens, so the next one over capacity throws at once", async () => {
    const log: string[] = [];
    const sessions = sessionsWith(async () => fakeEnv(log), 1);
    const { id, opened } = sessions.open(entry, () => {});
    expect([id, sessions.registry.active, sessions.registry.get(id)]).toEqual(["s1", 1, undefined]);
    const refused = thrown(() => sessions.open(entry, () => {}));
    expect(refused).toBeInstanceOf(CapacityError);
    expect((refused as CapacityError).message).toBe(
      "Server at capacity: 1/1 sessions active. Close a session or retry later.",
    );
    const session = await opened;
    expect(sessions.registry.get("s1")).toBe(session);
  });

  it("frees the slot when the sandbox fails, rejecting with the code in the message", async () => {
    const sessions = sessionsWith(async () => {
      throw new SpadeError("E_SANDBOX_THROW", "boom", { nextStep: "fix it" });
    });
    const err = await sessions.open(entry, () => {}).opened.catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      "Environment factory failed: E_SANDBOX_THROW: boom (fix it)",
    );
    expect(sessions.registry.active).toBe(0);
  });

  it("closes a session whose slot was released while it opened", async () => {
    const log: string[] = [];
    const sessions = sessionsWith(async () => fakeEnv(log));
    const { id, opened } = sessions.open(entry, () => {});
    await sessions.registry.release(id);
    const err = await opened.catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      "Environment factory failed: the session was closed while it opened",
    );
    expect([log, sessions.registry.active]).toEqual([["close"], 0]);
  });
});

describe("ServerSessions.mcpContext", () => {
  it("creates reset sessions in the registry, finds and closes them by id", async () => {
    const log: string[] = [];
    const sessions = sessionsWith(async () => fakeEnv(log));
    const ctx = sessions.mcpContext(entry);
    const a = await ctx.create(3);
    const b = await ctx.create(null);
    // Ids come from one source: s2 and s4 are the episodes' ids.
    expect([a.id, b.id, log]).toEqual(["s1", "s3", ["reset 3", "reset 7"]]);
    expect(ctx.lookup("s3")).toBe(b);
    expect([await ctx.close("s1"), await ctx.close("s1"), sessions.registry.active]).toEqual([
      true,
      false,
      1,
    ]);
  });
});
