/**
 * @module eval/suites/code/lcb-harness
 * The Python program that grades one LiveCodeBench answer inside the sandbox, behaving as LCB's
 * own `testing_util.run_test` (lcb_runner at 28fef95): the same prelude of imports, stdin/stdout
 * and call-based (LeetCode `class Solution`) problems, a per-test SIGALRM time limit, line-wise
 * output comparison with a Decimal fallback, stop at the first failing test.
 */

/** The line prefix the harness writes its verdict after (on the real stdout, last). */
export const LCB_VERDICT_MARK = "__SPADE_LCB_VERDICT__";

/**
 * LCB's prelude of imports: every solution runs after it (call-based: before the code;
 * stdin/stdout: before the code wrapped into a function).
 */
const PRELUDE = [
  "from string import *",
  "from re import *",
  "from datetime import *",
  "from collections import *",
  "from heapq import *",
  "from bisect import *",
  "from copy import *",
  "from math import *",
  "from random import *",
  "from statistics import *",
  "from itertools import *",
  "from functools import *",
  "from operator import *",
  "from io import *",
  "from sys import *",
  "from json import *",
  "from builtins import *",
  "from typing import *",
  ...[
    "string",
    "re",
    "datetime",
    "collections",
    "heapq",
    "bisect",
    "copy",
    "math",
    "random",
    "statistics",
    "itertools",
    "functools",
    "operator",
    "io",
    "sys",
    "json",
  ].map((m) => `import ${m}`),
  "sys.setrecursionlimit(50000)",
  "",
].join("\n");

// The grader. Verdicts per test: True, -2 wrong answer, -3 time limit, -4 runtime error (as LCB).
const GRADER = String.raw`
import ast, base64, builtins, faulthandler, json, signal, sys, time
from decimal import Decimal
from io import StringIO
from types import ModuleType
from unittest.mock import patch, mock_open

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(50000)

_REAL_STDOUT = sys.stdout
_CASE = json.loads(base64.b64decode(_PAYLOAD).decode("utf-8"))


class TimeoutException(Exception):
    pass


def _alarm(signum, frame):
    raise TimeoutException


def _short(value, length=300):
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= length else text[: length // 2] + "...(truncated) ..." + text[-length // 2 :]


def _verdict(results, meta):
    _REAL_STDOUT.write("\n" + _MARK + " " + json.dumps({"results": results, "meta": meta}) + "\n")
    _REAL_STDOUT.flush()


class _Capture(list):
    def __enter__(self):
        self._saved = sys.stdout
        sys.stdout = self._buffer = StringIO()
        self._buffer.close = lambda *args: 1
        return self

    def __exit__(self, *args):
        self.append(self._buffer.getvalue())
        sys.stdout = self._saved


class _Bytes:
    def __init__(self, text):
        self.data = text.encode("utf-8")

    def read(self, *args):
        return self.data

    def readline(self, *args):
        return self.data.split(b"\n")[0] + b"\n"


class _Stdin:
    def __init__(self, text):
        self.inputs = text
        self._io = StringIO(text)
        self.buffer = _Bytes(text)

    def read(self, *args):
        return self.inputs

    def readline(self, *args):
        return self._io.readline(*args)

    def readlines(self, *args):
        return self.inputs.split("\n")

    def __getattr__(self, name):
        return getattr(self._io, name)


def _without_main_guard(code):
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            code = ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:
        pass
    return code


def _as_function(code):
    try:
        tree = ast.parse(code)
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        rest = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        fn = ast.FunctionDef(name="wrapped_function", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=rest, decorator_list=[], lineno=-1)
        return _PRELUDE + "\n" + ast.unparse(imports) + "\n" + ast.unparse(fn)
    except Exception:
        return code


def _compile(code, timeout):
    signal.alarm(timeout)
    try:
        module = ModuleType("tmp_sol", "")
        exec(code, module.__dict__)
        solution = module.Solution() if "class Solution" in code else module
        assert solution is not None
    finally:
        signal.alarm(0)
    return solution


def _call_with_stdin(method, inputs):
    if isinstance(inputs, list):
        inputs = "\n".join(inputs)
    lines = iter(inputs.split("\n"))
    fake = _Stdin(inputs)

    # The same patches, entered in the same order, as LCB's call_method.
    @patch("builtins.open", mock_open(read_data=inputs))
    @patch("sys.stdin", fake)
    @patch("sys.stdin.readline", lambda *args: next(lines))
    @patch("sys.stdin.readlines", lambda *args: inputs.split("\n"))
    @patch("sys.stdin.read", lambda *args: inputs)
    def inner(m):
        try:
            return m()
        except SystemExit:
            pass

    return inner(method)


def _decimals(line):
    try:
        return True, [Decimal(x) for x in line.split()]
    except Exception:
        return False, []


def _lines(text):
    return [line.strip() for line in text.strip().split("\n")]


def _failure(results, code, message, error, inputs, expected):
    results.append(code)
    return results, {"error": repr(error), "error_code": code, "error_message": message, "inputs": _short(inputs), "expected": _short(expected)}


def _raised(results, error, inputs, expected):
    # A test whose run raised: LCB's time limit (-3) when it was the alarm, else a runtime error (-4).
    if "timeoutexception" in repr(error).lower():
        return _failure(results, -3, "Time Limit Exceeded", error, inputs, expected)
    return _failure(results, -4, "Runtime Error", error, inputs, expected)


def _guarded(timeout, run):
    # One test as LCB runs it: under the alarm and faulthandler, both off again whatever happens.
    # (what run returned, None), or (None, the exception it raised).
    signal.alarm(timeout)
    faulthandler.enable()
    try:
        return run(), None
    except Exception as e:
        return None, e
    finally:
        signal.alarm(0)
        faulthandler.disable()


def _call_based(code, inputs, outputs, fn_name, timeout):
    solution = _compile(_PRELUDE + "\n\n" + code, timeout)
    method = getattr(solution, fn_name, None)
    if method is None:
        return None
    args_by_test = [[json.loads(line) for line in text.split("\n")] for text in inputs]
    expected_by_test = [json.loads(text) for text in outputs]
    results = []
    for args, expected in zip(args_by_test, expected_by_test):
        def judged():
            # As LCB: the comparison runs inside the guard (a raising __eq__ is a runtime error).
            got = method(*args)
            signal.alarm(0)
            if isinstance(got, tuple):
                got = list(got)
            return got, got == expected
        answer, error = _guarded(timeout, judged)
        if error is not None:
            return _raised(results, error, args, expected)
        got, ok = answer
        results.append(ok)
        if not ok:
            return results, {"output": _short(got), "inputs": _short(args), "expected": _short(expected), "error_code": -2, "error_message": "Wrong Answer"}
    return results, {}


def _stdin_based(code, inputs, outputs, timeout):
    solution = _compile(_as_function(_without_main_guard(code)), timeout)
    method = getattr(solution, "wrapped_function", None)
    if method is None:
        return None
    results = []
    for given, expected in zip(inputs, outputs):
        with _Capture() as captured:
            _, error = _guarded(timeout, lambda: _call_with_stdin(method, given))
        if error is not None:
            return _raised(results, error, given, expected)
        got = captured[0]
        wrong = {"output": _short(got), "inputs": _short(given), "expected": _short(expected), "error_code": -2}
        got_lines, expected_lines = _lines(got), _lines(expected)
        if len(got_lines) != len(expected_lines):
            results.append(-2)
            wrong["error_message"] = "Wrong answer: mismatched output length"
            return results, wrong
        for index, (a, b) in enumerate(zip(got_lines, expected_lines)):
            wrong["error_message"] = "Wrong answer at output_line_idx=%d: %s != %s" % (index, _short(a), _short(b))
            if a == b:
                continue
            ok_a, dec_a = _decimals(a)
            ok_b, dec_b = _decimals(b)
            if not (ok_a and ok_b) or dec_a != dec_b:
                results.append(-2)
                return results, wrong
        results.append(True)
    return results, {}


def _guard():
    # LCB's reliability_guard (without a memory limit: the sandbox sets one).
    import os, shutil, subprocess
    faulthandler.disable()
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ["kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"]:
        setattr(os, name, None)
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for name in ["ipdb", "joblib", "resource", "psutil", "tkinter"]:
        sys.modules[name] = None


def _main():
    signal.signal(signal.SIGALRM, _alarm)
    _guard()
    timeout = _CASE["timeout"]
    try:
        if _CASE["fn_name"] is None:
            graded = _stdin_based(_CASE["code"], _CASE["inputs"], _CASE["outputs"], timeout)
        else:
            graded = _call_based(_CASE["code"], _CASE["inputs"], _CASE["outputs"], _CASE["fn_name"], timeout)
    except BaseException as e:
        graded = ([-4], {"error_code": -4, "error_message": "Error during testing: %s" % (e,)})
    finally:
        signal.alarm(0)
    if graded is None:
        graded = ([-4], {"error_code": -4, "error_message": "no function to call"})
    _verdict(graded[0], {k: v if isinstance(v, (int, str)) else str(v) for k, v in graded[1].items()})


_main()
`;

/** What the harness grades: the answer's code, the tests, the function name for call-based problems. */
export interface LcbCase {
  code: string;
  inputs: readonly string[];
  outputs: readonly string[];
  /** The method of `class Solution` (or module-level function) for functional tests; null for stdin/stdout. */
  fnName: string | null;
  /** Seconds per test (LCB's default is 6). */
  timeoutSeconds: number;
}

/** The complete Python program grading one case; its verdict is the last stdout line after `LCB_VERDICT_MARK`. */
export function lcbHarness(c: LcbCase): string {
  const payload = Buffer.from(
    JSON.stringify({
      code: c.code,
      inputs: c.inputs,
      outputs: c.outputs,
      fn_name: c.fnName,
      timeout: c.timeoutSeconds,
    }),
    "utf8",
  ).toString("base64");
  return `_PAYLOAD = "${payload}"\n_MARK = ${JSON.stringify(LCB_VERDICT_MARK)}\n_PRELUDE = ${JSON.stringify(PRELUDE)}\n${GRADER}`;
}
