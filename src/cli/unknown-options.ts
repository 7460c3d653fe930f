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
import { SpadeError } from "../errors.js";

/** One declared flag, under the name its help shows. */
interface Flag {
  name: string;
  takesValue: boolean;
}

/** A flag's name as citty compares it: dashes dropped, the letter after each one upper-cased. */
function camel(name: string): string {
  return name.replace(/-+([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase());
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

/**
 * Edit distance counting an insertion, a deletion, a substitution and a swap of two neighbouring
 * characters as one edit each (optimal string alignment): `--prot` is one slip from `--port`.
 */
export function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  const d = new Uint16Array((a.length + 1) * width);
  const at = (i: number, j: number): number => d[i * width + j] ?? 0;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    d[i * width] = i;
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1];
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (same ? 0 : 1));
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      if (swapped) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The declared flag closest to `typed` (a flag's name without its dashes), if one is close enough
 * to be a slip: at most 2 edits, and fewer than a third of the longer name.
 */
export function nearestFlag(typed: string, names: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  const key = camel(typed).toLowerCase();
  for (const name of new Set(names)) {
    const distance = editDistance(key, camel(name).toLowerCase());
    const close = distance <= 2 && distance * 3 < Math.max(key.length, name.length);
    if (close && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
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
  const near = nearestFlag(typed.replace(/^-{1,2}/, ""), names);
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
