/**
 * @module config/doc
 * The configuration reference (docs/configuration.md), generated from the schema so it cannot
 * drift: `npm run docs:config` rewrites it, and a test fails when it is stale.
 */
import { DEFAULT_SKILLS, flagName, PRESETS } from "./load.js";
import { CONFIG_SCHEMA, DERIVED_KEYS } from "./schema.js";

/** The markdown of docs/configuration.md. */
export function configMarkdown(): string {
  const defaults = CONFIG_SCHEMA.parse({}) as Record<string, unknown>;
  const rows = Object.entries(CONFIG_SCHEMA.shape).map(([key, field]) => {
    const value = defaults[key];
    const shown =
      value !== null
        ? `\`${JSON.stringify(value)}\``
        : DERIVED_KEYS.includes(key)
          ? "derived"
          : "not set";
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
    "`--no-<flag>`. A resumed run (`--resume DIR`) keeps its stored settings; only `--steps` may change.",
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
