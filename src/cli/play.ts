/**
 * @module cli/play
 * `spade env play`: a person plays an environment in the terminal. Plain lines are the agent's
 * text; slash commands make tool calls, show the hint or the oracle's move, reset or quit.
 */
import { createInterface } from "node:readline";
import { describeError } from "../errors.js";
import { episodeReturn, isSuccess, makeAction, type Action, type Env } from "../env/index.js";
import { visibleText } from "./guest-text.js";

const HELP = `Type your reply (e.g. \\boxed{42}) and press Enter. Commands:
  /call NAME {json}   call a tool with JSON arguments
  /tools              list the tools
  /hint               show the privileged hint
  /solve              show the oracle's next action
  /reset [SEED]       start a new episode (next seed by default)
  /quit               leave`;

function parseCall(line: string, turn: number): Action | string {
  const m = /^\/call\s+([A-Za-z0-9_-]+)\s*(.*)$/s.exec(line);
  if (!m) return "usage: /call NAME {json}";
  let args: unknown = {};
  try {
    args = m[2]?.trim() ? JSON.parse(m[2]) : {};
  } catch (err) {
    return `arguments are not JSON: ${describeError(err)}`;
  }
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return "arguments must be a JSON object";
  return {
    text: "",
    answer: null,
    toolCalls: [
      {
        id: `call_${turn}`,
        name: m[1] as string,
        arguments: args as Action["toolCalls"][number]["arguments"],
      },
    ],
  };
}

/** Runs the interactive loop until the user quits or input ends. */
export async function playInteractive(env: Env, firstSeed: number): Promise<void> {
  // Everything printed here may hold the environment's text: control characters are escaped.
  const say = (text: string) => process.stdout.write(`${visibleText(text)}\n`);
  let seed = firstSeed;
  let rewards: number[] = [];
  let over = false;
  const start = async () => {
    rewards = [];
    over = false;
    const reset = await env.reset(seed);
    say(
      `\n=== ${env.meta.name} (seed ${seed}, up to ${env.meta.maxTurns} turns) ===\n${reset.observation}`,
    );
  };

  /** Handles one input line; false means quit. */
  const handle = async (line: string): Promise<boolean> => {
    if (line === "/quit") return false;
    if (line === "/help") say(HELP);
    else if (line === "/tools")
      for (const t of env.meta.tools)
        say(
          `${t.function.name}: ${t.function.description}\n  ${JSON.stringify(t.function.parameters)}`,
        );
    else if (line === "/hint") say(`HINT: ${await env.hint()}`);
    else if (line === "/solve") say(`oracle: ${JSON.stringify(await env.solve())}`);
    else if (line.startsWith("/reset")) {
      const arg = line.slice(6).trim();
      seed = arg ? Number(arg) : seed + 1;
      await start();
    } else if (over) say("The episode is over: /reset or /quit.");
    else {
      const action = line.startsWith("/call") ? parseCall(line, rewards.length) : makeAction(line);
      if (typeof action === "string") {
        say(action);
        return true;
      }
      const result = await env.step(action);
      rewards.push(result.reward);
      for (const r of result.toolResults ?? []) say(`[${r.id}] ${r.content}`);
      say(`${result.observation}\n(reward ${result.reward}, return ${episodeReturn(rewards)})`);
      if (result.terminated || result.truncated || rewards.length >= env.meta.maxTurns) {
        over = true;
        const ret = episodeReturn(rewards);
        say(
          `=== episode over: return ${ret}, ${isSuccess(ret) ? "SUCCESS" : "no success"}. /reset for another, /quit to leave.`,
        );
      }
    }
    return true;
  };

  // Iterating (rather than `question`) keeps lines that arrive together through a pipe.
  const rl = createInterface({ input: process.stdin });
  const lines = rl[Symbol.asyncIterator](); // created now, so it buffers lines read during start()
  say(`${env.meta.description}\n${HELP}`);
  try {
    await start();
    process.stdout.write("> ");
    for await (const raw of lines) {
      try {
        if (!(await handle(raw.trim()))) break;
      } catch (err) {
        say(`environment error: ${describeError(err)} (the episode is reset)`);
        await start().catch((e: unknown) => say(`reset failed: ${describeError(e)}`));
      }
      process.stdout.write("> ");
    }
  } finally {
    rl.close();
    await env.close();
  }
}
