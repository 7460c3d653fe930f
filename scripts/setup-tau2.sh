#!/usr/bin/env bash
# Installs tau2-bench's harness (requirements-tau2.txt) for `spade eval tau2` into a virtual
# environment OUTSIDE the repository, cached at ${SPADE_TAU2_DIR:-$HOME/.cache/spade/tau2} and
# reinstalled only when that list (or this script) changes. Idempotent; `npm test` runs it.
# Prints the environment's Python on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
req=requirements-tau2.txt
dir=${SPADE_TAU2_DIR:-${HOME:-$(echo ~)}/.cache/spade/tau2}
stamp="$dir/.requirements.sha256"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
want=$(cat "$req" "$0" | sha256sum | cut -d' ' -f1)
if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "tau2: cached at $dir" >&2
  echo "$dir/bin/python"
  exit 0
fi
py=${SPADE_TAU2_PYTHON:-python3}
if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
  echo "tau2: $py is older than Python 3.10; set SPADE_TAU2_PYTHON to a newer one" >&2
  exit 1
fi
echo "tau2: installing $req into $dir (~270 MB; cached afterwards)" >&2
start=$(date +%s)
rm -rf "$dir"
"$py" -m venv "$dir"
# --no-deps: the list is the complete pinned closure (see its header for what is left out and why).
"$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$req"
# The harness must import and find its data before the install counts as done.
if ! "$dir/bin/python" -c 'import tau2.run; from tau2.utils.utils import DATA_DIR; assert (DATA_DIR / "tau2/domains/retail/db.json").is_file(), DATA_DIR' 2>"$dir.check.log"; then
  echo "tau2: the installed harness does not import or lacks its data; see $dir.check.log" >&2
  exit 1
fi
echo "$want" > "$stamp"
echo "tau2: installed in $(( $(date +%s) - start )) s, $(du -sm "$dir" | cut -f1) MB" >&2
echo "$dir/bin/python"
