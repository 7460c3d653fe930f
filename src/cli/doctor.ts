/**
 * @module cli/doctor
 * `spade doctor`: checks a user's setup and prints one line per check with a fix: Node, Python,
 * the sandbox, the code suites' Python sandbox (its isolation and memory cgroup), the optional
 * GGUF runtime, the local training engine, and, given `--base-url` or
 * `--engine`, what that server supports (cli/doctor-probe.ts). Exit 1 when a check fails.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { defineCommand } from "citty";
import { envVar } from "../config/index.js";
import { describeError } from "../errors.js";
import { NODE_LLAMA_CPP_VERSION } from "../policy/index.js";
import { PythonSandbox } from "../eval/suites/code/python-sandbox.js";
import { loadProgram } from "../sandbox/index.js";
import { cgroupsArg } from "./common.js";
import { probeEngine, probeOpenAI, type Check } from "./doctor-probe.js";
import { runPlaces } from "./run-engine.js";

/** Node: 20 or newer (what SPADE is built and tested on). */
export function checkNode(version: string = process.versions.node): Check {
  const major = Number(version.split(".")[0]);
  return major >= 20
    ? { name: "node", status: "ok", detail: `v${version}` }
    : {
        name: "node",
        status: "fail",
        detail: `v${version} is older than 20`,
        fix: "install Node 20 or newer (nodejs.org, or nvm install 20)",
      };
}

/** Python 3 (evaluation helpers, the comparison tests); 3.11+ for the training engine. */
export function checkPython(python = "python3"): Check {
  const run = spawnSync(python, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], {
    encoding: "utf8",
  });
  if (run.status !== 0 || run.error)
    return {
      name: "python",
      status: "warn",
      detail: `${python} not found`,
      fix: "install Python 3.11+ (needed by evaluation helpers and the local training engine, not by self-play)",
    };
  const [major, minor] = run.stdout.trim().split(".").map(Number) as [number, number];
  if (major < 3 || (major === 3 && minor < 11))
    return {
      name: "python",
      status: "warn",
      detail: `${run.stdout.trim()}; the training engine needs 3.11+`,
      fix: "install Python 3.11+ and set SPADE_ENGINE_PYTHON to it before scripts/setup-engine.sh",
    };
  return { name: "python", status: "ok", detail: run.stdout.trim() };
}

/** The sandbox: isolated-vm compiles and runs a tiny environment (needs node --no-node-snapshot, as bin/spade.js starts it). */
export async function checkSandbox(): Promise<Check> {
  const source =
    'class Environment { static meta = { name: "doctor", skill: "Memory Recall", description: "d", maxTurns: 1, tools: [] }; reset(seed) { return { observation: "x" + seed, info: {} }; } step(a) { return { observation: "", reward: 1, terminated: true, truncated: false, info: {} }; } }';
  try {
    const env = await loadProgram(source);
    try {
      const first = await env.reset(7);
      if (first.observation !== "x7")
        return {
          name: "sandbox",
          status: "fail",
          detail: `isolated-vm answered ${JSON.stringify(first.observation)}`,
          fix: "reinstall isolated-vm (npm rebuild isolated-vm)",
        };
    } finally {
      await env.close();
    }
    return { name: "sandbox", status: "ok", detail: "isolated-vm runs environment programs" };
  } catch (err) {
    return {
      name: "sandbox",
      status: "fail",
      detail: `isolated-vm cannot run a program (${describeError(err)})`,
      fix: "rebuild it with `npm rebuild isolated-vm` (needs g++ and make), and start node with --no-node-snapshot (bin/spade.js does)",
    };
  }
}

/** What `checkCodeSandbox` needs of a made code sandbox. */
type CodeSandboxFacts = Pick<PythonSandbox, "cgroup" | "python"> & {
  isolation: Pick<PythonSandbox["isolation"], "mode">;
};

/**
 * The code suites' Python sandbox (`spade eval humaneval|mbpp|paper`): it starts and runs a smoke
 * program; a warning where it cannot (the other commands need it not) or where runs have no
 * memory cgroup, so that only each process's memory is capped.
 */
export async function checkCodeSandbox(
  cgroups = "auto",
  create: () => Promise<CodeSandboxFacts> = () => PythonSandbox.create({ cgroups }),
): Promise<Check> {
  const name = "code sandbox";
  let sandbox: CodeSandboxFacts;
  try {
    sandbox = await create();
  } catch (err) {
    if (cgroups !== "auto" && cgroups !== "off") {
      return { name, status: "warn", detail: `--cgroups ${cgroups}: ${describeError(err)}` };
    }
    return {
      name,
      status: "warn",
      detail: `model-written code cannot run isolated (${describeError(err)})`,
      fix: "needed only by the code suites: see docs/eval-suites.md, The Python sandbox",
    };
  }
  const where = `${sandbox.python}, namespaces as ${sandbox.isolation.mode}`;
  if (!sandbox.cgroup && cgroups === "off") {
    const detail = `${where}; --cgroups off: each process's memory is capped, not a run's`;
    return { name, status: "warn", detail };
  }
  if (!sandbox.cgroup) {
    return {
      name,
      status: "warn",
      detail: `${where}; no memory cgroup: each process's memory is capped, not a run's`,
      fix: "run as root, or as a user inside `systemd-run --user --scope -p Delegate=yes` with --cgroups self",
    };
  }
  const { version, dirs } = sandbox.cgroup;
  const controllers = (["memory", "cpu", "pids"] as const).filter((c) => dirs[c] !== null);
  return {
    name,
    status: "ok",
    detail: `${where}, cgroups per run (v${version}: ${controllers.join(", ")}; ${dirs.memory})`,
  };
}

/** The optional GGUF runtime: node-llama-cpp imports and has a CPU build of llama.cpp. */
export async function checkGguf(): Promise<Check> {
  try {
    const llama = await import("node-llama-cpp");
    const runtime = await llama.getLlama({
      gpu: false,
      build: "never",
      logLevel: llama.LlamaLogLevel.error,
      progressLogs: false,
    });
    await runtime.dispose();
    return {
      name: "gguf runtime",
      status: "ok",
      detail: `node-llama-cpp ${NODE_LLAMA_CPP_VERSION} with a CPU llama.cpp (--policy gguf, --preset local)`,
    };
  } catch (err) {
    return {
      name: "gguf runtime",
      status: "warn",
      detail: `node-llama-cpp is not usable (${describeError(err).slice(0, 160)})`,
      fix: `npm install --save-optional --save-exact node-llama-cpp@${NODE_LLAMA_CPP_VERSION} (only --policy gguf and --preset local need it)`,
    };
  }
}

/** The local training engine (`--engine local`): SkyRL's server in its cached venv. */
export function checkEngineInstall(python: string): Check {
  if (!existsSync(python))
    return {
      name: "local engine",
      status: "warn",
      detail: `not installed (no ${python})`,
      fix: "bash scripts/setup-engine.sh (about 1 GB; only --engine local needs it)",
    };
  const run = spawnSync(python, ["-c", "import skyrl, jax; print(jax.__version__)"], {
    encoding: "utf8",
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
  if (run.status !== 0)
    return {
      name: "local engine",
      status: "fail",
      detail: `${python} cannot import skyrl and jax (${run.stderr.trim().split("\n").pop() ?? ""})`,
      fix: "reinstall: rm -rf the engine folder and run bash scripts/setup-engine.sh",
    };
  return {
    name: "local engine",
    status: "ok",
    detail: `SkyRL with JAX ${run.stdout.trim()} at ${python}`,
  };
}

/** One report line: status, name, detail and fix. */
export function formatCheck(check: Check): string {
  const mark = { ok: "ok  ", warn: "warn", fail: "FAIL" }[check.status];
  return `${mark} ${check.name.padEnd(20)} ${check.detail}${check.fix ? ` -> fix: ${check.fix}` : ""}`;
}

/** `spade doctor` */
export const doctorCommand = defineCommand({
  meta: {
    name: "doctor",
    description:
      "Check this machine's setup (and a model server or engine) and say how to fix what is missing",
  },
  args: {
    "base-url": {
      type: "string",
      description:
        "an OpenAI-compatible server to probe, e.g. http://127.0.0.1:8000/v1 (with --model)",
    },
    model: { type: "string", description: "the model name the server serves (with --base-url)" },
    "api-key-env": {
      type: "string",
      description: "environment variable holding the server's API key",
    },
    engine: { type: "string", description: "a Tinker-compatible engine to probe (its root URL)" },
    cgroups: cgroupsArg,
    json: { type: "boolean", description: "print the checks as JSON" },
  },
  async run({ args }) {
    const places = runPlaces(process.env);
    const checks: Check[] = [
      checkNode(),
      checkPython(),
      await checkSandbox(),
      await checkCodeSandbox(args.cgroups),
      await checkGguf(),
      checkEngineInstall(places.enginePython),
    ];
    const apiKey = args["api-key-env"] ? envVar(args["api-key-env"]) : undefined;
    if (args["base-url"]) {
      if (!args.model)
        checks.push({
          name: "server",
          status: "fail",
          detail: "--base-url given without --model",
          fix: "add --model NAME (the name the server serves)",
        });
      else checks.push(...(await probeOpenAI(args["base-url"], args.model, { apiKey })));
    }
    if (args.engine) checks.push(...(await probeEngine(args.engine, { apiKey })));
    if (args.json) process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
    else process.stdout.write(`${checks.map(formatCheck).join("\n")}\n`);
    if (checks.some((c) => c.status === "fail")) process.exitCode = 1;
  },
});
