"""Train on a served SPADE environment with TRL's GRPOTrainer (environment_factory).

    spade serve bank-transfer --port 8000 --max-sessions 256
    pip install trl openenv-core==0.3.0
    PYTHONPATH=python python python/examples/trl_grpo.py

Each generation gets its own environment instance (its own WebSocket session and sandbox on the
server); the environment's tools become the model's tools, `final_answer(text)` sends a move or
the answer, and the reward is the episode's return.
"""

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from spade_openenv import trl_environment_factory

ENV = trl_environment_factory("http://localhost:8000", "bank-transfer")


def reward_func(environments, **kwargs):
    return [env.reward for env in environments]


# One row per episode; the `seed` column seeds each episode's reset.
dataset = Dataset.from_dict({
    "prompt": [[{"role": "user", "content": "Solve the task in the environment. Use the tools, then call final_answer."}]] * 256,
    "seed": list(range(256)),
})

trainer = GRPOTrainer(
    model="Qwen/Qwen3-0.6B",
    train_dataset=dataset,
    reward_funcs=reward_func,
    args=GRPOConfig(max_completion_length=2048, chat_template_kwargs={"enable_thinking": False}),
    environment_factory=ENV,
)
trainer.train()
