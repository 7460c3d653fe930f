/**
 * @module dashboard/play-sessions
 * Games played from the Play page: each session is one environment instance in the sandbox (the
 * same one `spade env play` uses), stepped by the person's replies, the hint and the oracle.
 * Sessions are few and short-lived: the oldest is closed when the cap is reached.
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
}

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
  readonly #max: number;
  /** The start in progress: starts run one at a time, so concurrent ones cannot overshoot `max`. */
  #starting: Promise<unknown> = Promise.resolve();

  constructor(max = 8) {
    this.#max = max;
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

  #get(id: string): Session {
    const s = this.#sessions.get(id);
    if (!s)
      throw new SpadeError("E_NOT_FOUND", `no play session ${id}`, {
        nextStep: "press Start to begin a new game",
      });
    return s;
  }

  /**
   * Opens `open()`'s environment, resets it with `seed`, and returns the first observation; the
   * oldest session is closed first when `max` are open. One start runs at a time: the cap is
   * checked before the sandbox opens and filled after, so concurrent starts would pass it together.
   */
  start(open: () => Promise<Env>, seed: number): Promise<PlayView> {
    const started = this.#starting.then(() => this.#start(open, seed));
    this.#starting = started.catch(() => undefined);
    return started;
  }

  async #start(open: () => Promise<Env>, seed: number): Promise<PlayView> {
    while (this.#sessions.size >= this.#max) {
      const [oldest] = this.#sessions.keys();
      await this.close(oldest as string);
    }
    const env = await open();
    try {
      const reset = await env.reset(seed);
      const id = randomUUID();
      const session: Session = { env, seed, rewards: [], over: false };
      this.#sessions.set(id, session);
      return this.#view(id, session, reset.observation);
    } catch (err) {
      await env.close();
      throw err;
    }
  }

  /** Steps the session with the person's reply (`/call NAME {json}` makes a tool call). */
  async reply(id: string, line: string): Promise<PlayView> {
    const s = this.#get(id);
    if (s.over) return this.#view(id, s, "The episode is over: press Start for another.");
    const action = parseReply(line, s.rewards.length);
    if (typeof action === "string") return this.#view(id, s, action);
    return this.#step(id, s, action, "");
  }

  /** Steps the session with the oracle's next action (what `solve()` returns). */
  async oracle(id: string): Promise<PlayView> {
    const s = this.#get(id);
    if (s.over) return this.#view(id, s, "The episode is over: press Start for another.");
    const action = await s.env.solve();
    return this.#step(id, s, action, `oracle: ${JSON.stringify(action)}\n`);
  }

  /** The privileged hint of the current episode. */
  async hint(id: string): Promise<PlayView> {
    const s = this.#get(id);
    return this.#view(id, s, `HINT: ${await s.env.hint()}`);
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

  /** Closes one session's environment. */
  async close(id: string): Promise<void> {
    const s = this.#sessions.get(id);
    this.#sessions.delete(id);
    await s?.env.close();
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.close(id)));
  }
}
