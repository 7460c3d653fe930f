/**
 * @module serve/registry
 * The server's live sessions across all environments: the `--max-sessions` capacity (a slot is
 * reserved before the sandbox is opened, so concurrent connects cannot overshoot it), activity
 * times, and which sessions have been idle past `--session-timeout`.
 */
import type { EnvSession } from "./session.js";

/** Thrown by `reserve` when every slot is taken. */
export class CapacityError extends Error {
  constructor(
    readonly activeSessions: number,
    readonly maxSessions: number,
  ) {
    super(
      `Server at capacity: ${activeSessions}/${maxSessions} sessions active. Close a session or retry later.`,
    );
    this.name = "CapacityError";
  }
}

interface Slot {
  session: EnvSession | null;
  lastActivityMs: number;
  /** Called when the reaper ends this session (closes the socket that holds it, if any). */
  onReap: () => void;
}

/** Live sessions and their slots. `now` is injected (milliseconds). */
export class SessionRegistry {
  #slots = new Map<string, Slot>();

  constructor(
    readonly maxSessions: number,
    readonly idleTimeoutMs: number | null,
    private readonly now: () => number,
  ) {}

  /** Sessions holding a slot (opening or open). */
  get active(): number {
    return this.#slots.size;
  }

  /** Reserves a slot under `id`; throws CapacityError when all are taken. */
  reserve(id: string, onReap: () => void = () => {}): void {
    if (this.#slots.size >= this.maxSessions)
      throw new CapacityError(this.#slots.size, this.maxSessions);
    this.#slots.set(id, { session: null, lastActivityMs: this.now(), onReap });
  }

  /** Puts the opened session into its reserved slot; false when the slot was released meanwhile. */
  fill(id: string, session: EnvSession): boolean {
    const slot = this.#slots.get(id);
    if (!slot) return false;
    slot.session = session;
    slot.lastActivityMs = this.now();
    return true;
  }

  /** The open session under `id`, or undefined. */
  get(id: string): EnvSession | undefined {
    return this.#slots.get(id)?.session ?? undefined;
  }

  /** Marks the session as active now. */
  touch(id: string): void {
    const slot = this.#slots.get(id);
    if (slot) slot.lastActivityMs = this.now();
  }

  /** Frees the slot and closes its session (if one was opened). */
  async release(id: string): Promise<void> {
    const slot = this.#slots.get(id);
    if (!slot) return;
    this.#slots.delete(id);
    await slot.session?.close().catch(() => undefined);
  }

  /** Ends every session idle for longer than the timeout; returns their ids. */
  async reapIdle(): Promise<string[]> {
    if (this.idleTimeoutMs === null) return [];
    const now = this.now();
    const stale = [...this.#slots.entries()]
      .filter(([, s]) => s.session !== null && now - s.lastActivityMs > this.idleTimeoutMs!)
      .map(([id]) => id);
    for (const id of stale) {
      const slot = this.#slots.get(id);
      await this.release(id);
      slot?.onReap();
    }
    return stale;
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#slots.keys()].map((id) => this.release(id)));
  }
}
