#!/usr/bin/env bash
# Installs llama.cpp's OpenAI-compatible server (llama-cpp-python[server], requirements-llama-server.txt)
# for the test against a real server (test/e2e/llama-server.test.ts), into a virtual environment
# OUTSIDE the repository, cached at ${SPADE_LLAMA_SERVER_DIR:-$HOME/.cache/spade/llama-server} and
# reinstalled only when the requirements (or this script, or scripts/lib/cached-venv.sh) change.
# The install compiles llama.cpp for the CPU (no CUDA, no BLAS): 68 minutes on 2 cores under heavy
# load, once (pip keeps the wheel). Idempotent; `npm test` runs it. Prints the server's Python on stdout.
set -euo pipefail
source "$(dirname "$0")/lib/cached-venv.sh"
cd "$(dirname "$0")/.."
# CPU only, portable across this machine's kind; pip keeps the built wheel in its cache, so a
# reinstall after a requirements change that keeps llama-cpp-python's version does not compile again.
cached_venv --name llama-server --dir-var SPADE_LLAMA_SERVER_DIR \
  --requirements requirements-llama-server.txt \
  --note "compiles llama.cpp for the CPU: many minutes, once" \
  --pip-env "CMAKE_ARGS=-DGGML_CUDA=OFF -DGGML_BLAS=OFF -DLLAMA_CURL=OFF" \
  --pip-env "CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)"
