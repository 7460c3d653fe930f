#!/usr/bin/env bash
# Creates .venv with the Python packages some tests compare against (requirements-test.txt),
# reinstalling only when that file changed. Idempotent; `npm test` runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."
req=requirements-test.txt
stamp=.venv/.requirements.sha256
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "setting up .venv from $req" >&2
python3 -m venv .venv
# --no-deps: bfcl-eval's own requirements pull in torch and more (GBs); see requirements-test.txt.
.venv/bin/pip install --quiet --disable-pip-version-check --no-deps -r "$req"
echo "$want" > "$stamp"
