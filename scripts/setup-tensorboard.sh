#!/usr/bin/env bash
# Installs TensorBoard (requirements-tensorboard.txt) for the test that reads exported event files
# back, into a virtual environment OUTSIDE the repository, cached at
# ${SPADE_TENSORBOARD_DIR:-$HOME/.cache/spade/tensorboard} and reinstalled only when that list (or
# this script, or scripts/lib/cached-venv.sh) changes. Idempotent; `npm test` runs it. Prints the
# environment's Python on stdout.
set -euo pipefail
source "$(dirname "$0")/lib/cached-venv.sh"
cd "$(dirname "$0")/.."
tensorboard_check() {
  "$1/bin/python" -c 'from tensorboard.backend.event_processing.event_accumulator import EventAccumulator'
}
cached_venv --name tensorboard --dir-var SPADE_TENSORBOARD_DIR \
  --requirements requirements-tensorboard.txt --python-var SPADE_TENSORBOARD_PYTHON \
  --note "~180 MB; cached afterwards" \
  --check tensorboard_check --check-failure "the installed package does not import"
