#!/usr/bin/env bash
# Installs openenv-core (requirements-openenv.txt), the client `spade serve` is tested with,
# into a virtual environment OUTSIDE the repository, cached at ${SPADE_OPENENV_DIR:-$HOME/.cache/spade/openenv} and
# reinstalled only when that list (or this script, or scripts/lib/cached-venv.sh) changes.
# Idempotent; `npm test` runs it. Prints the environment's Python on stdout.
set -euo pipefail
source "$(dirname "$0")/lib/cached-venv.sh"
cd "$(dirname "$0")/.."
# The client and the `openenv` command must work before the install counts as done.
openenv_check() {
  "$1/bin/python" -c 'from openenv.core import GenericEnvClient; from openenv.cli._validation import validate_running_environment' &&
    "$1/bin/openenv" --help >/dev/null
}
cached_venv --name openenv --dir-var SPADE_OPENENV_DIR --requirements requirements-openenv.txt \
  --python-var SPADE_OPENENV_PYTHON --min-python 3.10 --note "~470 MB; cached afterwards" \
  --check openenv_check --check-failure "the installed client does not import or its CLI does not start"
