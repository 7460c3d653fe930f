"""Steps per second of vault-cracker written in Python and run in-process with exec(), the
reference implementation's unisolated way. Used by `npm run bench:sandbox` for the ratio.

Usage: python3 bench/python_inprocess.py SECONDS
Prints one JSON line: {"steps": n, "seconds": s, "steps_per_second": x}.
"""
import json
import sys
import time

# The environment as the designer would write it, kept as source text and exec'd like the
# reference does with model-written code. Same algorithm as src/envs/library/vault-cracker.js.
ENV_SOURCE = r'''
import random

class Environment:
    max_turns = 10

    def reset(self, seed):
        random.seed(seed)
        digits = list(range(10))
        random.shuffle(digits)
        self.code = "".join(str(d) for d in digits[:4])
        self.guesses = []
        self.done = False
        self.candidates = [s for s in (str(n).zfill(4) for n in range(10000)) if len(set(s)) == 4]
        return {"observation": "Guess the 4-digit code as \\boxed{dddd}.", "info": {}}

    @staticmethod
    def score(code, guess):
        hits = sum(1 for i in range(4) if guess[i] == code[i])
        near = sum(1 for i in range(4) if guess[i] != code[i] and guess[i] in code)
        return hits, near

    def step(self, action):
        guess = (action.get("answer") or "").replace(" ", "")
        if len(guess) != 4 or not guess.isdigit() or len(set(guess)) != 4:
            return {"observation": "Invalid guess.", "reward": 0, "terminated": False, "truncated": False, "info": {}}
        hits, near = Environment.score(self.code, guess)
        self.guesses.append(guess)
        self.candidates = [c for c in self.candidates if Environment.score(c, guess) == (hits, near)]
        if hits == 4:
            self.done = True
            return {"observation": guess + ": the vault opens!", "reward": 1, "terminated": True, "truncated": False, "info": {}}
        return {"observation": "%s: %d hits, %d near." % (guess, hits, near), "reward": 0, "terminated": False, "truncated": False, "info": {"hits": hits, "near": near}}

    def solve(self):
        return {"text": "\\boxed{%s}" % self.candidates[0]}
'''


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    namespace: dict = {}
    exec(ENV_SOURCE, namespace)  # noqa: S102 - the point of the comparison
    env = namespace["Environment"]()
    steps = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed)
        for _ in range(env.max_turns):
            text = env.solve()["text"]
            answer = text[len("\\boxed{"):-1]
            result = env.step({"text": text, "answer": answer, "toolCalls": []})
            steps += 1
            if result["terminated"]:
                break
        seed += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({"steps": steps, "seconds": elapsed, "steps_per_second": steps / elapsed}))


if __name__ == "__main__":
    main()
