#!/usr/bin/env bash
# Makes sure a headless Chromium is on this machine for the dashboard's browser tests (driven by
# playwright-core, which never downloads browsers). Installs Debian's `chromium` with apt-get only
# when no Chromium is found; prints what it does on stderr and the browser's path on stdout.
# Set SPADE_CHROMIUM to use another Chromium binary. Idempotent; `npm test` runs it.
set -euo pipefail
find_chromium() {
  for candidate in "${SPADE_CHROMIUM:-}" "$(command -v chromium || true)" "$(command -v chromium-browser || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  return 1
}
if path=$(find_chromium); then
  echo "browser: using $path" >&2
  echo "$path"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "browser: no chromium found and no apt-get to install it; install Chromium and set SPADE_CHROMIUM" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
echo "browser: installing Debian's chromium with apt-get (once; ~300 MB)" >&2
start=$(date +%s)
$sudo apt-get -o DPkg::Lock::Timeout=900 update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends chromium >&2
path=$(find_chromium) || { echo "browser: apt-get installed chromium but no binary was found" >&2; exit 1; }
echo "browser: installed $path in $(( $(date +%s) - start )) s" >&2
echo "$path"
