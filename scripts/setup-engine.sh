#!/usr/bin/env bash
# Installs the independent training engine the engine tests run against: SkyRL's Tinker server
# (JAX backend, CPU) into a virtual environment OUTSIDE the repository, cached between runs at
# ${SPADE_ENGINE_DIR:-$HOME/.cache/spade/engine}, reinstalled only when requirements-engine.txt
# (or this script) changes. Idempotent; `npm test` runs it. Prints the engine's Python on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
req=requirements-engine.txt
# ~ falls back to the passwd entry when HOME is unset (set -u would stop at a bare $HOME).
dir=${SPADE_ENGINE_DIR:-${HOME:-$(echo ~)}/.cache/spade/engine}
stamp="$dir/.requirements.sha256"
# One installer at a time (npm test and npm run learn-check may start together on a cold machine).
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
# The stamp covers this script too: a change in how the engine is installed reinstalls it.
want=$(cat "$req" "$0" | sha256sum | cut -d' ' -f1)
if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "engine: cached at $dir" >&2
  echo "$dir/bin/python"
  exit 0
fi
# SkyRL 0.3.0 supports Python 3.11 (3.12+ also works); the launcher papers over 3.11's TypedDict.
py=${SPADE_ENGINE_PYTHON:-python3}
if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "engine: $py is older than Python 3.11; set SPADE_ENGINE_PYTHON to a newer one" >&2
  exit 1
fi
echo "engine: installing $req into $dir (~1 GB, under a minute on a fast network; cached afterwards)" >&2
start=$(date +%s)
rm -rf "$dir"
"$py" -m venv "$dir"
# --no-deps: the pinned list is the complete closure MINUS torch, peft and accelerate (peft and
# accelerate require torch, whose PyPI wheel pulls several GB of CUDA libraries). The JAX backend
# never uses torch; peft is used only to write adapter_config.json, which the launcher does itself.
# Bytecode is compiled here, once: the tests start the server (and its helper scripts) many times.
"$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$req"
echo "$want" > "$stamp"
echo "engine: installed in $(( $(date +%s) - start )) s, $(du -sm "$dir" | cut -f1) MB" >&2
echo "$dir/bin/python"
