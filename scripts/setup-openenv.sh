#!/usr/bin/env bash
# Installs openenv-core (requirements-openenv.txt), the client `spade serve` is tested with,
# into a virtual environment OUTSIDE the repository, cached at ${SPADE_OPENENV_DIR:-$HOME/.cache/spade/openenv} and
# reinstalled only when that list (or this script) changes. Idempotent; `npm test` runs it.
# Prints the environment's Python on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
req=requirements-openenv.txt
dir=${SPADE_OPENENV_DIR:-${HOME:-$(echo ~)}/.cache/spade/openenv}
stamp="$dir/.requirements.sha256"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
want=$(cat "$req" "$0" | sha256sum | cut -d' ' -f1)
if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "openenv: cached at $dir" >&2
  echo "$dir/bin/python"
  exit 0
fi
py=${SPADE_OPENENV_PYTHON:-python3}
if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
  echo "openenv: $py is older than Python 3.10; set SPADE_OPENENV_PYTHON to a newer one" >&2
  exit 1
fi
echo "openenv: installing $req into $dir (~470 MB; cached afterwards)" >&2
start=$(date +%s)
rm -rf "$dir"
"$py" -m venv "$dir"
# --no-deps: the list is the complete pinned closure (see its header for what is left out and why).
"$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$req"
# The client and the `openenv` command must work before the install counts as done.
if ! "$dir/bin/python" -c 'from openenv.core import GenericEnvClient; from openenv.cli._validation import validate_running_environment' 2>"$dir.check.log" || ! "$dir/bin/openenv" --help >/dev/null 2>>"$dir.check.log"; then
  echo "openenv: the installed client does not import or its CLI does not start; see $dir.check.log" >&2
  exit 1
fi
echo "$want" > "$stamp"
echo "openenv: installed in $(( $(date +%s) - start )) s, $(du -sm "$dir" | cut -f1) MB" >&2
echo "$dir/bin/python"
