"""Starts SkyRL's Tinker-compatible server (JAX backend, CPU) for SPADE's engine tests.

An independent engine nobody in this project wrote: this file only launches it, working around
three things SkyRL 0.3.0 assumes about its host (see `patch_skyrl`). Run it with the engine's
Python (scripts/setup-engine.sh prints it):

    python scripts/engine/launch.py --base-model DIR [--port 0] [--work-dir DIR] [-- EXTRA SKYRL ARGS]

It prints `SPADE_ENGINE_URL=http://127.0.0.1:PORT` on stdout once the API answers AND the engine
process has loaded the base model, then serves until it gets SIGTERM/SIGINT or its parent dies.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import types
import urllib.request

READY_FILE_ENV = "SPADE_ENGINE_READY_FILE"


def die_with_parent() -> None:
    """Ends this process when its parent ends (a test runner killed mid-run leaves no server)."""
    parent = os.getppid()
    try:
        # PR_SET_PDEATHSIG = 1: the kernel sends SIGTERM when the parent exits.
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except OSError:
        pass  # not Linux: the watchdog below still works

    def watchdog() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(10.0)
                os._exit(1)  # graceful shutdown hung

    threading.Thread(target=watchdog, daemon=True).start()


def patch_skyrl() -> None:
    """Adapts SkyRL to this host before it is imported (nothing in site-packages is edited).

    1. Python 3.11: SkyRL's pydantic models use `typing.TypedDict`, which pydantic accepts only
       from 3.12; `typing_extensions.TypedDict` is the drop-in it asks for.
    2. peft is imported only to write `adapter_config.json` next to saved LoRA weights, but it
       requires torch (several GB of CUDA wheels from PyPI) while the JAX backend never uses
       torch. When peft is absent, a stand-in `peft.LoraConfig` writes the same JSON file.
    3. `skyrl.backends.renderer` imports torch at module level, for multimodal (image) inputs
       only; the text path never touches it. When torch is absent that one import sees a
       stand-in that fails on use, removed again at once so nothing else mistakes it for torch.
    """
    if sys.version_info < (3, 12):
        import typing

        import typing_extensions

        typing.TypedDict = typing_extensions.TypedDict  # type: ignore[misc]
    try:
        import peft  # noqa: F401
    except ImportError:
        sys.modules["peft"] = _peft_standin()
    try:
        import torch  # noqa: F401
    except ImportError:
        # Everything the renderer imports besides torch first, so no other module sees the stand-in.
        import skyrl.tinker.types  # noqa: F401
        import transformers  # noqa: F401

        sys.modules["torch"] = _torch_standin()
        try:
            import skyrl.backends.renderer  # noqa: F401
        finally:
            del sys.modules["torch"]


def _peft_standin() -> types.ModuleType:
    """A module with the one peft symbol SkyRL uses: `LoraConfig(...).save_pretrained(dir)`."""
    module = types.ModuleType("peft")

    class LoraConfig:
        """Writes `adapter_config.json` as peft 0.18 does for a plain LoRA adapter."""

        def __init__(self, base_model_name_or_path: str | None = None, r: int = 8, lora_alpha: float = 8, **extra):
            self.fields = {
                "peft_type": "LORA",
                "task_type": None,
                "base_model_name_or_path": base_model_name_or_path,
                "r": r,
                "lora_alpha": lora_alpha,
                "lora_dropout": 0.0,
                "bias": "none",
                "target_modules": None,
                "inference_mode": True,
                **extra,
            }

        def save_pretrained(self, directory) -> None:
            os.makedirs(directory, exist_ok=True)
            with open(os.path.join(str(directory), "adapter_config.json"), "w") as f:
                json.dump(self.fields, f, indent=2)

    module.LoraConfig = LoraConfig  # type: ignore[attr-defined]
    return module


def _torch_standin() -> types.ModuleType:
    """A `torch` whose every attribute fails: reaching it means a multimodal request."""

    class Missing(types.ModuleType):
        def __getattr__(self, name: str):
            raise ImportError(f"torch.{name}: torch is not installed (SPADE runs SkyRL's JAX backend without it; image inputs need torch)")

    return Missing("torch")


def run_engine(argv: list[str]) -> None:
    """The engine process: SkyRL's `skyrl.tinker.engine` main, plus a ready marker after the model loads."""
    die_with_parent()
    patch_skyrl()
    from skyrl.tinker.config import EngineConfig, add_model
    from skyrl.tinker.engine import TinkerEngine

    parser = argparse.ArgumentParser(description="SkyRL tinker engine (launched by SPADE)")
    add_model(parser, EngineConfig)
    config = EngineConfig.model_validate(vars(parser.parse_args(argv)))
    engine = TinkerEngine(config)
    ready_file = os.environ.get(READY_FILE_ENV)
    if ready_file:
        with open(ready_file, "w") as f:
            f.write(str(os.getpid()))
    engine.run()


def wait_ready(url: str, model: str, ready_file: str, started: float) -> None:
    """Prints the base model (as the engine names it) and the URL once the API answers and the engine has loaded the model."""
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/v1/healthz", timeout=2) as response:
                api_up = response.status == 200
        except OSError:
            api_up = False
        if api_up and os.path.exists(ready_file):
            break
        time.sleep(0.1)
    print(f"engine ready in {time.time() - started:.1f} s", file=sys.stderr, flush=True)
    print(f"SPADE_ENGINE_MODEL={model}", flush=True)
    print(f"SPADE_ENGINE_URL={url}", flush=True)


def resolve_model(name: str) -> str:
    """A local folder as an absolute path; a Hugging Face name downloaded once into the HF cache, as its folder.

    The engine and SPADE's renderer then read weights and tokenizer files from the same place.
    """
    if os.path.isdir(name):
        return os.path.abspath(name)
    from huggingface_hub import snapshot_download

    print(f"downloading {name} from the Hugging Face hub (once; cached)", file=sys.stderr, flush=True)
    return snapshot_download(name, allow_patterns=["*.json", "*.safetensors", "*.txt", "*.model", "*.jinja"])


def run_api(argv: list[str]) -> None:
    """The API process: SkyRL's `skyrl.tinker.api` server on loopback, its engine started with this Python."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-model", required=True, help="folder of the base model (config.json, safetensors, tokenizer), or a Hugging Face name (downloaded once into the HF cache)")
    parser.add_argument("--backend", default="jax", choices=["jax", "fsdp", "megatron"], help="SkyRL's training backend (jax: CPU or one GPU; fsdp/megatron need SkyRL's torch extras)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: an ephemeral port")
    parser.add_argument("--work-dir", default=None, help="database and checkpoints; default a temp dir removed at exit")
    parser.add_argument("--backend-config", default="{}", help="JSON for SkyRL's --backend-config")
    parser.add_argument("--nice", type=int, default=0, help="lower the server's CPU priority (the engine process inherits it)")
    args, extra = parser.parse_known_args(argv)
    extra = [a for a in extra if a != "--"]
    started = time.time()
    if args.nice:
        os.nice(args.nice)
    die_with_parent()
    patch_skyrl()
    import uvicorn
    from skyrl.tinker import api
    from skyrl.tinker.config import EngineConfig, add_model, config_to_argv
    from skyrl.utils.log import get_uvicorn_log_config

    own_dir = args.work_dir is None
    work_dir = tempfile.mkdtemp(prefix="spade-engine-") if own_dir else os.path.abspath(args.work_dir)
    os.makedirs(work_dir, exist_ok=True)
    ready_file = os.path.join(work_dir, "engine.ready")
    if os.path.exists(ready_file):
        os.remove(ready_file)
    os.environ[READY_FILE_ENV] = ready_file

    base_model = resolve_model(args.base_model)
    skyrl_parser = argparse.ArgumentParser()
    add_model(skyrl_parser, EngineConfig)
    skyrl_args = [
        "--base-model", base_model,
        "--backend", args.backend,
        "--backend-config", args.backend_config,
        # The default database lives inside site-packages: one per server instead.
        "--database-url", f"sqlite:///{os.path.join(work_dir, 'tinker.db')}",
        "--checkpoints-base", os.path.join(work_dir, "checkpoints"),
        # Tests pause between calls longer than a heartbeat period at times; never expire sessions.
        "--session-timeout-sec", "-1",
        *extra,
    ]
    config = EngineConfig.model_validate(vars(skyrl_parser.parse_args(skyrl_args)))

    # SkyRL starts its engine with `uv run <the API's uv flags> -m skyrl.tinker.engine`; this host
    # has no uv project: run the engine with this Python through this launcher instead.
    api._build_uv_run_cmd_engine = lambda _parent_cmd, engine_config: [sys.executable, os.path.abspath(__file__), "engine", *config_to_argv(engine_config)]
    api.app.state.engine_config = config

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    url = f"http://{args.host}:{sock.getsockname()[1]}"
    threading.Thread(target=wait_ready, args=(url, base_model, ready_file, started), daemon=True).start()
    server = uvicorn.Server(uvicorn.Config(api.app, log_config=get_uvicorn_log_config(), log_level="warning"))
    # uvicorn re-raises the signal that stopped it once it has shut down (engine included); with
    # the default handler that would end the process before the work dir is removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.run(sockets=[sock])
    finally:
        if own_dir:
            shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "engine":
        run_engine(sys.argv[2:])
    else:
        run_api(sys.argv[1:])
