"""Writes pyrandom_fixture.json: values drawn by CPython's random.Random, for pyrandom.test.ts.

Run from the repository root: python3 src/eval/python/testing/gen_pyrandom_fixture.py
Floats are stored as their float.hex() text so the test can compare them bit for bit.
"""
import json
import random
import sys
from pathlib import Path


def draws(seed):
    r = random.Random(seed)
    out = {"seed": str(seed)}
    out["uint32"] = [r.getrandbits(32) for _ in range(5)]
    out["random"] = [r.random().hex() for _ in range(5)]
    out["getrandbits"] = {str(k): str(r.getrandbits(k)) for k in (1, 7, 31, 33, 53, 64, 100)}
    out["randint"] = [
        r.randint(0, 1),
        r.randint(10000, 99999),
        r.randint(1000000, 9999999),
        r.randint(100000000000, 999999999999),
        r.randint(-50, 50),
    ]
    out["randrange"] = [r.randrange(10), r.randrange(5, 100, 7), r.randrange(100, 0, -3)]
    out["uniform"] = [r.uniform(-10.0, 40.0).hex(), r.uniform(0.0, 120.0).hex()]
    out["choice"] = [r.choice(list("abcdefghij")) for _ in range(4)]
    items = list(range(20))
    r.shuffle(items)
    out["shuffle"] = items
    out["sample_small"] = r.sample(list(range(10)), 4)
    out["sample_large"] = r.sample(list(range(1000)), 8)
    return out


def main():
    seeds = [0, 1, 42, 200191, 1053520, 141053, -7, 2**40 + 3, 2**70 + 12345]
    cases = [draws(s) for s in seeds]
    target = Path(__file__).with_name("pyrandom_fixture.json")
    doc = {"python": sys.version.split()[0], "cases": cases}
    target.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
