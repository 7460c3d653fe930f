# shellcheck shell=bash
# Sourced by the scripts/setup-*.sh that install a pinned requirements file into a cached virtual
# environment OUTSIDE the repository: cached_venv, the one install-or-reuse step they share.
# Source it before the caller's own `cd`: it records the caller's and its own paths for the stamp.

# Absolute paths, so the stamp reads the same files whatever the caller cds to afterwards.
cached_venv_script=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cached_venv_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")

# cached_venv --name NAME --dir-var VAR --requirements FILE --note TEXT [--python-var VAR]
#             [--min-python X.Y] [--check FUNCTION --check-failure TEXT] [--pip-env NAME=VALUE]...
# Installs FILE (relative to the current directory) with `pip --no-deps` into the venv at $VAR,
# default ~/.cache/spade/NAME, under a lock (one installer at a time: npm test and npm run
# learn-check may start together on a cold machine), unless the stamp there matches. The stamp
# hashes FILE, the calling script and this file: a change to any of them reinstalls. Prints the
# venv's Python on stdout; progress goes to stderr as "NAME: ...".
#   --python-var VAR   the interpreter that makes the venv is $VAR, default python3
#   --min-python X.Y   refuse (exit 1) an interpreter older than X.Y, naming --python-var
#   --check FUNCTION   called with the venv's folder after pip; its stderr goes to DIR.check.log;
#                      when it fails: exit 1 with "NAME: TEXT; see DIR.check.log" (no stamp)
#   --pip-env N=V      set in pip's environment only (e.g. compile flags); repeatable
cached_venv() {
  local name="" dir_var="" req="" note="" python_var="" min_python="" check="" check_failure=""
  local -a pip_env=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --name) name=$2 ;;
      --dir-var) dir_var=$2 ;;
      --requirements) req=$2 ;;
      --note) note=$2 ;;
      --python-var) python_var=$2 ;;
      --min-python) min_python=$2 ;;
      --check) check=$2 ;;
      --check-failure) check_failure=$2 ;;
      --pip-env) pip_env+=("$2") ;;
      *) echo "cached_venv: unknown option $1" >&2; return 2 ;;
    esac
    shift 2
  done
  if [ -z "$name" ] || [ -z "$dir_var" ] || [ -z "$req" ] || [ -z "$note" ]; then
    echo "cached_venv: --name, --dir-var, --requirements and --note are required" >&2
    return 2
  fi
  if [ -n "$check" ] && [ -z "$check_failure" ]; then
    echo "cached_venv: --check needs --check-failure" >&2
    return 2
  fi
  # ~ falls back to the passwd entry when HOME is unset (set -u would stop at a bare $HOME).
  # shellcheck disable=SC2116 # the echo is what expands ~ from the passwd entry
  local dir=${!dir_var:-${HOME:-$(echo ~)}/.cache/spade/$name}
  local stamp="$dir/.requirements.sha256"
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  flock 9
  local want
  want=$(cat "$req" "$cached_venv_script" "$cached_venv_lib" | sha256sum | cut -d' ' -f1)
  if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "$name: cached at $dir" >&2
    echo "$dir/bin/python"
    return 0
  fi
  local py=python3
  if [ -n "$python_var" ]; then py=${!python_var:-python3}; fi
  if [ -n "$min_python" ] &&
    ! "$py" -c "import sys; sys.exit(0 if sys.version_info >= (${min_python/./, }) else 1)"; then
    echo "$name: $py is older than Python $min_python; set $python_var to a newer one" >&2
    exit 1
  fi
  echo "$name: installing $req into $dir ($note)" >&2
  local start
  start=$(date +%s)
  rm -rf "$dir"
  "$py" -m venv "$dir"
  # --no-deps: each list is its complete pinned closure (its header says what is left out and why).
  env ${pip_env[@]+"${pip_env[@]}"} \
    "$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$req"
  if [ -n "$check" ] && ! "$check" "$dir" 2>"$dir.check.log"; then
    echo "$name: $check_failure; see $dir.check.log" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
  echo "$name: installed in $(( $(date +%s) - start )) s, $(du -sm "$dir" | cut -f1) MB" >&2
  echo "$dir/bin/python"
}
