#!/usr/bin/env bash
# Makes sure the Python sandbox can start: bubblewrap (Debian package `bubblewrap`) and python3,
# and installs the packages offered to Python environment programs (requirements-sandbox.txt:
# numpy, networkx) into $HOME/.cache/spade/sandbox-site (where the sandbox looks), outside the repository,
# reinstalled only when that file (or this script) changes. Installs bubblewrap with apt-get when
# it is missing and this runs as root; otherwise says what to do. Idempotent; `npm test` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v python3 >/dev/null 2>&1; then
  echo "setup-sandbox: python3 is missing; install it (Debian: apt-get install python3)" >&2
  exit 1
fi
if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup-sandbox: installing bubblewrap for the Python sandbox" >&2
    apt-get install -y -qq bubblewrap >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq bubblewrap >/dev/null; }
  else
    echo "setup-sandbox: bubblewrap (bwrap) is missing; install it (Debian: sudo apt-get install bubblewrap) for the Python sandbox" >&2
    exit 1
  fi
fi
req=requirements-sandbox.txt
dir=${HOME:-$(echo ~)}/.cache/spade/sandbox-site
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
want=$( (cat "$req" "$0"; python3 --version) | sha256sum | cut -d' ' -f1)
if [ -f "$dir/.requirements.sha256" ] && [ "$(cat "$dir/.requirements.sha256")" = "$want" ]; then
  exit 0
fi
echo "setup-sandbox: installing $req into $dir" >&2
rm -rf "$dir"
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --target "$dir" -r "$req"
echo "$want" > "$dir/.requirements.sha256"
