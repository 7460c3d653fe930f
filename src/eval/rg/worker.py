# reasoning-gym worker for SPADE: generates problems of the reasoning-gym hard split with the real
# `reasoning_gym` package and grades answers with each dataset's own `score_answer`.
# Protocol: one JSON request per line on stdin, one JSON response per line on the protocol stream.
"""Long-lived helper process of `src/eval/rg/worker.ts`.

Requests (one JSON object per line):
  {"id": 1, "op": "hello"}
  {"id": 2, "op": "generate", "dataset": "ab", "config": {...}, "episode": 0}
  {"id": 3, "op": "score", "dataset": "ab", "config": {...}, "episode": 0, "text": "<answer>...</answer>"}
Responses: {"id": 1, "ok": true, ...} or {"id": 1, "ok": false, "kind": "...", "error": "..."}.

Problems are drawn as the SPADE reference draws them (spade/core/envs/gem_adapter.py,
SpadeReasoningGymEnv): the dataset is `reasoning_gym.create_dataset(name, size=500, seed=42,
**config)`; episode `e` seeds Python's and NumPy's global generators with `e` (GEM's
`Env.reset(seed)`) and takes `random.choice(dataset)`. The answer is the last
`<answer>...</answer>` payload, else the last `\\boxed{...}`, as the reference extracts it.
"""

import collections
import json
import os
import random
import re
import signal
import sys
import traceback

# Everything the libraries print goes to stderr; the protocol has its own copy of stdout.
PROTOCOL = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr

# A request that runs longer is stopped inside the worker (some hard configurations never finish
# generating a problem, e.g. number_sequence episode 3: its numbers grow doubly exponentially).
REQUEST_SECONDS = float(os.environ.get("SPADE_RG_REQUEST_SECONDS", "240"))
DATASET_SIZE = 500
DATASET_SEED = 42
PROMPT_SUFFIX = "\n\nPut your final answer within \\boxed{}."

try:
    import numpy as np
    import reasoning_gym as rg
    from importlib.metadata import version as _version

    RG_VERSION = _version("reasoning_gym")
    IMPORT_ERROR = None
except Exception as exc:  # noqa: BLE001 - reported to the caller as data
    IMPORT_ERROR = f"{type(exc).__name__}: {exc}"

_datasets = {}
_entries = {}


def dataset(name, config):
    key = (name, json.dumps(config, sort_keys=True))
    if key not in _datasets:
        _datasets[key] = rg.create_dataset(name, size=DATASET_SIZE, seed=DATASET_SEED, **config)
    return _datasets[key]


def entry_of(name, config, episode):
    key = (name, json.dumps(config, sort_keys=True), episode)
    if key not in _entries:
        ds = dataset(name, config)
        random.seed(episode)
        np.random.seed(episode)
        _entries[key] = random.choice(ds)
    return _entries[key]


# --- answer extraction, as the reference's SpadeReasoningGymEnv.step --------------------------

ANSWER_TAG = re.compile(r"<answer>\s*(.*?)\s*</answer>", re.DOTALL | re.IGNORECASE)


def last_boxed(text):
    """GEM's extract_last_boxed_answer: the content of the last \\boxed{...} (None for \\fbox)."""
    start = text.rfind("\\boxed")
    if start < 0:
        start = text.rfind("\\fbox")
        if start < 0:
            return None
    depth = 0
    end = None
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        if text[i] == "}":
            depth -= 1
            if depth == 0:
                end = i
                break
    if end is None:
        return None
    boxed = text[start : end + 1]
    if not boxed.startswith("\\boxed{") or not boxed.endswith("}"):
        return None
    return boxed[len("\\boxed{") : -1]


def extract_answer(text):
    matches = ANSWER_TAG.findall(text)
    if matches:
        return matches[-1].strip()
    return last_boxed(text)


# --- reference answers for datasets whose entries carry none (answer None) -----------------------


def rubiks_inverse(scramble):
    """The scramble undone, in moves `score_answer` accepts (it drops moves that start with a digit)."""
    from magiccube.cube_move import CubeMove

    out = []
    for text in reversed(scramble.split()):
        move = CubeMove.create(text)
        face = move.type.name
        undo = "" if move.is_reversed else "'"
        redo = "'" if move.is_reversed else ""
        for _ in range(move.count):
            if move.wide and move.layer == 1 or not move.wide and move.layer == 1:
                out.append(face + undo)
            elif move.wide and move.layer == 2:
                out.append(face + "w" + undo)
            elif not move.wide and move.layer == 2:
                # inner slice 2 = wide(1..2) then the outer layer back
                out.extend([face + "w" + undo, face + redo])
            else:
                raise ValueError(f"no digit-free inverse for move {text}")
    return " ".join(out)


def rush_hour_solution(config):
    """Breadth-first search over single-step moves, each simulated by the package's own Board.move."""
    from reasoning_gym.games.rush_hour import Board, H

    board = Board(config)
    pieces = board._pieces
    movable = [i for i, p in enumerate(pieces) if not p.fixed]

    def load(positions):
        # Put every piece at its position and rebuild the board's occupancy masks (as add_piece does).
        board._horz_mask = board._vert_mask = 0
        for piece, position in zip(pieces, positions):
            piece.position = position
            piece.mask = 0
            p = position
            for _ in range(piece.size):
                piece.mask |= 1 << p
                p += piece.stride
            if piece.stride == H:
                board._horz_mask |= piece.mask
            else:
                board._vert_mask |= piece.mask

    start = tuple(p.position for p in pieces)
    parent = {start: None}
    queue = collections.deque([start])
    while queue:
        state = queue.popleft()
        load(state)
        if board.solved:
            path = []
            while parent[state] is not None:
                state, move = parent[state]
                path.append(move)
            return " ".join(reversed(path))
        for i in movable:
            letter = chr(ord("A") + i)
            for step in (1, -1):
                load(state)
                board.move(letter, step)
                nxt = tuple(p.position for p in pieces)
                if nxt not in parent:
                    parent[nxt] = (state, f"{letter}{'+' if step > 0 else '-'}1")
                    queue.append(nxt)
    raise ValueError("rush hour board has no solution")


def reference_answer(name, entry):
    """The entry's answer, or one built from its metadata when the entry has none."""
    if entry.get("answer") is not None:
        return str(entry["answer"]), "answer"
    meta = entry.get("metadata", {})
    if name == "graph_color":
        return json.dumps(meta["possible_answer"]), "metadata.possible_answer"
    if name == "propositional_logic":
        return str(meta["example_answer"]), "metadata.example_answer"
    if name == "rubiks_cube":
        return rubiks_inverse(meta["scramble_moves"]), "inverse of metadata.scramble_moves"
    if name == "rush_hour":
        return rush_hour_solution(meta["board_config"]), "breadth-first search on metadata.board_config"
    return None, "none"


# --- requests -------------------------------------------------------------------------------------


def handle(request):
    op = request.get("op")
    if op == "hello":
        if IMPORT_ERROR is not None:
            return {"ok": False, "kind": "import", "error": IMPORT_ERROR}
        return {"ok": True, "python": sys.version.split()[0], "reasoningGym": RG_VERSION}
    if IMPORT_ERROR is not None:
        return {"ok": False, "kind": "import", "error": IMPORT_ERROR}
    name, config, episode = request["dataset"], request.get("config", {}), int(request["episode"])
    entry = entry_of(name, config, episode)
    if op == "generate":
        reference, source = reference_answer(name, entry)
        return {
            "ok": True,
            "question": entry["question"] + PROMPT_SUFFIX,
            "index": entry.get("metadata", {}).get("source_index"),
            "reference": reference,
            "referenceSource": source,
        }
    if op == "score":
        extracted = extract_answer(request["text"])
        score = dataset(name, config).score_answer(answer=extracted, entry=entry)
        return {"ok": True, "score": float(score), "extracted": extracted}
    return {"ok": False, "kind": "request", "error": f"unknown op {op!r}"}


class RequestTimeout(BaseException):
    """A BaseException, so that the libraries' own `except Exception` retries cannot swallow it."""


def _on_alarm(signum, frame):
    raise RequestTimeout(f"request ran over {REQUEST_SECONDS:g} s")


def main():
    signal.signal(signal.SIGALRM, _on_alarm)
    for line in sys.stdin:
        if not line.strip():
            continue
        request_id = None
        try:
            request = json.loads(line)
            request_id = request.get("id")
            signal.setitimer(signal.ITIMER_REAL, REQUEST_SECONDS)
            try:
                response = handle(request)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except RequestTimeout as exc:
            response = {"ok": False, "kind": "timeout", "error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - a failed request is data for the caller
            traceback.print_exc(file=sys.stderr)
            response = {"ok": False, "kind": "exception", "error": f"{type(exc).__name__}: {exc}"[:2000]}
        response["id"] = request_id
        PROTOCOL.write(json.dumps(response) + "\n")


if __name__ == "__main__":
    main()
