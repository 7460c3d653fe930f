"""Upstream's verdicts for recorded model outputs, for crosscheck.test.ts.

Usage: python crosscheck.py CASES.json BFCL_DATA_DIR  (needs `bfcl_eval` importable: the project
virtualenv from requirements-test.txt). CASES.json holds [{"key", "id", "category", "model"}]
where "model" is the decoded model result: per turn, per step, the call strings of that step.
Prints one JSON object {key: [valid, error_type]} on stdout.

Each case runs as upstream's eval runner runs an entry: force-termination check (turn counts),
empty steps dropped, then multi_turn_checker. Every case gets its own model name, since upstream
caches live instances in module globals under model name and entry id.
"""
import json
import sys

from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import is_empty_execute_response


def load(data_dir, category):
    entries, answers = {}, {}
    with open(f"{data_dir}/bfcl_eval/data/BFCL_v4_multi_turn_{category}.json") as f:
        for line in f:
            if line.strip():
                e = json.loads(line)
                entries[e["id"]] = e
    with open(f"{data_dir}/bfcl_eval/data/possible_answer/BFCL_v4_multi_turn_{category}.json") as f:
        for line in f:
            if line.strip():
                a = json.loads(line)
                answers[a["id"]] = a["ground_truth"]
    return entries, answers


def main():
    cases_path, data_dir = sys.argv[1], sys.argv[2]
    with open(cases_path) as f:
        cases = json.load(f)
    loaded = {}
    verdicts = {}
    for n, case in enumerate(cases):
        category = case["category"]
        if category not in loaded:
            loaded[category] = load(data_dir, category)
        entries, answers = loaded[category]
        entry, truth = entries[case["id"]], answers[case["id"]]
        model = case["model"]
        if len(model) != len(truth):
            verdicts[case["key"]] = [False, "multi_turn:force_terminated"]
            continue
        decoded = [[step for step in turn if not is_empty_execute_response(step)] for turn in model]
        result = multi_turn_checker(decoded, truth, dict(entry), entry["id"].rsplit("_", 1)[0], f"xc{n}")
        verdicts[case["key"]] = [result["valid"], result.get("error_type")]
    print(json.dumps(verdicts))


if __name__ == "__main__":
    main()
