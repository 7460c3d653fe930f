/**
 * @module test/fakes/rlve-fixture
 * TEST FIXTURE. Writes a tiny checkout in the layout of RLVE (github.com/Zhiyuan-Zeng/RLVE):
 * `Gym/environment.py` (importing torch, as RLVE's does: the bundle must not need it),
 * `Gym/environments/<module>/environment.py` and `Gym/parameter_controllers/<module>/...` with
 * their `identifier2environment` / `identifier2controller` registries. Two environments in RLVE's
 * style: ShownSum says "The answer is X" (the self-play agent double wins it), HiddenSum does not.
 * Both add N numbers, N = 3 at difficulty 0 and 2 more per difficulty.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

function env(className: string, shown: boolean): string {
  return `import random
from typing import Optional
from Gym.environment import VerifiableEnvironment


class ${className}(VerifiableEnvironment) :
    prompt_template = "Add these numbers: {}.${shown ? " The answer is {}" : ""}"

    def __init__(self, wrong_format : float = -1.0, **kwargs) :
        super().__init__(**kwargs)
        self.rewards = {"wrong_format" : wrong_format}

    def _generate(self) -> None :
        assert "N" in self.parameter, "N is required in parameter"
        self.parameter["numbers"] = [random.randint(1, 9) for _ in range(self.parameter["N"])]
        self.parameter["reference_answer"] = sum(self.parameter["numbers"])

    def _prompt_generate(self) -> str :
        return self.prompt_template.format(" ".join(map(str, self.parameter["numbers"])), self.parameter["reference_answer"])

    def _process(self, answer : Optional[str]) -> Optional[int] :
        try :
            return int(answer.strip()) if answer is not None else None
        except ValueError :
            return None

    def scorer(self, output : str) -> float :
        processed = self.processor(output)
        if processed is None :
            return self.rewards["wrong_format"]
        return 1.0 if processed == self.parameter["reference_answer"] else 0.0
`;
}

function controller(className: string): string {
  return `from typing import Dict, List
from Gym.parameter_controller import ParameterController

class ${className}(ParameterController) :
    def __init__(self, **kwargs) :
        super().__init__(**kwargs)
        self.N = 3

    def update(self) -> None :
        self.N += 2

    def get_parameter_list(self) -> List[Dict] :
        return [dict(N = self.N)]
`;
}

const ENVS = [
  { id: "ShownSum", module: "shown_sum", shown: true },
  { id: "HiddenSum", module: "hidden_sum", shown: false },
];

/** Writes the checkout under `dir` (the folder holding `Gym/`) and returns `dir`. */
export function writeRlveFixture(dir: string): string {
  const gym = join(dir, "Gym");
  const write = (path: string, text: string) => {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  };
  write(join(gym, "__init__.py"), "");
  write(
    join(gym, "environment.py"),
    "import torch\nimport numpy as np\n\nclass VerifiableEnvironment:\n    pass\n",
  );
  write(join(gym, "parameter_controller.py"), "class ParameterController:\n    pass\n");
  for (const [pkg, suffix, file] of [
    ["environments", "_Environment", "environment"],
    ["parameter_controllers", "_ParameterController", "parameter_controller"],
  ] as const) {
    // HiddenSum's controller is imported from its file, as RLVE does for a few (LongestMaxDiffBoundedInterval).
    const imports = ENVS.map(
      (e) =>
        `from Gym.${pkg}.${e.module}${pkg !== "environments" && !e.shown ? `.${file}` : ""} import ${e.id}${suffix}`,
    );
    const registry = ENVS.map((e) => `    "${e.id}" : ${e.id}${suffix},`);
    const name = pkg === "environments" ? "identifier2environment" : "identifier2controller";
    write(
      join(gym, pkg, "__init__.py"),
      `${imports.join("\n")}\n\n${name} = {\n${registry.join("\n")}\n}\n`,
    );
    for (const e of ENVS) {
      write(join(gym, pkg, e.module, "__init__.py"), `from .${file} import ${e.id}${suffix}\n`);
      write(
        join(gym, pkg, e.module, `${file}.py`),
        pkg === "environments" ? env(`${e.id}${suffix}`, e.shown) : controller(`${e.id}${suffix}`),
      );
    }
  }
  return dir;
}
