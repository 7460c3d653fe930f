/**
 * @module env/types
 * The environment contract: what an agent sends (`Action`), what an environment answers
 * (`ResetResult`, `StepResult`), how it describes itself (`EnvMeta`, `ToolSpec`) and the `Env`
 * interface that sandboxed programs and native TypeScript environments both implement.
 * This file imports nothing from the rest of SPADE.
 */

/** A JSON value: the only kind of value that crosses the sandbox boundary. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** One tool call made by the agent. `arguments` is the parsed object, nested values kept. */
export interface ToolCall {
  /** Call id; tool results answer it. Generated when the model gave none. */
  id: string;
  /** Function name. */
  name: string;
  /** Parsed arguments. */
  arguments: JsonObject;
}

/** What the agent does in one turn. */
export interface Action {
  /** The raw assistant text. */
  text: string;
  /** The extracted final answer (`\boxed{...}` or `<answer>...</answer>`), else null. */
  answer: string | null;
  /** Parsed tool calls, in order. */
  toolCalls: ToolCall[];
}

/** The answer to one tool call, sent back to the agent as a `tool` message. */
export interface ToolResult {
  /** The id of the call it answers. */
  id: string;
  /** The result text. */
  content: string;
}

/** What `reset(seed)` returns. */
export interface ResetResult {
  /** The first observation shown to the agent. */
  observation: string;
  /** Free-form JSON diagnostics; never shown to the agent. */
  info: JsonObject;
}

/** What `step(action)` returns. */
export interface StepResult {
  /** The next observation shown to the agent. */
  observation: string;
  /** Reward of this step, finite and in [-1, 1]. */
  reward: number;
  /** The episode ended by the environment's rules (success or failure). */
  terminated: boolean;
  /** The episode was cut short by the environment (not by the runner's turn limit). */
  truncated: boolean;
  /** Free-form JSON diagnostics; never shown to the agent. */
  info: JsonObject;
  /** Results of this turn's tool calls, sent back as `tool` messages with their ids. */
  toolResults?: ToolResult[];
}

/** A JSON Schema object (the subset tool parameters use). */
export type JsonSchema = JsonObject;

/** An OpenAI function-tool schema. */
export interface ToolSpec {
  type: "function";
  function: {
    /** Function name: letters, digits, `_` and `-`. */
    name: string;
    /** What the function does, shown to the agent. */
    description: string;
    /** JSON Schema of the arguments object. */
    parameters: JsonSchema;
  };
}

/** How an environment describes itself (`static meta` in a program). */
export interface EnvMeta {
  /** Lowercase-kebab name, e.g. `vault-cracker`. */
  name: string;
  /** The skill it trains, e.g. `Logical Deduction`. */
  skill: string;
  /** One or two sentences for people and for the designer's memory. */
  description: string;
  /** The runner truncates the episode after this many agent turns. */
  maxTurns: number;
  /** Function tools for tool-use environments; empty otherwise. */
  tools: ToolSpec[];
}

/** What `solve()` returns: the oracle's next action; missing fields are filled by the host. */
export interface OracleAction {
  text?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments: JsonObject }>;
}

/** One oracle turn: the action `solve()` gave and what `step()` answered to it. */
export interface OracleTurn {
  action: Action;
  result: StepResult;
}

/**
 * What `Env.solveAndStep` answers once `solve()` has: the turn, or the action with the error the
 * step failed with (so a caller tells a failed step from a failed solve).
 */
export type OracleTurnOutcome = OracleTurn | { action: Action; stepError: unknown };

/**
 * A stateful multi-turn environment. Methods may reject with a coded `SpadeError`
 * (sandbox timeouts, contract violations); callers record such failures as data.
 */
export interface Env {
  /** The environment's self-description. */
  readonly meta: EnvMeta;
  /** Starts an episode; the seed alone determines it, whatever happened before. */
  reset(seed: number): Promise<ResetResult>;
  /** Applies one agent action. */
  step(action: Action): Promise<StepResult>;
  /** A privileged hint for the current episode (non-empty, at most 2,000 characters). */
  hint(): Promise<string>;
  /** The oracle's next action toward success from the current state. */
  solve(): Promise<Action>;
  /**
   * Optional: `solve()` then `step()` with its action, as one call: the same two calls in the same
   * order, where the environment can do them with fewer round trips (a sandboxed program: one).
   * Rejects as `solve()` would; a step that failed resolves with its error (`stepError`).
   */
  solveAndStep?(): Promise<OracleTurnOutcome>;
  /** Releases resources; the environment is unusable afterwards. */
  close(): Promise<void>;
}
