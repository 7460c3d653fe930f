/**
 * @module cli/env
 * `spade env check | list | run | play`: validating, listing, playing environments.
 */
import { defineCommand } from "citty";
import { checkEnv, type CheckReport } from "../env/index.js";
import { libraryNames, libraryPath, resolveProgram } from "../envs/index.js";
import { OUTAGE_CODES } from "../policy/index.js";
import { episodeTranscript, runEpisode, type Episode } from "../rollout/index.js";
import { loadProgram } from "../sandbox/index.js";
import {
  EXIT_NOTHING_PLAYED,
  intFlag,
  jsonArg,
  nothingPlayedLine,
  openableProgram,
  printJson,
  sandboxArg,
  sandboxFlag,
} from "./common.js";
import { visibleText } from "./guest-text.js";
import { playInteractive } from "./play.js";
import { policyArgs, policyFromFlags } from "./policy.js";

/** Most episodes of one `spade env run` (each is kept for the summary). */
const MAX_EPISODES = 100_000;

const programArg = {
  type: "positional",
  description:
    "a program file, a library name (see `spade env list`), or a remote OpenEnv environment openenv+ws://HOST:PORT/NAME",
  required: true,
} as const;

/** The report for a terminal: guest text in messages is shown with its control characters escaped. */
function printReport(report: CheckReport, path: string): void {
  const name = visibleText(report.meta?.name ?? path, { oneLine: true });
  process.stdout.write(`${report.ok ? "valid" : "INVALID"}: ${name}\n`);
  for (const c of report.checks)
    process.stdout.write(
      `  ${c.ok ? "ok  " : "FAIL"} ${c.code.padEnd(18)} ${visibleText(c.message, { oneLine: true })}\n`,
    );
}

const check = defineCommand({
  meta: {
    name: "check",
    description: "Validate an environment program (exit 0 valid, 1 invalid, 2 usage or I/O error)",
  },
  args: { program: programArg, json: jsonArg, sandbox: sandboxArg },
  async run({ args }) {
    const program = openableProgram(args.program, args.sandbox);
    const report = await checkEnv(program.open);
    if (args.json)
      printJson({
        ok: report.ok,
        failures: report.failures,
        checks: report.checks,
        meta: report.meta,
      });
    else printReport(report, program.path);
    process.exitCode = report.ok ? 0 : 1;
  },
});

const list = defineCommand({
  meta: { name: "list", description: "List the built-in environment library" },
  args: { json: jsonArg, sandbox: sandboxArg },
  async run({ args }) {
    const backend = sandboxFlag(args.sandbox);
    const rows = [];
    for (const name of libraryNames()) {
      const env = await loadProgram(resolveProgram(name).source, { backend });
      rows.push({
        name: env.meta.name,
        skill: env.meta.skill,
        tools: env.meta.tools.length,
        maxTurns: env.meta.maxTurns,
        path: libraryPath(name),
      });
      await env.close();
    }
    if (args.json) return printJson(rows);
    const width = Math.max(4, ...rows.map((r) => r.name.length));
    process.stdout.write(`${"name".padEnd(width)}  ${"skill".padEnd(22)} tools  maxTurns\n`);
    for (const r of rows)
      process.stdout.write(
        `${visibleText(r.name, { oneLine: true }).padEnd(width)}  ${visibleText(r.skill, { oneLine: true }).padEnd(22)} ${String(r.tools).padStart(5)}  ${String(r.maxTurns).padStart(8)}\n`,
      );
  },
});

function episodeJson(e: Episode) {
  return {
    seed: e.seed,
    return: e.return,
    success: e.success,
    turns: e.turns,
    failure: e.failure,
    failureCode: e.failureCode,
    hinted: e.hinted,
    transcript: episodeTranscript(e, { messages: true }),
  };
}

/** One episode for a terminal; what the environment and the model wrote is escaped (visibleText). */
function printTranscript(e: Episode): void {
  const v = (text: string) => visibleText(text);
  process.stdout.write(
    `--- seed ${e.seed}${e.hinted ? " (hinted)" : ""}\n${v(e.firstObservation)}\n`,
  );
  for (const s of e.steps) {
    const calls = s.action.toolCalls
      .map((c) => `${c.name}(${JSON.stringify(c.arguments)})`)
      .join(" ");
    process.stdout.write(`> ${v([s.action.text, calls].filter(Boolean).join(" ")) || "(empty)"}\n`);
    for (const r of s.toolResults) process.stdout.write(`  [${v(r.id)}] ${v(r.content)}\n`);
    process.stdout.write(
      `< ${v(s.observation)}  (reward ${s.reward}${s.terminated ? ", terminated" : ""}${s.truncated ? ", truncated" : ""})\n`,
    );
  }
}

/**
 * What to do after `spade env run` stopped on an outage (called when the breaker trips, while the
 * episode whose request tripped it is still running): play again from the first episode of the
 * trailing ones the server failed, once it answers.
 */
function outageNextStep(
  finished: readonly Episode[],
  firstSeed: number,
  episodes: number,
  flags: { "base-url"?: string; model?: string; engine?: string },
): string {
  let first = finished.length; // the episode still running
  while (first > 0 && OUTAGE_CODES.has(finished[first - 1]?.failureCode ?? "")) first--;
  const check = flags.engine
    ? `spade doctor --engine ${flags.engine}`
    : `spade doctor --base-url ${flags["base-url"]} --model ${flags.model}`;
  return `the episodes that finished are printed; once the model server answers again (${check} checks it), play the ${episodes - first} episode(s) from the first one it failed with --seed ${firstSeed + first} --episodes ${episodes - first}`;
}

const run = defineCommand({
  meta: {
    name: "run",
    description: `Play episodes of an environment with a policy (exit 0 played, ${EXIT_NOTHING_PLAYED} when every episode failed, 1 when the model server stopped answering)`,
  },
  args: {
    program: programArg,
    ...policyArgs,
    episodes: { type: "string", description: "number of episodes", default: "1" },
    seed: {
      type: "string",
      description: "seed of the first episode; episode i uses seed + i",
      default: "0",
    },
    hint: {
      type: "boolean",
      description: "append the privileged hint to the first observation",
      default: false,
    },
    json: jsonArg,
    sandbox: sandboxArg,
  },
  async run({ args }) {
    const episodes = intFlag("episodes", args.episodes, 1, MAX_EPISODES);
    const firstSeed = intFlag("seed", args.seed);
    const results: Episode[] = [];
    const policy = policyFromFlags(args, {
      outageNextStep: () => outageNextStep(results, firstSeed, episodes, args),
    });
    const program = openableProgram(args.program, args.sandbox);
    const env = await program.open();
    const outage = policy.outage;
    try {
      for (let i = 0; i < episodes; i++) {
        const episode = await runEpisode(
          env,
          policy.makeAgent({ seed: firstSeed + i, signal: outage?.signal }),
          { seed: firstSeed + i, hinted: args.hint },
        );
        results.push(episode);
        if (!args.json) {
          if (episodes === 1) printTranscript(episode);
          process.stdout.write(
            `seed ${episode.seed}: return ${episode.return}, ${episode.success ? "success" : "no success"}, ${episode.turns} turns${episode.failure ? `, FAILED: ${visibleText(episode.failure, { oneLine: true })}` : ""}\n`,
          );
        }
        // The server failed --outage-after requests in a row: the next episodes would fail too.
        if (outage?.error) break;
      }
    } finally {
      await env.close();
    }
    const played = results.length;
    const successes = results.filter((e) => e.success).length;
    const meanReturn = results.reduce((a, e) => a + e.return, 0) / played;
    const failed = results.filter((e) => e.failure !== null);
    const nothingPlayed = failed.length === played;
    const interrupted = played < episodes;
    if (args.json) {
      printJson({
        env: env.meta.name,
        policy: args.policy,
        episodes: results.map(episodeJson),
        summary: {
          episodes: played,
          requested: episodes,
          interrupted,
          successes,
          meanReturn,
          failed: failed.length,
          nothingPlayed,
        },
      });
    } else {
      process.stdout.write(
        `${visibleText(env.meta.name, { oneLine: true })}: ${successes}/${played} successes${interrupted ? ` (stopped after ${played} of ${episodes} episodes)` : ""}, mean return ${meanReturn.toFixed(3)}${failed.length > 0 ? `, ${failed.length} failed` : ""}\n`,
      );
      if (nothingPlayed)
        process.stdout.write(
          `${visibleText(nothingPlayedLine("episode", failed.length, failed[0]?.failure ?? null), { oneLine: true })}\n`,
        );
    }
    if (outage?.error) throw outage.error;
    if (nothingPlayed) process.exitCode = EXIT_NOTHING_PLAYED;
  },
});

const play = defineCommand({
  meta: { name: "play", description: "Play an environment yourself in the terminal" },
  args: {
    program: programArg,
    seed: { type: "string", description: "seed of the first episode", default: "0" },
    sandbox: sandboxArg,
  },
  async run({ args }) {
    const program = openableProgram(args.program, args.sandbox);
    await playInteractive(await program.open(), intFlag("seed", args.seed));
  },
});

/** `spade env ...` */
export const envCommand = defineCommand({
  meta: { name: "env", description: "Check, list, run and play environments" },
  subCommands: { check, list, run, play },
});
