/**
 * @module test/fakes/selfplay-server
 * TEST DOUBLE. An OpenAI-compatible server that plays both roles of a scripted self-play run:
 * - designer requests (the designer's system prompt) are answered with the program scripted for
 *   their (step, slot, attempt), recognised by the request's `seed`, which the loop derives from
 *   that position (`seedOf(runSeed, "design", step, slot, attempt)`);
 * - agent requests are answered `\boxed{X}` when any user message says "The answer is X" (in the
 *   observation or in the hint), else `\boxed{nothing}`.
 * So an environment that shows its answer only in the hint is solved only when hinted.
 */
import {
  GAME_SYSTEM_PROMPT,
  PYTHON_GAME_SYSTEM_PROMPT,
  PYTHON_TOOL_USE_SYSTEM_PROMPT,
  TOOL_USE_SYSTEM_PROMPT,
} from "../../src/designer/prompt-text.js";
import { seedOf } from "../../src/loop/keys.js";
import { startFakeOpenAIServer, type FakeOpenAIServer, type FakeReply } from "./openai-server.js";

/** The designer's reply for one (step, slot, attempt): a program (fenced) or any text. */
export interface ScriptedDesign {
  step: number;
  slot: number;
  attempt: number;
  completion: string;
}

/** Options of the self-play double. */
export interface SelfPlayServerOptions {
  runSeed: number;
  designs: readonly ScriptedDesign[];
  /** Delay of every designer answer (to kill a run while it designs); read at each request, so tests may change it. */
  designDelayMs?: number;
  /** Delay of every agent answer (to kill a run while it plays); read at each request. */
  agentDelayMs?: number;
  /** While true, every request is answered HTTP 503 (a server that is down); read at each request. */
  down?: boolean;
  /** Replaces the agent double's answer for a conversation when it returns a reply (null: the default answer). */
  agentReply?: (messages: ReadonlyArray<{ role: string; content: unknown }>) => FakeReply | null;
}

/** The agent double's answer for a conversation. */
export function agentAnswer(messages: ReadonlyArray<{ role: string; content: unknown }>): string {
  for (const m of messages) {
    if (m.role !== "user" || typeof m.content !== "string") continue;
    const found = /The answer is (\w+)/.exec(m.content);
    if (found) return `I read it: \\boxed{${found[1]}}`;
  }
  return "No idea. \\boxed{nothing}";
}

/** The designer's system messages: games and tool use, in JavaScript and in Python. */
const DESIGNER_SYSTEM_PROMPTS = new Set<unknown>([
  GAME_SYSTEM_PROMPT,
  PYTHON_GAME_SYSTEM_PROMPT,
  TOOL_USE_SYSTEM_PROMPT,
  PYTHON_TOOL_USE_SYSTEM_PROMPT,
]);

/** Starts the double on 127.0.0.1. Unscripted designer requests get HTTP 500. */
export function startSelfPlayServer(options: SelfPlayServerOptions): Promise<FakeOpenAIServer> {
  const bySeed = new Map(
    options.designs.map((d) => [
      seedOf(options.runSeed, "design", d.step, d.slot, d.attempt),
      d.completion,
    ]),
  );
  const delayed = (reply: FakeReply, ms: number | undefined): FakeReply =>
    ms ? { kind: "slow", delayMs: ms, reply } : reply;
  return startFakeOpenAIServer((request) => {
    if (options.down) return { kind: "status", status: 503, message: "the double is down" };
    const messages = request.body.messages as Array<{ role: string; content: unknown }>;
    if (messages[0]?.role === "system" && DESIGNER_SYSTEM_PROMPTS.has(messages[0].content)) {
      const completion = bySeed.get(request.body.seed);
      if (completion === undefined)
        return {
          kind: "status",
          status: 500,
          message: `no scripted design for seed ${request.body.seed}`,
        };
      return delayed({ kind: "text", content: completion }, options.designDelayMs);
    }
    return delayed(
      options.agentReply?.(messages) ?? { kind: "text", content: agentAnswer(messages) },
      options.agentDelayMs,
    );
  });
}
