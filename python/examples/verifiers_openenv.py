"""Use SPADE environments with verifiers' OpenEnv integration (vf.OpenEnvEnv).

verifiers runs an OpenEnv *project* (a folder with a Dockerfile) in Prime sandboxes. Export one
from a SPADE run, build and register its image once, then load it:

    spade archive export runs/my-run envs-pkg --min-regret 0.1     # openenv.yaml, Dockerfile, envs/
    vf-openenv-build --path envs-pkg

The exported image serves several environments, each under /<name>; verifiers talks to the server
root, so serve one environment per image for verifiers: keep one file in envs-pkg/envs/.
"""

import verifiers as vf

from spade_openenv import render_prompt


def load_environment(project: str = "envs-pkg", num_train_examples: int = 256, num_eval_examples: int = 32, seed: int = 0):
    return vf.OpenEnvEnv(
        openenv_project=project,
        prompt_renderer=render_prompt,  # observation dict -> [{"role": "user", "content": text}]
        num_train_examples=num_train_examples,
        num_eval_examples=num_eval_examples,
        seed=seed,
    )
