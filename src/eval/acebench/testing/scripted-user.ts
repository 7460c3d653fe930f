/**
 * @module eval/acebench/testing/scripted-user
 * TEST DOUBLE: a simulated user that answers from a fixed script, for tests only.
 */
import type { DialogueTurn, UserSimulator } from "../user.js";

/** TEST DOUBLE: replies with `lines` in order (then "finish conversation"), recording each history it saw. */
export class ScriptedUser implements UserSimulator {
  /** The history passed to each `reply` call, copied. */
  readonly seen: DialogueTurn[][] = [];
  private next = 0;

  constructor(private readonly lines: readonly string[]) {}

  async reply(history: readonly DialogueTurn[]): Promise<string> {
    this.seen.push(history.map((t) => ({ ...t })));
    return this.lines[this.next++] ?? "finish conversation";
  }
}
