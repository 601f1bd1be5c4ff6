#!/usr/bin/env bash
# The quick check before a commit, without root: lint, types, the import layers and the unit
# tests. It installs nothing; `source scripts/setup.sh test` makes the .venv it uses.
# scripts/test.sh runs everything CI runs (the real hosts, editors and sed too).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x .venv/bin/python ]; then
  PATH="$PWD/.venv/bin:$PATH"
fi
for tool in ruff mypy lint-imports pytest; do
  command -v "$tool" >/dev/null || {
    echo "check.sh: $tool is missing; run \`source scripts/setup.sh test\` first." >&2
    exit 2
  }
done
echo "== ruff"; ruff check . && ruff format --check .
echo "== mypy"; mypy
echo "== import-linter (the layers)"; lint-imports
echo "== unit tests"; pytest -q -p no:cacheprovider tests/unit "$@"
