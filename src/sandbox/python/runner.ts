/**
 * @module sandbox/python/runner
 * The Python side of the Python backend: a small harness, run as `python -c RUNNER` inside the
 * bubblewrap jail, that loads one environment program and answers the host's calls line by line.
 */

/**
 * Standard-library modules a Python environment program may import. The reference's games use
 * these (`synthetic_game_env.py` injects most of them); nothing here touches files, processes,
 * the network or the clock. The import allowlist is a convenience layer that turns `import os`
 * into a clear error: the boundary is the jail around the process (docs/sandbox.md).
 */
export const PYTHON_ALLOWED_MODULES: readonly string[] = Object.freeze([
  "abc",
  "array",
  "bisect",
  "collections",
  "collections.abc",
  "copy",
  "dataclasses",
  "decimal",
  "enum",
  "fractions",
  "functools",
  "hashlib",
  "heapq",
  "itertools",
  "json",
  "math",
  "numbers",
  "operator",
  "random",
  "re",
  "statistics",
  "string",
  "textwrap",
  "typing",
  "unicodedata",
]);

/**
 * Packages of the sandbox's site folder (requirements-sandbox.txt, installed by
 * scripts/setup-sandbox.sh) a program may import, with their submodules, when the folder is
 * there: numpy (the reference's games) and networkx (RLVE's environments). Their own imports
 * are theirs: the allowlist guards the program's.
 */
export const PYTHON_SITE_MODULES: readonly string[] = Object.freeze(["networkx", "numpy"]);

/**
 * The harness. Protocol: the host writes one JSON line per request, the harness answers one line
 * per request: `O` + the JSON answer, or `E` + `{"kind", "message"}`. The first request carries
 * the source, the per-call output limit and meta defaults; later ones are `{"m": method, "a": arg,
 * "t": timeoutMs}`. A call's CPU deadline is an ITIMER_PROF whose handler exits the process with
 * status 3 (no `except` can catch an exit); the host's wall-clock watchdog backs it up.
 */
export const PYTHON_RUNNER = String.raw`
import sys, os, json, signal, builtins, math, random, re, itertools, collections, functools, string, copy, heapq, operator, statistics, typing

_out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
_in = os.fdopen(os.dup(0), "r", encoding="utf-8", newline="\n")
_null = os.open("/dev/null", os.O_RDWR)
os.dup2(_null, 0); os.dup2(_null, 1); os.dup2(_null, 2)
sys.stdin = None; sys.stdout = open(os.devnull, "w"); sys.stderr = sys.stdout
_exit = os._exit
_LIMIT = [1 << 20]
ALLOWED = set(json.loads(sys.argv[1]))
SITE = sys.argv[2] if len(sys.argv) > 2 else ""
SITE_MODULES = tuple(${JSON.stringify(PYTHON_SITE_MODULES)}) if SITE else ()
if SITE:
    sys.path.insert(0, SITE)
    ALLOWED.update(SITE_MODULES)

class _Fail(Exception):
    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind

def _deadline(signum, frame):
    _exit(3)

signal.signal(signal.SIGPROF, _deadline)

def _arm(ms):
    signal.setitimer(signal.ITIMER_PROF, max(ms, 1) / 1000.0)

def _disarm():
    signal.setitimer(signal.ITIMER_PROF, 0)

_real_import = builtins.__import__

def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level != 0 or (name not in ALLOWED and not name.startswith(tuple(m + "." for m in SITE_MODULES))):
        raise ImportError("import of " + repr(name) + " is not allowed in the sandbox (allowed: " + ", ".join(sorted(ALLOWED)) + ")")
    return _real_import(name, globals, locals, fromlist, level)

def _guest_builtins():
    b = dict(builtins.__dict__)
    for name in ("open", "input", "exit", "quit", "help", "breakpoint", "compile", "exec", "eval", "globals", "locals", "vars", "memoryview", "__loader__", "__spec__", "copyright", "credits", "license"):
        b.pop(name, None)
    b["__import__"] = _guarded_import
    b["print"] = lambda *a, **k: None
    return b

def _namespace():
    ns = {"__name__": "spade_program", "__builtins__": _guest_builtins()}
    C, I, F = collections, itertools, functools
    names = {"itertools": I, "math": math, "random": random, "re": re, "json": json, "collections": C,
             "functools": F, "string": string, "copy": copy, "heapq": heapq, "operator": operator,
             "statistics": statistics, "deque": C.deque, "defaultdict": C.defaultdict, "Counter": C.Counter,
             "OrderedDict": C.OrderedDict, "namedtuple": C.namedtuple, "combinations": I.combinations,
             "permutations": I.permutations, "product": I.product, "chain": I.chain, "accumulate": I.accumulate,
             "reduce": F.reduce, "lru_cache": F.lru_cache, "deepcopy": copy.deepcopy, "heappush": heapq.heappush,
             "heappop": heapq.heappop}
    for t in ("Tuple", "Dict", "List", "Optional", "Union", "Any", "Set", "FrozenSet", "Callable", "Iterable", "Sequence", "Mapping"):
        names[t] = getattr(typing, t)
    ns.update(names)
    return ns

def _offer_numpy(ns, source):
    # The reference injects numpy as np and numpy; importing it costs ~0.1 s, so only programs that name it get it.
    if SITE and re.search(r"\b(?:np|numpy)\b", source):
        try:
            import numpy
        except ImportError:
            return
        ns.setdefault("np", numpy)
        ns.setdefault("numpy", numpy)

def _find_class(ns):
    if isinstance(ns.get("Environment"), type):
        return ns["Environment"]
    for name, obj in list(ns.items()):
        if name.endswith("Env") and name not in ("Env", "ToolUseBaseEnv") and isinstance(obj, type):
            return obj
    return None

def _kebab(name):
    if name.endswith("Env") and len(name) > 3:
        name = name[:-3]
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name)
    s = re.sub(r"[^a-zA-Z0-9]+", "-", s).strip("-").lower()
    return s or "python-program"

_state = {}

def _load(req):
    _LIMIT[0] = int(req["outputBytes"])
    defaults = req.get("defaults") or {}
    ns = _namespace()
    _offer_numpy(ns, req["source"])
    random.seed(0)
    try:
        code = builtins.compile(req["source"], "<program>", "exec")
        builtins.exec(code, ns)
    except SyntaxError as e:
        raise _Fail("compile", "syntax error: " + str(e))
    except (MemoryError, RecursionError) as e:
        raise _Fail("memory", type(e).__name__ + ": " + str(e))
    except BaseException as e:
        raise _Fail("compile", "the program's top level raised " + type(e).__name__ + ": " + str(e))
    cls = _find_class(ns)
    if cls is None:
        raise _Fail("compile", "no environment class: define a class named Environment or one whose name ends in Env")
    max_turns = int(defaults.get("maxTurns", 25))
    try:
        try:
            env = cls(max_turns=max_turns)
        except TypeError:
            env = cls()
    except (MemoryError, RecursionError) as e:
        raise _Fail("memory", type(e).__name__ + ": " + str(e))
    except BaseException as e:
        raise _Fail("compile", "the constructor raised " + type(e).__name__ + ": " + str(e))
    for method in ("reset", "step"):
        if not callable(getattr(env, method, None)):
            raise _Fail("compile", "the environment class has no " + method + "() method")
    _state["env"] = env
    _state["meta"] = _meta(cls, env, ns, defaults)

def _meta(cls, env, ns, defaults):
    given = getattr(cls, "meta", None)
    given = given if isinstance(given, dict) else {}
    doc = ns.get("__doc__") or ""
    m = re.match(r"\s*Generated game for (.+)", doc)
    skill = given.get("skill") or defaults.get("skill") or (m.group(1).strip() if m else None) or "Unknown"
    description = given.get("description") or ((cls.__doc__ or "").strip().split("\n")[0].strip()) or defaults.get("description") or ("Python environment " + cls.__name__)
    turns = given.get("maxTurns", given.get("max_turns"))
    if turns is None:
        own = getattr(env, "max_turns", None)
        turns = own if isinstance(own, int) and not isinstance(own, bool) and own > 0 else defaults.get("maxTurns", 25)
    return {"name": given.get("name") or defaults.get("name") or _kebab(cls.__name__), "skill": skill,
            "description": description, "maxTurns": turns, "tools": given.get("tools", [])}

def _call(method, arg):
    env = _state["env"]
    if method == "meta":
        return _state["meta"]
    if method == "reset":
        random.seed(arg)
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed(arg % 4294967296)
        r = env.reset(seed=arg)
        if isinstance(r, str):
            r = (r, {})
        if not isinstance(r, tuple) or len(r) != 2:
            raise _Fail("contract", "reset(seed) must return (observation, info) or an observation string, got " + type(r).__name__)
        return {"observation": r[0], "info": r[1]}
    if method == "step":
        # A tool-use program (meta tools) gets the whole action: text, answer, toolCalls.
        tools = _state["meta"].get("tools")
        r = env.step(arg if tools else arg["text"])
        if not isinstance(r, tuple) or len(r) not in ((5, 6) if tools else (5,)):
            raise _Fail("contract", "step(action) must return the 5-tuple (observation, reward, terminated, truncated, info)" + (" or with the tool results as a sixth" if tools else "") + ", got " + type(r).__name__)
        reward = r[1]
        if isinstance(reward, int) and not isinstance(reward, bool):
            reward = float(reward)
        out = {"observation": r[0], "reward": reward, "terminated": r[2], "truncated": r[3], "info": r[4]}
        if len(r) == 6 and r[5] is not None:
            out["toolResults"] = r[5]
        return out
    fn = getattr(env, method, None)
    if not callable(fn):
        raise _Fail("contract", "the environment defines no " + method + "() method")
    r = fn()
    if method == "solve" and isinstance(r, str):
        r = {"text": r}
    return r

def _refuse(value):
    # numpy scalars and arrays become plain values, as the reference's float()/bool() conversions make them.
    if type(value).__module__ == "numpy":
        if hasattr(value, "tolist"):
            return value.tolist()
    raise TypeError("a value of type " + type(value).__name__ + " is not JSON")

def _answer(line):
    _out.write(line + "\n")
    _out.flush()

def _serve():
    first = True
    for line in _in:
        req = json.loads(line)
        _arm(int(req["t"]))
        try:
            if first:
                _load(req)
                value = None
            else:
                value = _call(req["m"], req.get("a"))
            try:
                text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=_refuse)
            except (TypeError, ValueError) as e:
                raise _Fail("contract", req.get("m", "load") + "() returned a value that is not JSON: " + str(e))
            if len(text) > _LIMIT[0] or len(text.encode("utf-8", "surrogatepass")) > _LIMIT[0]:
                raise _Fail("output", "the answer is over the " + str(_LIMIT[0]) + "-byte limit")
            reply = "O" + text
        except _Fail as e:
            reply = "E" + json.dumps({"kind": e.kind, "message": str(e)[:500]})
        except (MemoryError, RecursionError) as e:
            reply = "E" + json.dumps({"kind": "memory", "message": type(e).__name__})
        except BaseException as e:
            try:
                message = type(e).__name__ + ": " + str(e)
            except BaseException:
                message = type(e).__name__
            reply = "E" + json.dumps({"kind": "throw", "message": message[:500]})
        _disarm()
        _answer(reply)
        if first and reply[0] == "E":
            _exit(0)
        first = False

_serve()
_exit(0)
`;
