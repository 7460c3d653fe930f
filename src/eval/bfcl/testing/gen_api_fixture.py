"""Writes api_fixture.json: what upstream's own BFCL API classes answer to hand-written call
sequences (edge cases, wrong types, errors), for api-fixture.test.ts.

Needs upstream's package `bfcl_eval` (PyPI bfcl-eval==2026.3.23) importable, e.g. the project
virtualenv made from requirements-test.txt, or an unpacked wheel passed as the first argument:

    pip download --no-deps bfcl-eval==2026.3.23 -d /tmp/w && unzip -q /tmp/w/*.whl -d /tmp/w/x
    python3 src/eval/bfcl/testing/gen_api_fixture.py /tmp/w/x        # needs mpmath==1.3.0

Every case runs in its own Python process: upstream keeps mutable defaults and long-context
constants as module globals, which would otherwise leak from one case into the next. Results
longer than 500 characters and every state are stored as sha256 of their text (the state as
json.dumps(..., sort_keys=True)); short results and the final state of short-context cases are
stored in full. No benchmark data is stored: scenarios and calls are written by hand, in
api_fixture_cases.json beside this script.
"""
import hashlib
import json
import subprocess
import sys
from pathlib import Path

# The hand-written scenarios and call sequences, one object a case (name, classes, config, calls,
# long_context): data, kept beside this script; the numeric sweep below is generated.
CASES = json.loads(Path(__file__).with_name("api_fixture_cases.json").read_text(encoding="utf-8"))


def numeric_sweep():
    """Seeded logarithm / square_root / round calls across magnitudes and precisions."""
    import random
    rng = random.Random(20260323)
    calls = []
    for _ in range(60):
        value = rng.choice([rng.randint(1, 10 ** rng.randint(1, 12)), round(rng.uniform(0.0001, 1e6), rng.randint(0, 8))])
        base = rng.choice([2, 10, 3, 0.5, 1.5, rng.randint(2, 1000)])
        calls.append(f"logarithm(value={value!r}, base={base!r}, precision={rng.randint(1, 60)})")
    for _ in range(40):
        number = rng.choice([rng.randint(0, 10 ** rng.randint(1, 20)), round(rng.uniform(0, 1e4), rng.randint(0, 6)), rng.randint(1, 99) ** 2])
        calls.append(f"square_root(number={number!r}, precision={rng.randint(1, 40)})")
    for _ in range(30):
        x = round(rng.uniform(-1e5, 1e5), rng.randint(0, 6))
        calls.append(f"round_number(number={x!r}, decimal_places={rng.randint(-3, 5)})")
    return calls


CASES.append({"name": "math: numeric sweep", "classes": ["MathAPI"], "config": {}, "calls": numeric_sweep()})

LONG = 500


def run_case(index):
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call
    from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.gorilla_file_system import Directory, File

    def ser(v):
        if isinstance(v, Directory):
            return {"__type": "Directory", "name": v.name, "contents": {k: ser(x) for k, x in v.contents.items()}}
        if isinstance(v, File):
            return {"__type": "File", "name": v.name, "content": ser(v.content)}
        if isinstance(v, set):
            return {"__set": sorted(ser(x) for x in v)}
        if isinstance(v, dict):
            return {str(k): ser(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [ser(x) for x in v]
        return v

    case = CASES[index]
    long_context = case.get("long_context", False)
    results, state_hashes, state = [], [], None
    for call in case["calls"]:
        [result], instances = execute_multi_turn_func_call(
            [call], json.loads(json.dumps(case["config"])), case["classes"], "fixture", f"case_{index}",
            long_context=long_context, is_evaL_run=False)
        results.append(result if len(result) <= LONG else "sha256:" + hashlib.sha256(result.encode()).hexdigest())
        state = {c: {k: ser(v) for k, v in vars(i).items() if not k.startswith("_")} for c, i in instances.items()}
        text = json.dumps(state, sort_keys=True)
        state_hashes.append(hashlib.sha256(text.encode()).hexdigest())
    out = {"name": case["name"], "classes": case["classes"], "long_context": long_context, "config": case["config"],
           "calls": case["calls"], "results": results, "state_sha256": state_hashes}
    if not long_context:
        out["final_state"] = state
    return out


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        print(json.dumps(run_case(int(sys.argv[2]))))
        return
    extra = sys.argv[1:2]
    env_path = ":".join(extra)
    cases = []
    for i in range(len(CASES)):
        env = dict(**__import__("os").environ)
        if env_path:
            env["PYTHONPATH"] = env_path + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        done = subprocess.run([sys.executable, __file__, "--case", str(i)], capture_output=True, text=True, env=env, check=True)
        cases.append(json.loads(done.stdout))
    target = Path(__file__).with_name("api_fixture.json")
    target.write_text(json.dumps({"upstream": "bfcl-eval==2026.3.23", "python": sys.version.split()[0], "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
