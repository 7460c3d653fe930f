"""Upstream's single-turn verdicts for generated model outputs, for single/crosscheck.test.ts.

Usage: python crosscheck_single.py CASES.json BFCL_EVAL_DATA_DIR (needs `bfcl_eval` importable:
the project virtualenv from requirements-test.txt). CASES.json holds [{"key", "id", "category",
"output"}] where "output" is the decoded model result (a list of {name: {param: value}}).
Prints one JSON object {key: [valid, error_type]} on stdout.

AST categories go through upstream's ast_checker with the category's language (an exception\nit raises is recorded as exception:<type>); relevance categories
through upstream's is_empty_output, as eval_runner's relevance runner does. The model-config
table is replaced by one model whose underscore_to_dot is False (it is the only thing
ast_checker reads from it), so the check does not import every provider's SDK; filelock likewise.
"""
import json
import sys
import types

stub = types.ModuleType("bfcl_eval.constants.model_config")
stub.MODEL_CONFIG_MAPPING = {"spade/xcheck": types.SimpleNamespace(underscore_to_dot=False)}
sys.modules["bfcl_eval.constants.model_config"] = stub
# bfcl_eval.utils imports filelock (not in requirements-test.txt, installed --no-deps); only its
# file-writing helpers use it, never is_empty_output.
filelock = types.ModuleType("filelock")
filelock.FileLock = object
sys.modules.setdefault("filelock", filelock)

from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.utils import is_empty_output  # noqa: E402


def jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    cases_path, data_dir = sys.argv[1], sys.argv[2]
    with open(cases_path) as f:
        cases = json.load(f)
    prompts, answers = {}, {}
    for category in sorted({c["category"] for c in cases}):
        for e in jsonl(f"{data_dir}/BFCL_v4_{category}.json"):
            prompts[e["id"]] = e
        if "relevance" not in category:
            for a in jsonl(f"{data_dir}/possible_answer/BFCL_v4_{category}.json"):
                answers[a["id"]] = a["ground_truth"]
    verdicts = {}
    for case in cases:
        category, output = case["category"], case["output"]
        if "relevance" in category:
            contains = not is_empty_output(output)
            ok = (not contains) if "irrelevance" in category else contains
            kind = "irrelevance_error:decoder_success" if "irrelevance" in category else "relevance_error:decoder_failed"
            verdicts[case["key"]] = [ok, None if ok else kind]
            continue
        language = Language.JAVASCRIPT if "javascript" in category else Language.JAVA if "java" in category else Language.PYTHON
        try:
            r = ast_checker(prompts[case["id"]]["function"], output, answers[case["id"]], language, category, "spade_xcheck")
        except Exception as e:  # upstream's checker raises (e.g. Java Set conversion): recorded as such
            verdicts[case["key"]] = [False, f"exception:{type(e).__name__}"]
            continue
        verdicts[case["key"]] = [r["valid"], None if r["valid"] else r["error_type"]]
    print(json.dumps(verdicts))


if __name__ == "__main__":
    main()
