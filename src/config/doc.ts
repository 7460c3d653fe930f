/**
 * @module config/doc
 * The configuration reference (docs/configuration.md), generated from the schema so it cannot
 * drift: `npm run docs:config` rewrites it, and a test fails when it is stale.
 */
import { DEFAULT_SKILLS, DERIVED_KEYS, flagName, PRESETS } from "./load.js";
import { CONFIG_SCHEMA, type ConfigKey } from "./schema.js";

const DEFAULTS = CONFIG_SCHEMA.parse({}) as Record<string, unknown>;

/** How `key`'s default reads: its JSON (`literal`), else `derived` (from the mode) or `not set`. */
export function shownDefault(key: string): { text: string; literal: boolean } {
  const value = DEFAULTS[key];
  if (value !== null) return { text: JSON.stringify(value), literal: true };
  return { text: DERIVED_KEYS.includes(key) ? "derived" : "not set", literal: false };
}

/** The help of the flag of config key `key`: the schema's description and the default. */
export function configFlagHelp(key: ConfigKey): string {
  return `${CONFIG_SCHEMA.shape[key].description ?? ""} (default: ${shownDefault(key).text})`;
}

/** The markdown of docs/configuration.md. */
export function configMarkdown(): string {
  const rows = Object.entries(CONFIG_SCHEMA.shape).map(([key, field]) => {
    const { text, literal } = shownDefault(key);
    const shown = literal ? `\`${text}\`` : text;
    return `| \`${key}\` | \`--${flagName(key)}\` | ${shown} | ${(field.description ?? "").replace(/\|/g, "\\|")} |`;
  });
  const presets = Object.entries(PRESETS).map(
    ([name, values]) =>
      `- \`${name}\`: ${Object.entries(values)
        .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
        .join(", ")}`,
  );
  return [
    "# Configuration of `spade run`",
    "",
    "<!-- Generated from src/config/schema.ts by `npm run docs:config`; do not edit by hand. -->",
    "",
    "Settings come from, in increasing priority: the defaults below, `--preset NAME`, a JSON file",
    "(`--config FILE`, an object of these keys) and flags. Every key is a flag; booleans also take",
    "`--no-<flag>`. A resumed run (`--resume DIR`) keeps its stored settings; only `--steps` and how the model server is reached (`--base-url`, `--api-key-env`, `--request-timeout`, `--retry-budget`, `--max-retries`, `--max-answer-bytes`, `--outage-after`: for that process, the store keeps the settings the run began with) may change.",
    "",
    "| key | flag | default | meaning |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    "Derived defaults: `skills` is the mode's six skills",
    `(games: ${DEFAULT_SKILLS.games.join(", ")}; tool use: ${DEFAULT_SKILLS["tool-use"].join(", ")});`,
    "`regenerateEvery` is 4 for games and 8 for tool use, `rewardDelay` equals it, `maxWords` is 6,000",
    "for games and 4,000 for tool use (the reference's values, docs/reference-notes.md); `policy` is",
    "`tinker` when `engine` is set, else `openai`; `skillsPerRegen` is 3 for games and every skill for",
    "tool use. `plays`, when not set, is ceil(`agentBatch` / environments in the pool) at each step.",
    "",
    "Presets:",
    ...presets,
    "",
  ].join("\n");
}
