/**
 * @module serve/archive
 * `spade archive export`: a run's valid environments, filtered, as a ready OpenEnv environment
 * package (openenv.yaml, a Dockerfile that runs `spade serve` on the programs, a README with their
 * table, the Python shim as client) or as JSON Lines of programs with their stats (a Hugging Face
 * dataset). Files are computed here (pure); the CLI writes them.
 */
import type { EnvironmentRow } from "../store/index.js";
import { uniqueNames } from "./catalog.js";

/** One exported environment: its file name and its row. */
export interface ExportedEnv {
  file: string;
  row: EnvironmentRow;
}

/** The JSON Lines record of one environment. */
export function jsonlRecord(row: EnvironmentRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    skill: row.skill,
    description: row.description,
    max_turns: row.meta.maxTurns,
    tools: row.meta.tools,
    regret: row.stats.regret,
    win_rate: row.stats.winRate,
    plays: row.stats.plays,
    designer_reward: row.stats.designerReward,
    created_step: row.createdStep,
    language: "javascript",
    code: row.code,
  };
}

/** The JSON Lines text of `rows` (one record a line, newline-terminated). */
export function jsonlText(rows: readonly EnvironmentRow[]): string {
  return rows.map((r) => `${JSON.stringify(jsonlRecord(r))}\n`).join("");
}

const fmt = (x: number | null) => (x === null ? "n/a" : x.toFixed(3));
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();

/**
 * The files of an OpenEnv package for `rows` (path -> text). `shim` is the Python shim's source,
 * shipped as the package's client; `runDir` is only named in the README.
 */
export function openEnvPackage(
  rows: readonly EnvironmentRow[],
  options: { packageName: string; runDir: string; minRegret: number | null; shim: string },
): Map<string, string> {
  const names = uniqueNames(rows.map((r) => r.name));
  const envs: ExportedEnv[] = rows.map((row, i) => ({ file: `envs/${names[i]}.js`, row }));
  const files = new Map<string, string>();
  for (const e of envs)
    files.set(e.file, e.row.code.endsWith("\n") ? e.row.code : `${e.row.code}\n`);
  files.set(
    "openenv.yaml",
    [
      "# An OpenEnv environment package exported by `spade archive export` (SPADE).",
      "# The server is `spade serve` (Node.js), started by the Dockerfile; every environment is served",
      "# under its own path, /<name>/ws (see README.md).",
      "spec_version: 1",
      `name: ${options.packageName}`,
      "type: space",
      "runtime: docker",
      "port: 8000",
      "",
    ].join("\n"),
  );
  files.set(
    "Dockerfile",
    [
      "# Serves the exported environments with `spade serve` (OpenEnv HTTP + WebSocket, MCP) on port 8000.",
      "# SPADE_PACKAGE is what npm installs: a registry spec, or a tarball made with `npm pack` in a",
      "# SPADE checkout and copied next to this file (docker build --build-arg SPADE_PACKAGE=./spade-rl-0.1.0.tgz .).",
      "# The full node image has the compiler isolated-vm (the sandbox) builds with.",
      "FROM node:20-bookworm",
      "ARG SPADE_PACKAGE=spade-rl@0.1.0",
      "WORKDIR /app",
      "COPY . /app",
      'RUN npm install --global --omit=optional "$SPADE_PACKAGE"',
      "EXPOSE 8000",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell default in the Dockerfile, not a template
      'CMD ["sh", "-c", "exec spade serve --host 0.0.0.0 --port 8000 --max-sessions ${MAX_SESSIONS:-64} envs/*.js"]',
      "",
    ].join("\n"),
  );
  const table = [
    "| name | skill | regret | win rate | plays | tools | description |",
    "|---|---|---|---|---|---|---|",
    ...envs.map(
      (e, i) =>
        `| \`${names[i]}\` | ${cell(e.row.skill)} | ${fmt(e.row.stats.regret)} | ${fmt(e.row.stats.winRate)} | ${e.row.stats.plays} | ${e.row.meta.tools.length} | ${cell(e.row.description)} |`,
    ),
  ].join("\n");
  files.set(
    "README.md",
    [
      `# ${options.packageName}`,
      "",
      `${envs.length} environments written by SPADE's designer (run \`${options.runDir}\`${options.minRegret === null ? "" : `, regret >= ${options.minRegret}`}), served over OpenEnv.`,
      "Regret is the agent's mean return with the privileged hint minus without it, over the run's plays.",
      "",
      table,
      "",
      "## Run",
      "",
      "```bash",
      "docker build -t spade-envs .            # or, without Docker: spade serve envs/*.js",
      "docker run -p 8000:8000 spade-envs",
      "```",
      "",
      "## Play (Python, openenv-core 0.3.0)",
      "",
      "```python",
      "from client import connect, text_action",
      "",
      `env = connect("http://localhost:8000", "${names[0] ?? "NAME"}").sync()`,
      "with env:",
      "    result = env.reset(seed=0)",
      '    print(result.observation["text"])',
      '    result = env.step(text_action("\\\\boxed{...}"))',
      "    print(result.reward, result.done)",
      "```",
      "",
      'Actions: `{"text": ...}` for moves and final answers; `{"type": "call_tool", "tool_name": ..., "arguments": {...}}`',
      "for tools. Observations: `text`, `tool_results`, `info`, `terminated`, `truncated`. See SPADE's docs/serving.md.",
      "",
    ].join("\n"),
  );
  files.set("client.py", options.shim);
  files.set(
    "__init__.py",
    '"""SPADE environments exported as an OpenEnv package; the client is client.py."""\nfrom .client import *  # noqa: F401,F403\n',
  );
  files.set(
    "models.py",
    [
      '"""The wire shapes of SPADE environments (plain dicts; GenericEnvClient needs no classes).',
      "",
      'Action: {"text": str} for moves and final answers, or',
      '        {"type": "call_tool", "tool_name": str, "arguments": dict} for one tool call.',
      'Observation: {"text": str, "tool_results": [{"id", "content"}], "info": dict,',
      '              "terminated": bool, "truncated": bool, "step_count": int}; reward and done beside it.',
      '"""',
      "",
    ].join("\n"),
  );
  return files;
}
