#!/usr/bin/env bash
# Installs the independent training engine the engine tests run against: SkyRL's Tinker server
# (JAX backend, CPU) into a virtual environment OUTSIDE the repository, cached between runs at
# ${SPADE_ENGINE_DIR:-$HOME/.cache/spade/engine}, reinstalled only when requirements-engine.txt
# (or this script, or scripts/lib/cached-venv.sh) changes. Idempotent; `npm test` runs it. Prints
# the engine's Python on stdout.
set -euo pipefail
source "$(dirname "$0")/lib/cached-venv.sh"
cd "$(dirname "$0")/.."
# SkyRL 0.3.0 supports Python 3.11 (3.12+ also works); the launcher papers over 3.11's TypedDict.
# --no-deps: the pinned list is the complete closure MINUS torch, peft and accelerate (peft and
# accelerate require torch, whose PyPI wheel pulls several GB of CUDA libraries). The JAX backend
# never uses torch; peft is used only to write adapter_config.json, which the launcher does itself.
# Bytecode is compiled at install (pip's default), once: the tests start the server (and its
# helper scripts) many times.
cached_venv --name engine --dir-var SPADE_ENGINE_DIR --requirements requirements-engine.txt \
  --python-var SPADE_ENGINE_PYTHON --min-python 3.11 \
  --note "~1 GB, under a minute on a fast network; cached afterwards"
