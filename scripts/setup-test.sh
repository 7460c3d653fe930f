#!/usr/bin/env bash
# Everything the test suite needs besides node_modules, each step cached (`npm test` runs this):
# the project's .venv, the Python sandbox's jail, and the cached tools under ~/.cache/spade/
# (training engine, tau2-bench, TensorBoard, openenv-core, llama.cpp's server) plus Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-python.sh
bash scripts/setup-sandbox.sh
for step in engine tau2 browser tensorboard openenv llama-server; do
  echo "setup-test: $step" >&2
  bash "scripts/setup-$step.sh" >/dev/null
done
