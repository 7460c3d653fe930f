"""Play SPADE environments served by `spade serve` with openenv-core's GenericEnvClient.

    spade serve vault-cracker bank-transfer --port 8000      # in another terminal
    PYTHONPATH=python python python/examples/generic_client.py http://localhost:8000
"""

import asyncio
import sys

from spade_openenv import connect, list_environments, text_action, tool_action

url = sys.argv[1] if len(sys.argv) > 1 else "http://localhost:8000"
print([e["name"] for e in list_environments(url)])

# A game, synchronously: text actions are parsed like a model's message (\boxed{...} answers).
with connect(url, "vault-cracker").sync() as env:
    result = env.reset(seed=0)
    print(result.observation["text"])
    for guess in ["0123", "4567", "8901"]:
        result = env.step(text_action(f"\\boxed{{{guess}}}"))
        print(guess, "->", result.observation["text"], result.reward, result.done)
    print(env.state())


# A tool-use environment, asynchronously: each tool call is one step (OpenEnv's call_tool).
async def tools() -> None:
    async with connect(url, "bank-transfer") as env:
        result = await env.reset(seed=0)
        print([t["name"] for t in result.observation["tools"]])
        result = await env.step(tool_action("list_accounts"))
        print(result.observation["result"])


asyncio.run(tools())
