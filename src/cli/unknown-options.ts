/**
 * @module cli/unknown-options
 * Refuses a flag the command does not have, before the command starts. citty, the CLI's parser,
 * takes an unknown `--flag` as a switch and the word after it as a positional argument, so a
 * misspelt `spade run --concurency 8` would run with the default concurrency and say nothing: a
 * run that is not the one asked for, found out hours later, if ever.
 *
 * The walk follows citty's own: at each level the first word that is not a flag (nor a flag's
 * value) names the sub-command, the flags before it are that level's, and `--` ends the flags.
 * A flag is known in citty's spellings: its declared name, the same in camelCase or kebab-case,
 * `--name=value`, and `--no-name` for a switch.
 */
import type { ArgsDef, CommandDef, Resolvable } from "citty";
import { camel, nearestName } from "../config/nearest.js";
import { SpadeError } from "../errors.js";

/** One declared flag, under the name its help shows. */
interface Flag {
  name: string;
  takesValue: boolean;
}

async function resolved<T>(value: Resolvable<T>): Promise<T> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

/** The flags of one command, by their camelCase names (aliases too). */
function flagsOf(args: ArgsDef): Map<string, Flag> {
  const flags = new Map<string, Flag>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const flag = { name, takesValue: def.type === "string" || def.type === "enum" };
    const alias = "alias" in def ? def.alias : undefined;
    const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
    for (const spelling of [name, ...aliases]) flags.set(camel(spelling), flag);
  }
  return flags;
}

/** `word` without the value it may carry (`--name=value`). */
function flagText(word: string): string {
  const equals = word.indexOf("=");
  return equals < 0 ? word : word.slice(0, equals);
}

/** The declared flag `word` (`--name`, `--name=value`, `--no-name`, `-x`) spells, if any. */
function lookup(flags: Map<string, Flag>, word: string): Flag | undefined {
  const name = flagText(word).replace(/^-{1,2}/, "");
  const flag = flags.get(camel(name));
  if (flag !== undefined) return flag;
  if (!word.startsWith("--no-")) return undefined;
  const negated = flags.get(camel(name.slice(3)));
  return negated !== undefined && !negated.takesValue
    ? { ...negated, takesValue: false }
    : undefined;
}

function unknownOption(word: string, path: string[], flags: Map<string, Flag>): SpadeError {
  const typed = flagText(word);
  const names = [...flags.values()].map((flag) => flag.name);
  const near = nearestName(typed.replace(/^-{1,2}/, ""), names);
  const command = path.join(" ");
  return new SpadeError(
    "E_CONFIG",
    `unknown option ${typed} for ${command}${near === undefined ? "" : `: did you mean --${near}?`}`,
    { nextStep: `${command} --help lists its options` },
  );
}

/**
 * Throws E_CONFIG for the first flag in `rawArgs` (the words after `spade`) that the command it
 * is given to does not declare, naming the nearest declared one. A word that names no
 * sub-command is left to citty, which says so.
 */
export async function rejectUnknownOptions(
  root: CommandDef<ArgsDef>,
  rawArgs: readonly string[],
): Promise<void> {
  const path = [root.meta === undefined ? "spade" : ((await resolved(root.meta)).name ?? "spade")];
  let command = root;
  let words = rawArgs;
  for (;;) {
    const flags = flagsOf(await resolved(command.args ?? {}));
    const subCommands =
      command.subCommands === undefined ? {} : await resolved(command.subCommands);
    let subCommand: { name: string; rest: readonly string[] } | undefined;
    for (let i = 0; i < words.length && subCommand === undefined; i++) {
      const word = words[i] ?? "";
      if (word === "--") return;
      if (!word.startsWith("-") || word === "-" || /^-\d/.test(word)) {
        if (Object.keys(subCommands).length > 0)
          subCommand = { name: word, rest: words.slice(i + 1) };
        continue;
      }
      const flag = lookup(flags, word);
      if (flag === undefined) throw unknownOption(word, path, flags);
      if (flag.takesValue && !word.includes("=")) i++;
    }
    const next = subCommand === undefined ? undefined : subCommands[subCommand.name];
    if (subCommand === undefined || next === undefined) return;
    command = await resolved(next);
    path.push(subCommand.name);
    words = subCommand.rest;
  }
}
