#!/usr/bin/env bash
# Installs TensorBoard (requirements-tensorboard.txt) for the test that reads exported event files
# back, into a virtual environment OUTSIDE the repository, cached at
# ${SPADE_TENSORBOARD_DIR:-$HOME/.cache/spade/tensorboard} and reinstalled only when that list (or
# this script) changes. Idempotent; `npm test` runs it. Prints the environment's Python on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
req=requirements-tensorboard.txt
dir=${SPADE_TENSORBOARD_DIR:-${HOME:-$(echo ~)}/.cache/spade/tensorboard}
stamp="$dir/.requirements.sha256"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
want=$(cat "$req" "$0" | sha256sum | cut -d' ' -f1)
if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "tensorboard: cached at $dir" >&2
  echo "$dir/bin/python"
  exit 0
fi
py=${SPADE_TENSORBOARD_PYTHON:-python3}
echo "tensorboard: installing $req into $dir (~180 MB; cached afterwards)" >&2
start=$(date +%s)
rm -rf "$dir"
"$py" -m venv "$dir"
# --no-deps: the list is the complete pinned closure.
"$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$req"
if ! "$dir/bin/python" -c 'from tensorboard.backend.event_processing.event_accumulator import EventAccumulator' 2>"$dir.check.log"; then
  echo "tensorboard: the installed package does not import; see $dir.check.log" >&2
  exit 1
fi
echo "$want" > "$stamp"
echo "tensorboard: installed in $(( $(date +%s) - start )) s, $(du -sm "$dir" | cut -f1) MB" >&2
echo "$dir/bin/python"
