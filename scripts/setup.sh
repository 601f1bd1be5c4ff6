#!/usr/bin/env bash
# Creates .venv with Waymark installed (editable). Sourced by demo.sh and test.sh.
# Usage: source scripts/setup.sh [test]   — "test" adds the test and lint tools, and the
# installers the README's Install section uses (scripts/install-tools.txt).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
extras=""
[ "${1:-}" = "test" ] && extras="[test]"
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extras}"
if [ "${1:-}" = "test" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -r scripts/install-tools.txt
fi
export PATH="$PWD/.venv/bin:$PATH"
