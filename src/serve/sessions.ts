/**
 * @module serve/sessions
 * The server's sessions wired together: a slot reserved in the registry before each sandbox opens
 * (so capacity holds under concurrent connects), the MCP handler's view of them, the idle reaper.
 */
import type { CatalogEntry } from "./catalog.js";
import type { McpContext } from "./mcp.js";
import { errorText, mcpTools } from "./protocol.js";
import type { SessionRegistry } from "./registry.js";
import { EnvSession, type SessionDeps } from "./session.js";

/** A session whose sandbox did not open (or was closed while it opened). */
class FactoryError extends Error {
  constructor(override readonly cause: unknown) {
    super(`Environment factory failed: ${errorText(cause).message}`);
  }
}

/** The sessions of one server: how they open, where they are kept, how MCP reaches them. */
export class ServerSessions {
  constructor(
    readonly registry: SessionRegistry,
    private readonly deps: SessionDeps,
    /** `--session-timeout` in seconds; null never. */
    readonly timeoutS: number | null,
  ) {}

  /**
   * Reserves a slot (throws CapacityError synchronously), then opens the sandbox; `opened` rejects
   * with a FactoryError, the slot freed. `onReap` runs when the reaper closes the session.
   */
  open(entry: CatalogEntry, onReap: () => void): { id: string; opened: Promise<EnvSession> } {
    const id = this.deps.newId();
    this.registry.reserve(id, onReap);
    const opened = EnvSession.open(id, entry, this.deps).then(
      async (session) => {
        if (!this.registry.fill(id, session)) {
          await session.close();
          throw new FactoryError(new Error("the session was closed while it opened"));
        }
        return session;
      },
      async (err) => {
        await this.registry.release(id);
        throw new FactoryError(err);
      },
    );
    return { id, opened };
  }

  /** A session outside the registry and its capacity (HTTP's stateless `/reset`); the caller closes it. */
  openDetached(entry: CatalogEntry): Promise<EnvSession> {
    return EnvSession.open(this.deps.newId(), entry, this.deps);
  }

  /** What the MCP handler may do on `entry`, on behalf of the connection holding `bound`, if any. */
  mcpContext(entry: CatalogEntry, bound?: EnvSession): McpContext {
    const registry = this.registry;
    return {
      tools: mcpTools(entry.meta.tools),
      bound,
      lookup: (id) => registry.get(id),
      create: async (seed) => {
        const { opened } = this.open(entry, () => {});
        const session = await opened;
        await session.reset({ seed });
        return session;
      },
      close: async (id) => {
        if (!registry.get(id)) return false;
        await registry.release(id);
        return true;
      },
      touch: (id) => registry.touch(id),
    };
  }

  /**
   * Starts reaping sessions idle past the timeout, looking every timeout/4 (between 50 ms and 5 s);
   * returns the stop. Without a timeout nothing runs.
   */
  startReaper(): () => void {
    const timeoutS = this.timeoutS;
    if (timeoutS === null) return () => {};
    const intervalMs = Math.min(5000, Math.max(50, (timeoutS * 1000) / 4));
    const reaper = setInterval(() => void this.registry.reapIdle(), intervalMs);
    reaper.unref();
    return () => clearInterval(reaper);
  }
}
