/**
 * @module envs/rlve
 * RLVE's environments (github.com/Zhiyuan-Zeng/RLVE, MIT licence) read from a local checkout the
 * user points to (`--env-pool rlve:DIR`), each bundled with its parameter controller into one
 * Python program at one difficulty, as the reference's `spade/core/envs/rlve_adapter.py` plays it.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { SpadeError } from "../errors.js";
import { readProgramFile } from "./program-file.js";

/** One RLVE environment of a checkout: its identifier, classes and sources. */
export interface RlveEnvironment {
  /** The identifier of `identifier2environment` (`Sorting`). */
  id: string;
  /** The environment class (`Sorting_Environment`). */
  envClass: string;
  /** The parameter controller class (`Sorting_ParameterController`). */
  controllerClass: string;
  /** `Gym/environments/<module>/environment.py`. */
  envSource: string;
  /** `Gym/parameter_controllers/<module>/parameter_controller.py`. */
  controllerSource: string;
}

/** The reference's default RLVE set (`cmd/games/train_fixed_rlve_4b.sh`, `RLVE_ENV_SET=official16`). */
export const RLVE_OFFICIAL16: readonly string[] = Object.freeze([
  "Division",
  "EuclidGame",
  "GCDOne_Counting",
  "HamiltonianPath",
  "LampChanging",
  "LargestConvexPolygon",
  "Multiplication",
  "PCPPermutation",
  "Path_NoGoingBack_Counting",
  "SAT",
  "ShortestPath",
  "Sorting",
  "SpiralMatrix",
  "SubsequenceReversalLNDS",
  "UndamagedSubmatrixCounting",
  "WYRLevelingGround",
]);

/** The prefix of an RLVE pool in `--env-pool`. */
export const RLVE_POOL_PREFIX = "rlve:";

/** Highest difficulty the reference plays RLVE at (`RlveEnvironmentAdapter`, `max_difficulty`). */
export const RLVE_MAX_DIFFICULTY = 20;

/** A parsed `rlve:DIR[#selection]`: the checkout and which environments (official16 unless `#*` or `#Name,Name`). */
export interface RlvePoolRef {
  dir: string;
  /** Identifiers asked for; null for every one with a controller (`#*`). */
  names: string[] | null;
}

const CLONE = "git clone https://github.com/Zhiyuan-Zeng/RLVE and give --env-pool rlve:DIR";

function rlveError(code: "E_CONFIG" | "E_IO", problem: string, nextStep: string): SpadeError {
  return new SpadeError(code, `env pool rlve: ${problem}`, { nextStep });
}

/** Whether `--env-pool` names RLVE (`rlve` or `rlve:DIR...`). */
export function isRlvePool(envPool: string): boolean {
  return envPool === "rlve" || envPool.startsWith(RLVE_POOL_PREFIX);
}

/** `rlve:DIR`, `rlve:DIR#*` or `rlve:DIR#Sorting,Division`; E_CONFIG for bare `rlve` (no checkout named). */
export function parseRlvePool(envPool: string): RlvePoolRef {
  if (!envPool.startsWith(RLVE_POOL_PREFIX) || envPool.length === RLVE_POOL_PREFIX.length)
    throw rlveError(
      "E_CONFIG",
      "no RLVE checkout given (RLVE is not bundled with SPADE)",
      `${CLONE} (the folder holding Gym/)`,
    );
  const rest = envPool.slice(RLVE_POOL_PREFIX.length);
  const hash = rest.lastIndexOf("#");
  const dir = hash < 0 ? rest : rest.slice(0, hash);
  const selection = hash < 0 ? null : rest.slice(hash + 1).trim();
  if (selection === "*") return { dir, names: null };
  const names =
    selection === null
      ? [...RLVE_OFFICIAL16]
      : selection
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean);
  if (names.length === 0)
    throw rlveError(
      "E_CONFIG",
      `${envPool} selects no environment`,
      "end it with #* (all) or #Name,Name (RLVE identifiers), or leave the # out (official16)",
    );
  return { dir, names };
}

/**
 * `"Id" : Class,` lines of an `identifier2...` dict, and `from Gym.<pkg>.<module> import Class`
 * lines (or `...<module>.<file> import Class`: then the file, without `.py`, is kept too).
 */
function readRegistry(
  path: string,
  pkg: string,
): { classOf: Map<string, string>; moduleOf: Map<string, [string, string | undefined]> } {
  if (!existsSync(path))
    throw rlveError("E_IO", `${path} is missing`, `${CLONE}; the folder must hold Gym/${pkg}/`);
  const text = readFileSync(path, "utf8");
  const moduleOf = new Map<string, [string, string | undefined]>();
  for (const m of text.matchAll(
    new RegExp(
      `^from Gym\\.${pkg}\\.([A-Za-z0-9_]+)(?:\\.([A-Za-z0-9_]+))? import ([A-Za-z0-9_]+)\\s*$`,
      "gm",
    ),
  ))
    moduleOf.set(m[3]!, [m[1]!, m[2]]);
  const classOf = new Map<string, string>();
  for (const m of text.matchAll(/^\s*"([A-Za-z0-9_]+)"\s*:\s*([A-Za-z0-9_]+)\s*,?\s*$/gm))
    classOf.set(m[1]!, m[2]!);
  return { classOf, moduleOf };
}

/**
 * The environments of the RLVE checkout `ref.dir` (the folder holding `Gym/`) that have both an
 * environment and a parameter controller, as the reference's adapter keeps them, sorted by
 * identifier. E_IO when the folder is not a checkout; E_CONFIG naming identifiers it lacks.
 */
export function readRlveCheckout(ref: RlvePoolRef): RlveEnvironment[] {
  const gym = join(ref.dir, "Gym");
  if (!existsSync(gym) || !statSync(gym).isDirectory())
    throw rlveError("E_IO", `${ref.dir} has no Gym/ folder`, `${CLONE} (the folder holding Gym/)`);
  const envs = readRegistry(join(gym, "environments", "__init__.py"), "environments");
  const controllers = readRegistry(
    join(gym, "parameter_controllers", "__init__.py"),
    "parameter_controllers",
  );
  const usable = [...envs.classOf.keys()].filter((id) => controllers.classOf.has(id)).sort();
  const wanted = ref.names ?? usable;
  const missing = wanted.filter((id) => !usable.includes(id));
  if (missing.length > 0)
    throw rlveError(
      "E_CONFIG",
      `${ref.dir} has no environment with a parameter controller named ${missing.join(", ")}`,
      `choose among ${usable.slice(0, 8).join(", ")}... (${usable.length} in all), or #* for all`,
    );
  return wanted.map((id) => {
    const envClass = envs.classOf.get(id)!;
    const controllerClass = controllers.classOf.get(id)!;
    const source = (
      pkg: string,
      cls: string,
      module: [string, string | undefined] | undefined,
      file: string,
    ) => {
      if (!module) throw rlveError("E_IO", `Gym/${pkg}/__init__.py does not import ${cls}`, CLONE);
      return readProgramFile(join(gym, pkg, module[0], `${module[1] ?? file}.py`));
    };
    return {
      id,
      envClass,
      controllerClass,
      envSource: source("environments", envClass, envs.moduleOf.get(envClass), "environment"),
      controllerSource: source(
        "parameter_controllers",
        controllerClass,
        controllers.moduleOf.get(controllerClass),
        "parameter_controller",
      ),
    };
  });
}

/**
 * Python: the two RLVE base classes the bundled sources import (`Gym.environment`,
 * `Gym.parameter_controller`), written for the sandbox. Unlike RLVE's `Gym/environment.py` this
 * imports no torch (`manual_seed` seeds `random`, and numpy when the environment uses it) and its
 * `timeout` runs the call directly: RLVE's timer is a thread, which the sandbox refuses, and the
 * sandbox's own per-call deadline bounds the call instead.
 */
const BASE_CLASSES = `
import copy, re, random
from abc import ABC, abstractmethod


class TimeoutException(Exception):
    pass


def timeout(seconds):
    def decorator(func):
        return func
    return decorator


def manual_seed(seed, fix_cudnn=False):
    random.seed(seed)
    __SEED_NUMPY__


class VerifiableEnvironment(ABC):
    def __init__(self, answer_markers=None):
        self.seed = None
        self.parameter = None
        if answer_markers is None:
            answer_markers = (r"<answer>", r"</answer>")
        assert len(answer_markers) == 2 and all(isinstance(m, str) for m in answer_markers), "answer_markers should be a tuple of two strings"
        self.answer_markers = answer_markers
        self.passing_reward_threshold = 1.0

    def generator(self, seed, parameter=None, timeout_second=10):
        try:
            self.seed = seed
            self.parameter = copy.deepcopy(parameter) if parameter is not None else {}
            manual_seed(self.seed)
            self._generate()
        except Exception:
            return False
        return self.parameter is not None

    @abstractmethod
    def _generate(self):
        pass

    def prompt_generator(self):
        assert self.seed is not None and self.parameter is not None, "generator() should be called before prompt_generator()"
        return self._prompt_generate()

    @abstractmethod
    def _prompt_generate(self):
        pass

    def processor(self, output):
        if "Assistant:" in output:
            output = output.split("Assistant:", 1)[1]
        elif "<|im_start|>assistant" in output:
            output = output.split("<|im_start|>assistant", 1)[1]
        pattern = re.escape(self.answer_markers[0]) + r"(.*?)" + re.escape(self.answer_markers[1])
        matches = list(re.finditer(pattern, output, re.DOTALL))
        return self._process(matches[-1].group(1) if matches else None)

    @abstractmethod
    def _process(self, answer):
        pass

    @abstractmethod
    def scorer(self, output):
        pass

    def verifier(self, output):
        try:
            score = self.scorer(output)
        except Exception:
            score = -1.0
        assert -1.0 <= score <= +1.0, "Score out of bounds: score={}".format(score)
        eps = 1e-6
        return dict(reward=score, accuracy=int(score >= self.passing_reward_threshold - eps), format_score=int(score >= -1.0 + eps))

    def get_config(self):
        return dict(seed=self.seed, parameter=self.parameter, passing_reward_threshold=self.passing_reward_threshold)

    def set_config(self, config):
        self.seed, self.parameter, self.passing_reward_threshold = config["seed"], config["parameter"], config.get("passing_reward_threshold", 1.0)


class ParameterController(ABC):
    def __init__(self):
        pass

    @abstractmethod
    def update(self):
        pass

    @abstractmethod
    def get_parameter_list(self):
        pass
`;

/**
 * Python: the episode around one RLVE problem, as `RlveGymWrapper` plays it: reset(seed) takes the
 * controller `DIFFICULTY` updates up, draws one of its parameters with the seed, and generates the
 * problem (the prompt ends with the reference's rlve instruction to answer in `\boxed{}`); step
 * turns the last `\boxed{}` into RLVE's `<answer>` tags, scores 1.0 when RLVE's verifier counts it
 * accurate, else 0.0, and ends. solve() answers the problem's reference answer (an oracle).
 */
const WRAPPER = String.raw`

def _boxed(text):
    # The reference's extract_boxed_answer (spade/core/utils/parsing.py).
    if not text:
        return None
    for pattern in (r"\\boxed\{([^{}]+)\}", r"\\boxed\{\{([^{}]+)\}\}", r"\\boxed\{\{\{([^{}]+)\}\}\}"):
        match = re.search(pattern, text)
        if match:
            return match.group(1).strip()
    at = text.rfind("\\boxed")
    start = text.find("{", at) if at >= 0 else -1
    if start < 0:
        return None
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                content = text[start + 1:i].strip()
                for _ in range(2):
                    if content.startswith("{") and content.endswith("}"):
                        content = content[1:-1].strip()
                return content
    return None


class Environment:
    meta = __META__

    def __init__(self, max_turns=1):
        self.max_turns = 1
        self.env = None
        self.answer = None

    def reset(self, seed=None):
        controller = __CONTROLLER__()
        for _ in range(DIFFICULTY):
            controller.update()
        parameter = random.Random(seed).choice(controller.get_parameter_list())
        self.env = __ENV__()
        if not self.env.generator(seed=seed, parameter=parameter):
            raise RuntimeError("RLVE generator failed for " + RLVE_ID + " at difficulty " + str(DIFFICULTY) + " with seed " + str(seed))
        params = self.env.parameter or {}
        self.answer = params.get("reference_answer", params.get("gold_answer"))
        prompt = self.env.prompt_generator() + "\n\nPlease reason step by step, and put your final answer within \\boxed{}."
        return prompt, {"difficulty": DIFFICULTY, "has_answer": self.answer is not None}

    def step(self, action):
        if self.env is None:
            return "No problem generated. Call reset() first.", 0.0, True, False, {}
        boxed = _boxed(action)
        if boxed is not None:
            action = action + "\n<answer>" + boxed + "</answer>"
        try:
            correct = bool(self.env.verifier(action)["accuracy"])
        except Exception:
            correct = False
        observation = "Correct!" if correct else "Incorrect. The answer was: " + str(self.answer)
        return observation, 1.0 if correct else 0.0, True, False, {
            "correct": correct, "difficulty": DIFFICULTY,
            "expected_answer": str(self.answer) if self.answer else None}

    def solve(self):
        return {"text": "\\boxed{" + str(self.answer) + "}"}
`;

/** Lines importing RLVE's base modules, which the bundle defines itself. */
const GYM_BASE_IMPORT = /^\s*from\s+Gym\.(?:environment|parameter_controller)\s+import\s+[^\n]*$/gm;

/** The store id of an RLVE environment at a difficulty: `rlve-<id>-d<difficulty>`. */
export function rlveEnvId(id: string, difficulty: number): string {
  return `rlve-${id}-d${difficulty}`;
}

/**
 * The Python program that plays RLVE environment `env` at `difficulty`: the base classes, the
 * environment's and its controller's sources (their imports of the base modules dropped), and the
 * episode class `Environment` (meta name `rlve-<id>`, skill `RLVE`, one turn).
 */
export function rlveProgram(env: RlveEnvironment, difficulty: number): string {
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > RLVE_MAX_DIFFICULTY)
    throw new SpadeError(
      "E_CONFIG",
      `RLVE difficulty must be an integer in [0, ${RLVE_MAX_DIFFICULTY}], got ${difficulty}`,
      { nextStep: "this is a bug in the caller: difficulties come from the controller" },
    );
  const usesNumpy = /\b(?:numpy|np)\b/.test(env.envSource + env.controllerSource);
  const meta = {
    name: `rlve-${env.id.toLowerCase().replace(/_/g, "-")}`,
    skill: "RLVE",
    description: `RLVE's ${env.id} at difficulty ${difficulty}`,
    maxTurns: 1,
  };
  const strip = (source: string) => source.replace(GYM_BASE_IMPORT, "");
  return [
    `"""RLVE environment ${env.id} at difficulty ${difficulty}: RLVE (github.com/Zhiyuan-Zeng/RLVE, MIT licence, (c) 2025 Zhiyuan Zeng) bundled by SPADE."""`,
    BASE_CLASSES.replace(
      "__SEED_NUMPY__",
      usesNumpy ? "import numpy\n    numpy.random.seed(seed % 4294967296)" : "pass",
    ),
    strip(env.envSource),
    strip(env.controllerSource),
    `RLVE_ID = ${JSON.stringify(env.id)}\nDIFFICULTY = ${difficulty}`,
    WRAPPER.replace("__META__", JSON.stringify(meta))
      .replace("__CONTROLLER__", env.controllerClass)
      .replace("__ENV__", env.envClass),
  ].join("\n");
}
