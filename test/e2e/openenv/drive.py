"""TEST DRIVER: plays `spade serve` through openenv-core's own client (and the SPADE shim) for
test/e2e/serve-openenv.test.ts. Importing openenv-core takes ~20 s on a small machine (it imports
gradio), so one process runs every job: stdin is {"url": ..., "jobs": [...]}, stdout one JSON list
with a result per job, in order. Jobs:

  {"cmd": "play", "name", "seed", "actions", "mode": "sync"|"async"}  one episode
  {"cmd": "many", "name", "plan": {seed: actions}}                   concurrent episodes
  {"cmd": "capacity", "name", "n"}                                   n sessions, then one more
  {"cmd": "trl", "name", "seed", "actions"}                          the TRL environment_factory class
"""

import asyncio
import inspect
import json
import sys

from openenv.core import GenericEnvClient

import spade_openenv


def result_json(r):
    return {"observation": r.observation, "reward": r.reward, "done": r.done}


def play_sync(url, name, seed, actions):
    env = spade_openenv.connect(url, name).sync()
    with env:
        first = env.reset(seed=seed)
        steps = [result_json(env.step(a)) for a in actions]
        return {"first": result_json(first), "steps": steps, "state": env.state()}


async def play_async(url, name, seed, actions):
    async with GenericEnvClient(base_url=f"{url}/{name}") as env:
        first = await env.reset(seed=seed)
        steps = [result_json(await env.step(a)) for a in actions]
        return {"first": result_json(first), "steps": steps, "state": await env.state()}


async def many(url, name, plan):
    async def one(seed, actions):
        async with GenericEnvClient(base_url=f"{url}/{name}") as env:
            first = await env.reset(seed=int(seed), episode_id=f"episode-{seed}")
            rewards = []
            for a in actions:
                r = await env.step(a)
                rewards.append(r.reward)
                await asyncio.sleep(0)
            state = await env.state()
            return {"seed": int(seed), "first": first.observation["text"], "rewards": rewards, "done": r.done, "state": state}

    return await asyncio.gather(*(one(seed, actions) for seed, actions in plan.items()))


async def capacity(url, name, n):
    clients = [GenericEnvClient(base_url=f"{url}/{name}") for _ in range(n)]
    try:
        for c in clients:
            await c.connect()
            await c.reset(seed=1)
        extra = GenericEnvClient(base_url=f"{url}/{name}")
        try:
            await extra.connect()
            await extra.reset(seed=1)
            return {"error": None}
        except RuntimeError as err:
            return {"error": str(err)}
        finally:
            await extra.close()
    finally:
        for c in clients:
            await c.close()


def trl(url, name, seed, actions):
    cls = spade_openenv.trl_environment_factory(url, name)
    env = cls()
    tools = sorted(n for n in dir(env) if not n.startswith("_") and callable(getattr(env, n)) and n != "reset")
    first = env.reset(seed=seed)
    outputs = []
    for a in actions:
        if a.get("type") == "call_tool":
            outputs.append(getattr(env, a["tool_name"])(**a["arguments"]))
        else:
            outputs.append(env.final_answer(a["text"]))
    try:
        getattr(env, "final_answer")("again")
        after = None
    except ValueError as err:
        after = str(err)
    sig = {t: str(inspect.signature(getattr(env, t))) for t in tools}
    env._close()
    return {
        "tools": tools,
        "signatures": sig,
        "first": first,
        "outputs": outputs,
        "reward": env.reward,
        "done": env.done,
        "after_end": after,
        "index": [e["name"] for e in spade_openenv.list_environments(url)],
        "prompt": spade_openenv.render_prompt({"text": "", "tool_results": [{"id": "c1", "content": "ok"}]}),
    }


def run_job(url, job):
    cmd, name = job["cmd"], job["name"]
    if cmd == "play":
        if job["mode"] == "sync":
            return play_sync(url, name, job["seed"], job["actions"])
        return asyncio.run(play_async(url, name, job["seed"], job["actions"]))
    if cmd == "many":
        return asyncio.run(many(url, name, job["plan"]))
    if cmd == "capacity":
        return asyncio.run(capacity(url, name, job["n"]))
    if cmd == "trl":
        return trl(url, name, job["seed"], job["actions"])
    raise SystemExit(f"unknown job {cmd}")


def main():
    request = json.load(sys.stdin)
    results = []
    for job in request["jobs"]:
        try:
            results.append({"ok": run_job(request["url"], job)})
        except Exception as err:  # reported per job, so one failure does not hide the others
            results.append({"failed": f"{type(err).__name__}: {err}"})
    print(json.dumps(results))


if __name__ == "__main__":
    main()
