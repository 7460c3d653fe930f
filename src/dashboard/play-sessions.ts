/**
 * @module dashboard/play-sessions
 * Games played from the Play page: each session is one environment instance in the sandbox (the
 * same one `spade env play` uses), stepped by the person's replies, the hint and the oracle.
 * Games idle past a timeout are closed; a start past the cap takes the place of a game idle for a
 * while, never of one in use, and is refused (E_CAPACITY) when every game is in use.
 */
import { randomUUID } from "node:crypto";
import {
  episodeReturn,
  isSuccess,
  makeAction,
  type Action,
  type Env,
  type ToolResult,
} from "../env/index.js";
import { SpadeError } from "../errors.js";

/** What the page shows after each move. */
export interface PlayView {
  session: string;
  name: string;
  seed: number;
  maxTurns: number;
  /** Text to append to the log (observation, tool results, hint or oracle move). */
  say: string;
  turns: number;
  return: number;
  over: boolean;
  success: boolean;
}

interface Session {
  env: Env;
  seed: number;
  rewards: number[];
  over: boolean;
  /** When the game was last started, moved or asked (its call's start and end). */
  lastActiveMs: number;
  /** Calls queued or running: a game with one is in use and is never closed under it. */
  busy: number;
  /** The session's calls, one after another (a sandboxed instance steps one call at a time). */
  queue: Promise<unknown>;
}

/** How many games a dashboard keeps open, and for how long. */
export interface PlayLimits {
  /** Most games open at once. Default 8. */
  maxSessions: number;
  /** A game idle longer than this (ms) is closed and its sandbox released; null: never. Default 30 minutes. */
  idleTimeoutMs: number | null;
  /**
   * A start past `maxSessions` takes the place of the least recently used game idle at least this
   * long (ms); when none is, it is refused. Default 5 minutes (never more than `idleTimeoutMs`).
   */
  replaceIdleMs: number;
}

/** The limits `spade dashboard` uses unless told otherwise (see docs/dashboard.md). */
export const DEFAULT_PLAY_LIMITS: PlayLimits = {
  maxSessions: 8,
  idleTimeoutMs: 30 * 60_000,
  replaceIdleMs: 5 * 60_000,
};

/** E_CAPACITY from `start`: every game is in use; `retryAfterS` is when one may be replaced. */
export class PlayCapacityError extends SpadeError {
  constructor(
    readonly retryAfterS: number,
    limits: PlayLimits,
  ) {
    super(
      "E_CAPACITY",
      `all ${limits.maxSessions} Play games are in use (each was played in the last ${duration(limits.replaceIdleMs)})`,
      {
        nextStep: `press Start again in ${retryAfterS} s, when the game idle the longest may be replaced, or finish a game in another tab`,
      },
    );
    this.name = "PlayCapacityError";
  }
}

/** `ms` for a message: whole minutes as minutes, else seconds. */
function duration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0)
    return ms === 60_000 ? "1 minute" : `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} s`;
}

/** Why recently closed games were closed, kept for this many, so a late move is told why. */
const REMEMBERED_CLOSES = 256;

/** Parses `/call NAME {json}` into a tool call, or a reply into a plain action; a string is a usage message. */
export function parseReply(line: string, turn: number): Action | string {
  if (!line.startsWith("/call")) return makeAction(line);
  const m = /^\/call\s+([A-Za-z0-9_.-]+)\s*(.*)$/s.exec(line);
  if (!m) return "usage: /call NAME {json}";
  let args: unknown;
  try {
    args = m[2]?.trim() ? JSON.parse(m[2]) : {};
  } catch {
    return "the arguments are not JSON";
  }
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return "the arguments must be a JSON object";
  return makeAction("", [
    {
      id: `call_${turn}`,
      name: m[1] as string,
      arguments: args as Action["toolCalls"][number]["arguments"],
    },
  ]);
}

/** The live play sessions of one dashboard. */
export class PlaySessions {
  readonly #sessions = new Map<string, Session>();
  /** Why each recently closed session was closed (oldest first). */
  readonly #closed = new Map<string, string>();
  readonly #limits: PlayLimits;
  readonly #now: () => number;
  /** The start in progress: starts run one at a time, so concurrent ones cannot overshoot `max`. */
  #starting: Promise<unknown> = Promise.resolve();

  /** Sessions within `limits` (defaults: DEFAULT_PLAY_LIMITS); `now` is the clock in ms. */
  constructor(limits: Partial<PlayLimits> = {}, now: () => number = Date.now) {
    const all = { ...DEFAULT_PLAY_LIMITS, ...limits };
    this.#limits = {
      ...all,
      replaceIdleMs: Math.min(all.replaceIdleMs, all.idleTimeoutMs ?? Number.POSITIVE_INFINITY),
    };
    this.#now = now;
  }

  #view(id: string, s: Session, say: string): PlayView {
    const ret = episodeReturn(s.rewards);
    return {
      session: id,
      name: s.env.meta.name,
      seed: s.seed,
      maxTurns: s.env.meta.maxTurns,
      say,
      turns: s.rewards.length,
      return: ret,
      over: s.over,
      success: s.over && isSuccess(ret),
    };
  }

  /** Whether `s` has been idle past the timeout (a game in use never is). */
  #expired(s: Session, now: number): boolean {
    const timeout = this.#limits.idleTimeoutMs;
    return timeout !== null && s.busy === 0 && now - s.lastActiveMs > timeout;
  }

  /** The open session `id`; E_NOT_FOUND saying why when it is closed (one idle past the timeout is closed now). */
  #get(id: string): Session {
    const s = this.#sessions.get(id);
    if (s && this.#expired(s, this.#now())) void this.close(id, this.#idleReason());
    else if (s) return s;
    const why = this.#closed.get(id);
    throw new SpadeError(
      "E_NOT_FOUND",
      why ? `play session ${id} was closed: ${why}` : `no play session ${id}`,
      { nextStep: "press Start to begin a new game" },
    );
  }

  #idleReason(): string {
    return `it was idle for more than ${duration(this.#limits.idleTimeoutMs ?? 0)}`;
  }

  /** Runs `fn` on session `id` after its earlier calls, marking it in use meanwhile. */
  async #use<T>(id: string, fn: (s: Session) => Promise<T>): Promise<T> {
    const s = this.#get(id);
    s.busy++;
    s.lastActiveMs = this.#now();
    const run = s.queue.then(() => fn(s));
    s.queue = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      s.busy--;
      s.lastActiveMs = this.#now();
    }
  }

  /**
   * Opens `open()`'s environment, resets it with `seed`, and returns the first observation.
   * `replace` (the page's previous game) is closed first. Past `maxSessions`, the least recently
   * used game idle at least `replaceIdleMs` is closed to make room; when none is, PlayCapacityError.
   * One start runs at a time: the cap is checked before the sandbox opens and filled after, so
   * concurrent starts would pass it together.
   */
  start(open: () => Promise<Env>, seed: number, replace?: string): Promise<PlayView> {
    const started = this.#starting.then(() => this.#start(open, seed, replace));
    this.#starting = started.catch(() => undefined);
    return started;
  }

  async #start(open: () => Promise<Env>, seed: number, replace?: string): Promise<PlayView> {
    if (replace !== undefined && this.#sessions.has(replace))
      await this.close(replace, "its page started another game in its place");
    await this.reapIdle();
    if (this.#sessions.size >= this.#limits.maxSessions) await this.#makeRoom();
    const env = await open();
    try {
      const reset = await env.reset(seed);
      const id = randomUUID();
      const session: Session = {
        env,
        seed,
        rewards: [],
        over: false,
        lastActiveMs: this.#now(),
        busy: 0,
        queue: Promise.resolve(),
      };
      this.#sessions.set(id, session);
      return this.#view(id, session, reset.observation);
    } catch (err) {
      await env.close();
      throw err;
    }
  }

  /** Closes the least recently used game idle at least `replaceIdleMs`; PlayCapacityError when none is. */
  async #makeRoom(): Promise<void> {
    const now = this.#now();
    const { replaceIdleMs, maxSessions } = this.#limits;
    let lru: [string, Session] | undefined;
    for (const entry of this.#sessions)
      if (entry[1].busy === 0 && (!lru || entry[1].lastActiveMs < lru[1].lastActiveMs)) lru = entry;
    if (!lru || now - lru[1].lastActiveMs < replaceIdleMs) {
      const waitMs = lru ? lru[1].lastActiveMs + replaceIdleMs - now : replaceIdleMs;
      throw new PlayCapacityError(Math.max(1, Math.ceil(waitMs / 1000)), this.#limits);
    }
    await this.close(
      lru[0],
      `it was idle for ${duration(replaceIdleMs)} or more when a new game needed its place (at most ${maxSessions} are open at once)`,
    );
  }

  /** Steps the session with the person's reply (`/call NAME {json}` makes a tool call). */
  reply(id: string, line: string): Promise<PlayView> {
    return this.#use(id, async (s) => {
      if (s.over) return this.#view(id, s, "The episode is over: press Start for another.");
      const action = parseReply(line, s.rewards.length);
      if (typeof action === "string") return this.#view(id, s, action);
      return this.#step(id, s, action, "");
    });
  }

  /** Steps the session with the oracle's next action (what `solve()` returns). */
  oracle(id: string): Promise<PlayView> {
    return this.#use(id, async (s) => {
      if (s.over) return this.#view(id, s, "The episode is over: press Start for another.");
      const action = await s.env.solve();
      return this.#step(id, s, action, `oracle: ${JSON.stringify(action)}\n`);
    });
  }

  /** The privileged hint of the current episode. */
  hint(id: string): Promise<PlayView> {
    return this.#use(id, async (s) => this.#view(id, s, `HINT: ${await s.env.hint()}`));
  }

  async #step(id: string, s: Session, action: Action, before: string): Promise<PlayView> {
    const result = await s.env.step(action);
    s.rewards.push(result.reward);
    const tools = (result.toolResults ?? [])
      .map((r: ToolResult) => `[${r.id}] ${r.content}\n`)
      .join("");
    if (result.terminated || result.truncated || s.rewards.length >= s.env.meta.maxTurns)
      s.over = true;
    return this.#view(
      id,
      s,
      `${before}${tools}${result.observation}\n(reward ${result.reward}, return ${episodeReturn(s.rewards)})`,
    );
  }

  /** Closes every game idle past the timeout (releasing its sandbox); returns their ids. */
  async reapIdle(): Promise<string[]> {
    const now = this.#now();
    const idle = [...this.#sessions].filter(([, s]) => this.#expired(s, now)).map(([id]) => id);
    await Promise.all(idle.map((id) => this.close(id, this.#idleReason())));
    return idle;
  }

  /**
   * Reaps idle games every quarter of the timeout (between 1 s and 1 minute) until the returned
   * stop is called; without a timeout nothing runs.
   */
  startReaper(): () => void {
    const timeout = this.#limits.idleTimeoutMs;
    if (timeout === null) return () => {};
    const timer = setInterval(
      () => void this.reapIdle(),
      Math.min(60_000, Math.max(1000, timeout / 4)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Closes session `id` once its running calls end, remembering `why` for a later call; false
   * when it was not open. A sandbox that fails to close is let go: it must not fail a new start.
   */
  async close(id: string, why = "its page closed it"): Promise<boolean> {
    const s = this.#sessions.get(id);
    if (!s) return false;
    this.#sessions.delete(id);
    this.#closed.set(id, why);
    for (const old of this.#closed.keys()) {
      if (this.#closed.size <= REMEMBERED_CLOSES) break;
      this.#closed.delete(old);
    }
    await s.queue;
    await s.env.close().catch(() => undefined);
    return true;
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.close(id)));
  }
}
