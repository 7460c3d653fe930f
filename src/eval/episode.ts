/**
 * @module eval/episode
 * The base of eval's single-turn environments: the one-step episode's lifecycle (reset, one
 * graded step, close) with its contract errors, the graded step's result, and hints clipped to
 * the contract's length. A subclass says what a reset shows and how an action is graded.
 */
import {
  type Action,
  type Env,
  type EnvMeta,
  type JsonObject,
  MAX_HINT_CHARS,
  type ResetResult,
  type StepResult,
} from "../env/index.js";
import { SpadeError } from "../errors.js";

/** How a single-turn environment graded its one action. */
export interface Graded {
  correct: boolean;
  /** The step's `info`. */
  info: JsonObject;
}

/**
 * An environment whose episode is one graded step: `reset` may start a new episode at any time
 * until `close`; `step` is allowed once per episode and ends it with reward 1 if the action is
 * right, else 0. Misuse throws `E_ENV_CONTRACT` naming the environment's `label`.
 */
export abstract class OneStepEnv implements Env {
  readonly meta: EnvMeta;
  private state: "new" | "ready" | "done" | "closed" = "new";

  constructor(
    /** Names the environment in contract errors (an item id or the environment's name). */
    protected readonly label: string,
    about: Pick<EnvMeta, "name" | "skill" | "description"> & { maxTurns?: number },
  ) {
    const { name, skill, description, maxTurns = 1 } = about;
    this.meta = { name, skill, description, maxTurns, tools: [] };
  }

  /** What the episode of `seed` shows. */
  protected abstract start(seed: number): Promise<ResetResult>;

  /** Grades the episode's one action. */
  protected abstract grade(action: Action): Promise<Graded>;

  abstract hint(): Promise<string>;

  abstract solve(): Promise<Action>;

  /** Throws `E_ENV_CONTRACT` once the environment is closed. */
  protected ensureOpen(): void {
    if (this.state === "closed")
      throw new SpadeError("E_ENV_CONTRACT", `${this.label}: environment used after close()`);
  }

  async reset(seed: number): Promise<ResetResult> {
    this.ensureOpen();
    const shown = await this.start(seed);
    this.state = "ready";
    return shown;
  }

  /** Grades the one action. Throws `E_ENV_CONTRACT` before `reset` or after the episode ended. */
  async step(action: Action): Promise<StepResult> {
    this.ensureOpen();
    if (this.state !== "ready") {
      const when = this.state === "new" ? "before reset()" : "after the episode ended";
      throw new SpadeError("E_ENV_CONTRACT", `${this.label}: step() ${when}`);
    }
    this.state = "done";
    const { correct, info } = await this.grade(action);
    return {
      observation: correct ? "Correct." : "Incorrect.",
      reward: correct ? 1 : 0,
      terminated: true,
      truncated: false,
      info,
    };
  }

  async close(): Promise<void> {
    this.state = "closed";
  }
}

/** `text` within the contract's hint length (`MAX_HINT_CHARS`), cut with `...` if longer. */
export function clipHint(text: string): string {
  return text.length <= MAX_HINT_CHARS ? text : `${text.slice(0, MAX_HINT_CHARS - 3)}...`;
}
