#!/usr/bin/env bash
# Installs llama.cpp's OpenAI-compatible server (llama-cpp-python[server], requirements-llama-server.txt)
# for the test against a real server (test/e2e/llama-server.test.ts), into a virtual environment
# OUTSIDE the repository, cached at ${SPADE_LLAMA_SERVER_DIR:-$HOME/.cache/spade/llama-server} and
# reinstalled only when the requirements (or this script) change. The install compiles llama.cpp
# for the CPU (no CUDA, no BLAS): 68 minutes on 2 cores under heavy load, once (pip keeps the wheel).
# Idempotent; `npm test` runs it. Prints the server's Python on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
req=requirements-llama-server.txt
dir=${SPADE_LLAMA_SERVER_DIR:-${HOME:-$(echo ~)}/.cache/spade/llama-server}
stamp="$dir/.requirements.sha256"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
want=$(cat "$req" "$0" | sha256sum | cut -d' ' -f1)
if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "llama-server: cached at $dir" >&2
  echo "$dir/bin/python"
  exit 0
fi
echo "llama-server: installing $req into $dir (compiles llama.cpp for the CPU: many minutes, once)" >&2
start=$(date +%s)
rm -rf "$dir"
python3 -m venv "$dir"
# CPU only, portable across this machine's kind; pip keeps the built wheel in its cache, so a
# reinstall after a requirements change that keeps llama-cpp-python's version does not compile again.
CMAKE_ARGS="-DGGML_CUDA=OFF -DGGML_BLAS=OFF -DLLAMA_CURL=OFF" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
  "$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$req"
echo "$want" > "$stamp"
echo "llama-server: installed in $(( $(date +%s) - start )) s, $(du -sm "$dir" | cut -f1) MB" >&2
echo "$dir/bin/python"
