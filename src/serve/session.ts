/**
 * @module serve/session
 * One served session: its own sandboxed environment instance and episode bookkeeping (seed,
 * episode id, turns, done). Environment failures reject with the environment's coded error and end
 * the episode; the session itself stays usable (the next reset starts afresh).
 */
import type { Env, JsonObject, StepResult } from "../env/index.js";
import { episodeReturn } from "../env/index.js";
import { SpadeError } from "../errors.js";
import { DEFAULT_HINT_TEMPLATE } from "../rollout/index.js";
import type { CatalogEntry } from "./catalog.js";
import { mcpTools, type ObservationPayload, type ResetData, type WireAction } from "./protocol.js";

/** What a session needs from the outside world. */
export interface SessionDeps {
  /** A fresh sandboxed instance of the entry's program. */
  open: (entry: CatalogEntry) => Promise<Env>;
  /** The seed of a reset that names none. */
  randomSeed: () => number;
  /** A new unique id (sessions, episodes). */
  newId: () => string;
}

/** One client's session on one environment. */
export class EnvSession {
  #env: Env;
  #episodeId: string | null = null;
  #seed: number | null = null;
  #stepCount = 0;
  #live = false;
  #done = false;
  #rewards: number[] = [];
  #callSeq = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(
    readonly id: string,
    readonly entry: CatalogEntry,
    env: Env,
    private readonly deps: SessionDeps,
  ) {
    this.#env = env;
  }

  /** Opens the entry's program in a fresh sandbox; rejects with the sandbox's coded error. */
  static async open(id: string, entry: CatalogEntry, deps: SessionDeps): Promise<EnvSession> {
    return new EnvSession(id, entry, await deps.open(entry), deps);
  }

  /** Starts an episode (seed from `data.seed`, else random) and returns the first observation. */
  reset(data: ResetData): Promise<ObservationPayload> {
    return this.#serial(async () => {
      this.#live = false;
      const seed = data.seed ?? this.deps.randomSeed();
      const first = await this.#env.reset(seed);
      let text = first.observation;
      if (data.hint) {
        const hint = await this.#env.hint();
        text = DEFAULT_HINT_TEMPLATE.replace("{observation}", () => text).replace(
          "{hint}",
          () => hint,
        );
      }
      this.#seed = seed;
      this.#episodeId = data.episode_id ?? this.deps.newId();
      this.#stepCount = 0;
      this.#rewards = [];
      this.#done = false;
      this.#live = true;
      const tools =
        this.#env.meta.tools.length > 0 ? { tools: mcpTools(this.#env.meta.tools) } : {};
      return {
        observation: {
          text,
          tool_results: [],
          ...tools,
          info: first.info,
          terminated: false,
          truncated: false,
          step_count: 0,
        },
        reward: null,
        done: false,
      };
    });
  }

  /**
   * Applies one action. Rejects with E_ENV_CONTRACT before a reset or after the episode ended, and
   * with the environment's coded error when the program fails (which ends the episode).
   */
  step(wire: WireAction): Promise<ObservationPayload> {
    return this.#serial(async () => {
      if (wire.kind === "list_tools") {
        return {
          observation: {
            text: "",
            tool_results: [],
            tools: mcpTools(this.#env.meta.tools),
            info: {},
            terminated: false,
            truncated: false,
            step_count: this.#stepCount,
          },
          reward: null,
          done: this.#done,
        };
      }
      if (!this.#live) {
        throw new SpadeError(
          "E_ENV_CONTRACT",
          this.#done ? "the episode is over" : "step before reset: no episode is running",
          {
            nextStep: "send a reset message to start an episode",
          },
        );
      }
      let result: StepResult;
      try {
        result = await this.#env.step(wire.action);
      } catch (err) {
        this.#live = false;
        throw err;
      }
      this.#stepCount++;
      this.#rewards.push(result.reward);
      const capped =
        !result.terminated && !result.truncated && this.#stepCount >= this.#env.meta.maxTurns;
      const done = result.terminated || result.truncated || capped;
      if (done) {
        this.#done = true;
        this.#live = false;
      }
      const toolResults = result.toolResults ?? [];
      const call = wire.toolName !== null ? wire.action.toolCalls[0] : undefined;
      const toolFields = call
        ? {
            tool_name: call.name,
            result: toolResults.find((r) => r.id === call.id)?.content ?? null,
          }
        : {};
      return {
        observation: {
          text: result.observation,
          tool_results: toolResults.map((r) => ({ id: r.id, content: r.content })),
          ...toolFields,
          info: result.info,
          terminated: result.terminated,
          truncated: result.truncated || capped,
          step_count: this.#stepCount,
        },
        reward: result.reward,
        done,
      };
    });
  }

  /** The session's state: OpenEnv's `State` (episode_id, step_count) plus SPADE's fields. */
  state(): JsonObject {
    return {
      episode_id: this.#episodeId,
      step_count: this.#stepCount,
      env: this.entry.name,
      seed: this.#seed,
      done: this.#done,
      episode_return: episodeReturn(this.#rewards),
    };
  }

  /** A fresh id for a tool call that came without one. */
  nextCallId(): string {
    return `call_${++this.#callSeq}`;
  }

  /** Releases the sandboxed instance; later calls reject with E_SANDBOX_DISPOSED. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#env.close();
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      if (this.#closed)
        throw new SpadeError("E_SANDBOX_DISPOSED", "the session was closed", {
          nextStep: "open a new session",
        });
      return task();
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
