#!/usr/bin/env bash
# Makes sure the Python sandbox can start: bubblewrap (Debian package `bubblewrap`) and python3.
# Installs bubblewrap with apt-get when it is missing and this runs as root; otherwise says what
# to do. Idempotent and quick when bwrap is there; `npm test` runs it.
set -euo pipefail
if ! command -v python3 >/dev/null 2>&1; then
  echo "setup-sandbox: python3 is missing; install it (Debian: apt-get install python3)" >&2
  exit 1
fi
if command -v bwrap >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup-sandbox: installing bubblewrap for the Python sandbox" >&2
  apt-get install -y -qq bubblewrap >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq bubblewrap >/dev/null; }
  exit 0
fi
echo "setup-sandbox: bubblewrap (bwrap) is missing; install it (Debian: sudo apt-get install bubblewrap) for the Python sandbox" >&2
exit 1
