"""Steps per second of one Python environment program (the reference's format) run in-process
with exec(), the reference's unisolated way: the comparison row for the Python sandbox in
`npm run bench:sandbox`. Oracle play: one solve() and one step() per turn.

Usage: python3 bench/python_program_inprocess.py PROGRAM.py SECONDS
Prints one JSON line: {"steps": n, "seconds": s, "steps_per_second": x}.
"""
import json
import random
import re
import math
import sys
import time

source = open(sys.argv[1], encoding="utf-8").read()
seconds = float(sys.argv[2])
namespace = {"random": random, "re": re, "math": math, "json": json}
exec(compile(source, sys.argv[1], "exec"), namespace)
cls = next(v for k, v in namespace.items() if isinstance(v, type) and (k == "Environment" or k.endswith("Env")))
env = cls()
max_turns = (getattr(cls, "meta", None) or {}).get("maxTurns", 25)
steps = 0
start = time.perf_counter()
seed = 0
while time.perf_counter() - start < seconds:
    random.seed(seed)
    env.reset(seed=seed)
    for _ in range(max_turns):
        action = env.solve()
        steps += 1
        if env.step(action if isinstance(action, str) else action["text"])[2]:
            break
    seed += 1
elapsed = time.perf_counter() - start
print(json.dumps({"steps": steps, "seconds": elapsed, "steps_per_second": steps / elapsed}))
