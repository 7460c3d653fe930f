#!/usr/bin/env bash
# Installs tau2-bench's harness (requirements-tau2.txt) for `spade eval tau2` into a virtual
# environment OUTSIDE the repository, cached at ${SPADE_TAU2_DIR:-$HOME/.cache/spade/tau2} and
# reinstalled only when that list (or this script, or scripts/lib/cached-venv.sh) changes.
# Idempotent; `npm test` runs it. Prints the environment's Python on stdout.
set -euo pipefail
source "$(dirname "$0")/lib/cached-venv.sh"
cd "$(dirname "$0")/.."
# The harness must import and find its data before the install counts as done.
tau2_check() {
  "$1/bin/python" -c 'import tau2.run; from tau2.utils.utils import DATA_DIR; assert (DATA_DIR / "tau2/domains/retail/db.json").is_file(), DATA_DIR'
}
cached_venv --name tau2 --dir-var SPADE_TAU2_DIR --requirements requirements-tau2.txt \
  --python-var SPADE_TAU2_PYTHON --min-python 3.10 --note "~270 MB; cached afterwards" \
  --check tau2_check --check-failure "the installed harness does not import or lacks its data"
