# Scores ACEBench normal/special outputs with upstream's own eval_main.py (a source tree given
# as argv[1]) for the cross-check test in src/eval/acebench/categories.test.ts. No upstream code
# is kept here: the tree is read from an ACEBench checkout the caller provides.
#   python acebench-upstream-check.py UPSTREAM_DIR DATA_EN_DIR OUTPUTS_JSON  -> JSON on stdout
# OUTPUTS_JSON: {category: [output string per entry, in entry order]}.
# Output: {category: {"accuracy": x, "wrong": [ids], "exception": null | "Type: msg"}}.
import json
import os
import sys
import tempfile
import types


def stub_modules():
    """eval_main imports pandas and openpyxl only for its Excel report; stand-ins keep them out."""
    for name in ["pandas", "openpyxl", "openpyxl.styles"]:
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["openpyxl"].Workbook = object
    sys.modules["openpyxl.styles"].Alignment = object


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    upstream, data_dir, outputs_path = sys.argv[1:4]
    stub_modules()
    sys.path.insert(0, upstream)
    import eval_main  # noqa: E402  (upstream's module, from the given tree)

    out_dir = tempfile.mkdtemp(prefix="acebench-check-")
    eval_main.OUTPUT_PATH = out_dir
    eval_main.convert_result_to_excel = lambda *a, **k: None
    with open(outputs_path, encoding="utf-8") as f:
        outputs = json.load(f)
    report = {}
    for category, results in outputs.items():
        prompt = read_lines(os.path.join(data_dir, f"data_{category}.json"))
        answers = read_lines(os.path.join(data_dir, "possible_answer", f"data_{category}.json"))
        model_result = [{"id": p["id"], "result": r} for p, r in zip(prompt, results)]
        entry = {"accuracy": None, "wrong": [], "exception": None}
        try:
            if "special" in category:
                acc = eval_main.special_eval(model_result, prompt, answers, category, "m", None)
            elif "normal_multi_turn" in category:
                acc = eval_main.normal_multi_turn_eval(model_result, prompt, answers, category, "m", None)
            else:
                acc = eval_main.normal_single_turn_eval(model_result, prompt, answers, category, "m", None)
            entry["accuracy"] = acc
            score = read_lines(os.path.join(out_dir, "m", f"data_{category}_score.json"))
            entry["wrong"] = [row["id"] for row in score[1:]]
        except Exception as e:  # upstream's run stops here; the test compares where it can
            entry["exception"] = f"{type(e).__name__}: {e}"
        report[category] = entry
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
