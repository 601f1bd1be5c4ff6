#!/usr/bin/env bash
# Creates .venv with Waymark installed (editable) and puts it first on PATH. Sourced by demo.sh
# and test.sh, and by hand from an interactive shell: the work runs in a subshell, so the
# caller's shell keeps its options and its directory; only PATH changes.
# Usage: source scripts/setup.sh [test]   — "test" adds the test and lint tools, and the
# installers the README's Install section uses (scripts/install-tools.txt).
_waymark_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Not `if ( … )`: errexit is ignored inside an if's condition, subshells included.
(
  set -euo pipefail
  cd "$_waymark_root"
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv || {
      echo "setup.sh: python3 could not make a venv; on Debian or Ubuntu: sudo apt-get install python3-venv" >&2
      rm -rf .venv
      exit 1
    }
  fi
  extras=""
  [ "${1:-}" = "test" ] && extras="[test]"
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extras}"
  if [ "${1:-}" = "test" ]; then
    .venv/bin/python -m pip install -q --disable-pip-version-check -r scripts/install-tools.txt
  fi
)
_waymark_status=$?
if [ "$_waymark_status" = 0 ]; then
  case ":$PATH:" in
    *":$_waymark_root/.venv/bin:"*) ;;
    *) export PATH="$_waymark_root/.venv/bin:$PATH" ;;
  esac
  unset _waymark_root _waymark_status
else
  unset _waymark_root _waymark_status
  # Sourced: fail the `source` line, not the caller's shell. Run as a script: exit.
  return 1 2>/dev/null || exit 1
fi
